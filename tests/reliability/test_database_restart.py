"""PostgreSQL restarted under create load: the real `fieldhouse serve` on a throwaway database
of the test server, eight clients creating records, and the server's PostgreSQL cluster
restarted once (``pg_ctlcluster ... restart``) while they do. No answer is a 500; a 503 says
when to retry (``Retry-After`` and ``data.retryAfter``), and a create answered so (not in
doubt) left nothing; every 201's record is there afterwards; /readyz says unavailable while
the database is away and ready once the pool is back, without restarting the server.

This restarts the one PostgreSQL server of the machine (every test database on it): it runs
once, with the load bounded in count and in time.
"""

from __future__ import annotations

import shutil
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
import trio

from tests.reliability.procs import cli, fetch, serve

WRITERS = 8
#: acknowledged creates before the restart, and each writer's creates after it
BEFORE = 40
AFTER_EACH = 5
#: every writer's attempts at most, whatever happens (the load is bounded)
ATTEMPTS_EACH = 120
DEADLINE = 50.0


@dataclass
class Tally:
    statuses: Counter[int] = field(default_factory=Counter)
    #: display name -> record id of every create answered 201
    created: dict[str, str] = field(default_factory=dict)
    #: display names of the creates answered 503 (not in doubt) and in doubt
    refused: list[str] = field(default_factory=list)
    in_doubt: list[str] = field(default_factory=list)
    #: what was wrong with a 503 (no Retry-After, no data.retryAfter)
    bad_503: list[str] = field(default_factory=list)
    readyz: list[int] = field(default_factory=list)


def restart_command(database_url: str) -> list[str]:
    """The command that restarts the local cluster serving ``database_url``."""
    host = urlsplit(database_url).hostname
    assert host in ("127.0.0.1", "localhost"), f"{host}: only a local server can be restarted"
    assert shutil.which("pg_ctlcluster"), "pg_ctlcluster (postgresql-common) is needed"
    versions = sorted(p.name for p in Path("/etc/postgresql").iterdir())
    assert versions, "no cluster under /etc/postgresql"
    return ["pg_ctlcluster", "--skip-systemctl-redirect", versions[-1], "main", "restart"]


async def _writer(
    client: httpx.AsyncClient,
    worker: int,
    tally: Tally,
    enough: trio.Event,
    restarted: trio.Event,
) -> None:
    after = 0
    for n in range(ATTEMPTS_EACH):
        if after >= AFTER_EACH:
            return
        name = f"w{worker}-{n}"
        resp = await client.post(
            "/v1/modules/deals/records",
            json={"displayName": name, "fields": {"name": name, "stage": "lead"}},
        )
        tally.statuses[resp.status_code] += 1
        if resp.status_code == 201:
            tally.created[name] = resp.json()["record"]["recordId"]
            if len(tally.created) >= BEFORE:
                enough.set()
            if restarted.is_set():
                after += 1
        elif resp.status_code == 503:
            error = resp.json()["error"]
            retry_after = resp.headers.get("Retry-After")
            data = error.get("data") or {}
            if retry_after is None or str(data.get("retryAfter")) != retry_after:
                tally.bad_503.append(resp.text)
            (tally.in_doubt if data.get("inDoubt") else tally.refused).append(name)
            # a client doing as it is told (also what keeps the load bounded meanwhile)
            await trio.sleep(min(float(retry_after or 1), 1.0))


async def _watch_readiness(client: httpx.AsyncClient, tally: Tally, done: trio.Event) -> None:
    while not done.is_set():
        tally.readyz.append((await client.get("/readyz")).status_code)


# httpx may leave a request's body iterator unfinished if something goes wrong mid-request;
# the garbage collector then reports it, which must not hide the assertion that explains it
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
@pytest.mark.alone  # every other test's connections would go with the restart
async def test_a_database_restart_under_create_load_answers_no_500_and_loses_no_201(
    pg_url: str, tmp_path: Path
) -> None:
    command = restart_command(pg_url)
    made = cli(pg_url, "init", "--name", "Restart", "--template", "deals")
    headers = {"Authorization": f"Bearer {made['apiKey']}"}
    tally = Tally()
    async with (
        serve(pg_url, tmp_path / "data", log=tmp_path / "server.log") as server,
        httpx.AsyncClient(base_url=server.base, headers=headers, timeout=30) as client,
    ):
        enough, restarted = trio.Event(), trio.Event()
        with trio.fail_after(DEADLINE):
            async with trio.open_nursery() as nursery:
                for worker in range(WRITERS):
                    nursery.start_soon(_writer, client, worker, tally, enough, restarted)
                await enough.wait()
                nursery.start_soon(_watch_readiness, client, tally, restarted)
                done = await trio.run_process(command, capture_stdout=True, capture_stderr=True)
                assert done.returncode == 0, done.stderr
                restarted.set()
            # the pool is back by itself: ready again, without restarting the server
            # (polling: no event in this process tells when the server's pool is back)
            while (await client.get("/readyz")).status_code != 200:  # noqa: ASYNC110
                await trio.sleep(0.05)
        log = await server.output()

    assert tally.statuses.keys() <= {201, 503}, (tally.statuses, log[-4000:])
    assert tally.bad_503 == [], tally.bad_503[:3]
    assert 503 in tally.readyz, tally.readyz  # not ready while the database was away
    stored = await fetch(
        pg_url,
        "SELECT id, display_name FROM records WHERE account_id = $1 AND deleted_at IS NULL",
        made["accountId"],
    )
    sent = {*tally.created, *tally.refused, *tally.in_doubt}
    by_name: dict[str, list[Any]] = {}
    for row in stored:
        if row["display_name"] in sent:  # (the template's own records aside)
            by_name.setdefault(row["display_name"], []).append(row["id"])
    # every 201 is there, once, under the id it was answered with
    assert {name: by_name.get(name) for name in tally.created} == {
        name: [record_id] for name, record_id in tally.created.items()
    }
    # a 503 that was not in doubt committed nothing; one in doubt is there at most once
    assert [name for name in tally.refused if name in by_name] == []
    assert all(len(by_name.get(name, [])) <= 1 for name in tally.in_doubt)
    assert len(by_name) == len(tally.created) + sum(name in by_name for name in tally.in_doubt)
    assert len(tally.created) >= BEFORE + WRITERS * AFTER_EACH
