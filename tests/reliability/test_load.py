"""A bounded load test on a real server: many concurrent clients on one workspace with a small
mailbox. Every answer is a success or a 503 with Retry-After (never a 500), and the server's
memory stays bounded. The full 256-client run is ``python -m benchmarks.overload``."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import httpx
import pytest
import trio

from tests.reliability.procs import cli, serve, sqlite_url

CLIENTS = 64
ROUNDS = 4


def rss_kib(pid: int, field: str = "VmRSS") -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise AssertionError(f"no {field} for {pid}")


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
async def test_many_clients_get_answers_not_500s(tmp_path: Path) -> None:
    url = sqlite_url(tmp_path / "data")
    (tmp_path / "data").mkdir()
    made = cli(url, "init", "--name", "Load", "--template", "tasks")
    headers = {"Authorization": f"Bearer {made['apiKey']}"}
    env = {"FIELDHOUSE_ACTOR_MAILBOX_SIZE": "4", "FIELDHOUSE_ACTOR_SEND_TIMEOUT": "0.25"}
    statuses: Counter[int] = Counter()
    bad: list[str] = []
    async with serve(url, tmp_path / "data", log=tmp_path / "server.log", env=env) as server:
        pid = server.process.pid
        limits = httpx.Limits(max_connections=CLIENTS, max_keepalive_connections=CLIENTS)
        async with httpx.AsyncClient(
            base_url=server.base, headers=headers, timeout=60, limits=limits
        ) as client:
            await client.get("/v1/modules/tasks/records")  # warm up
            before = rss_kib(pid)

            async def user(i: int) -> None:
                for r in range(ROUNDS):
                    resp = await client.post(
                        "/v1/modules/tasks/records",
                        json={
                            "displayName": f"T{i}-{r}",
                            "fields": {"title": f"T{i}-{r}", "status": "todo"},
                        },
                    )
                    statuses[resp.status_code] += 1
                    if resp.status_code == 503:
                        if resp.json()["error"]["code"] != "service_unavailable" or not int(
                            resp.headers["Retry-After"]
                        ):
                            bad.append(resp.text)
                    elif resp.status_code != 201:
                        bad.append(resp.text)
                    listed = await client.get("/v1/modules/tasks/records?pageSize=10")
                    statuses[listed.status_code] += 1
                    if listed.status_code != 200:
                        bad.append(listed.text)

            with trio.fail_after(120):
                async with trio.open_nursery() as nursery:
                    for i in range(CLIENTS):
                        nursery.start_soon(user, i)
            after = rss_kib(pid)
            peak = rss_kib(pid, "VmHWM")
    assert not bad, bad[:3]
    assert set(statuses) <= {200, 201, 503}
    assert statuses[201] + statuses[503] == CLIENTS * ROUNDS
    # memory is bounded by the mailbox and the connections, not by the offered load
    assert after - before < 120 * 1024, (before, after, peak)
    assert peak < 600 * 1024, peak
