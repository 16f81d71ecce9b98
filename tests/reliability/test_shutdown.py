"""Graceful shutdown: SIGTERM while writes are in flight inside an actor batch lets them all
finish and be acknowledged, then the process exits 0 with the writes durable.

(The agent SSE endpoint, whose open streams should end with an ``error`` event, does not exist
yet; that part is not tested here.)"""

from __future__ import annotations

import signal
from pathlib import Path

import httpx
import trio

from tests.reliability.procs import cli, fetch, serve, sqlite_url

WRITES = 8


async def test_sigterm_finishes_in_flight_writes_and_exits_0(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    url = sqlite_url(tmp_path / "data")
    made = cli(url, "init", "--name", "Stop", "--template", "tasks")
    headers = {"Authorization": f"Bearer {made['apiKey']}"}
    log = tmp_path / "server.log"
    env = {"FIELDHOUSE_TEST_SLOW_WRITES": "0.5"}
    statuses: list[int] = []
    module = ("tests.reliability.faulty_server",)
    async with serve(url, tmp_path / "data", log=log, env=env, module=module) as server:
        async with httpx.AsyncClient(base_url=server.base, headers=headers, timeout=30) as client:

            async def create(i: int) -> None:
                resp = await client.post(
                    "/v1/modules/tasks/records",
                    json={"displayName": f"T{i}", "fields": {"title": f"T{i}", "status": "todo"}},
                )
                statuses.append(resp.status_code)

            async with trio.open_nursery() as nursery:
                for i in range(WRITES):
                    nursery.start_soon(create, i)
                with trio.fail_after(30):
                    while "write held" not in await server.output():  # noqa: ASYNC110
                        await trio.sleep(0.02)  # polling the subprocess's log for the batch
                server.process.send_signal(signal.SIGTERM)
        assert await server.wait() == 0, await server.output()
    assert statuses == [201] * WRITES
    rows = await fetch(
        url, "SELECT count(*) AS n FROM records WHERE account_id = $1", made["accountId"]
    )
    assert rows[0]["n"] == WRITES
