"""Graceful shutdown of a real `fieldhouse serve` on SIGTERM: writes in flight inside an actor
batch all finish and are acknowledged while new connections are refused; idle keep-alive
connections do not hold the exit; open agent event streams end with an ``error`` event and
their runs are stored as aborted; every time the process exits 0."""

from __future__ import annotations

import json
import signal
from pathlib import Path
from typing import Any

import httpx
import trio

from tests.reliability.procs import Served, cli, fetch, serve, sqlite_url

WRITES = 8
#: well under hypercorn's graceful timeout (10 s), which a held-open connection would take
PROMPT_EXIT = 5.0
FAULTY = ("tests.reliability.faulty_server",)


async def _wait_for_log(server: Served, text: str) -> None:
    with trio.fail_after(30):
        while text not in await server.output():  # noqa: ASYNC110
            await trio.sleep(0.02)  # polling the subprocess's log


async def test_sigterm_finishes_in_flight_writes_and_exits_0(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    url = sqlite_url(tmp_path / "data")
    made = cli(url, "init", "--name", "Stop", "--template", "tasks")
    headers = {"Authorization": f"Bearer {made['apiKey']}"}
    log = tmp_path / "server.log"
    env = {"FIELDHOUSE_TEST_SLOW_WRITES": "0.5"}
    statuses: list[int] = []
    async with serve(url, tmp_path / "data", log=log, env=env, module=FAULTY) as server:
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
                await _wait_for_log(server, "write held")
                server.process.send_signal(signal.SIGTERM)
        assert await server.wait() == 0, await server.output()
    assert statuses == [201] * WRITES
    rows = await fetch(
        url, "SELECT count(*) AS n FROM records WHERE account_id = $1", made["accountId"]
    )
    assert rows[0]["n"] == WRITES


async def test_after_sigterm_new_connections_get_no_service_while_in_flight_finish(
    tmp_path: Path,
) -> None:
    (tmp_path / "data").mkdir()
    url = sqlite_url(tmp_path / "data")
    made = cli(url, "init", "--name", "Stop", "--template", "tasks")
    headers = {"Authorization": f"Bearer {made['apiKey']}"}
    log = tmp_path / "server.log"
    # the batch is held long enough to try a new connection while it is still in flight
    env = {"FIELDHOUSE_TEST_SLOW_WRITES": "3", "FIELDHOUSE_LOG_LEVEL": "INFO"}
    statuses: list[int] = []
    refused: list[str] = []
    async with serve(url, tmp_path / "data", log=log, env=env, module=FAULTY) as server:
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
                await _wait_for_log(server, "write held")
                server.process.send_signal(signal.SIGTERM)
                await _wait_for_log(server, "shutting down")
                async with httpx.AsyncClient(base_url=server.base, timeout=5) as fresh:
                    try:
                        late = await fresh.get("/openapi.json")
                    except httpx.TransportError as exc:  # refused, or closed unanswered
                        refused.append(type(exc).__name__)
                    else:
                        raise AssertionError(f"a new connection was served: {late.status_code}")
                assert statuses == [], "the writes finished before the new connection was tried"
        assert await server.wait() == 0, await server.output()
    assert refused
    assert statuses == [201] * WRITES
    rows = await fetch(
        url, "SELECT count(*) AS n FROM records WHERE account_id = $1", made["accountId"]
    )
    assert rows[0]["n"] == WRITES


async def test_idle_keep_alive_connection_does_not_hold_the_exit(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    url = sqlite_url(tmp_path / "data")
    made = cli(url, "init", "--name", "Stop", "--template", "tasks")
    headers = {"Authorization": f"Bearer {made['apiKey']}"}
    async with (
        serve(url, tmp_path / "data", log=tmp_path / "server.log") as server,
        httpx.AsyncClient(base_url=server.base, headers=headers, timeout=30) as client,
    ):
        for _ in range(3):  # the connection is kept alive between requests
            assert (await client.get("/v1/modules")).status_code == 200
        began = trio.current_time()
        server.process.send_signal(signal.SIGTERM)
        assert await server.wait() == 0, await server.output()
        assert trio.current_time() - began < PROMPT_EXIT


def _events(lines: list[str]) -> list[tuple[str, Any]]:
    """(name, data) of each event in SSE lines; comments (keepalives) are skipped."""
    events: list[tuple[str, Any]] = []
    name = ""
    for line in lines:
        if line.startswith("event: "):
            name = line.removeprefix("event: ")
        elif line.startswith("data: "):
            events.append((name, json.loads(line.removeprefix("data: "))))
    return events


async def test_open_event_streams_end_with_an_error_event_on_sigterm(
    db_url: str, tmp_path: Path
) -> None:
    made = cli(db_url, "init", "--name", "Stop", "--template", "contacts")
    headers = {"Authorization": f"Bearer {made['apiKey']}"}
    env = {"FIELDHOUSE_TEST_STUCK_AGENT": "1"}
    lines: list[str] = []
    log = tmp_path / "server.log"
    async with serve(db_url, tmp_path / "data", log=log, env=env, module=FAULTY) as server:
        async with httpx.AsyncClient(base_url=server.base, headers=headers, timeout=30) as client:
            url = "/v1/agents/messages?stream=true"
            async with client.stream("POST", url, json={"message": "hello"}) as resp:
                assert resp.status_code == 200
                began = 0.0
                async for line in resp.aiter_lines():
                    lines.append(line)
                    if line == "event: token" and not began:
                        began = trio.current_time()
                        server.process.send_signal(signal.SIGTERM)
            ended = trio.current_time()  # the server ended the stream
        assert await server.wait() == 0, await server.output()
    assert began, lines
    assert ended - began < PROMPT_EXIT
    events = _events(lines)
    assert [name for name, _ in events] == ["open", "token", "error"], events
    error = events[-1][1]
    assert error["message"] == "server shutting down"
    rows = await fetch(
        db_url,
        "SELECT status, data FROM objects WHERE account_id = $1 AND kind = 'agent_run' AND id = $2",
        made["accountId"],
        error["runId"],
    )
    assert [r["status"] for r in rows] == ["aborted"]
    data = rows[0]["data"]
    data = json.loads(data) if isinstance(data, str) else data
    assert data["status"] == "aborted" and data["response"] == "thinking "
