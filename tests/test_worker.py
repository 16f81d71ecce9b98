"""Two real worker processes over one database, SQLite or PostgreSQL.

Each is a ``python -m fieldhouse.worker`` process, as ``fieldhouse serve --workers 2`` starts
them, but on a listening socket of its own, so the test chooses which process serves each
request. The database arbitrates between them: each write transaction takes SQLite's write lock
or the workspace's PostgreSQL advisory lock, so auto-numbers stay gap-free and the activity
sequence has one order; rate limits are counted where every process sees them.
"""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import pytest
import trio
import trio_asyncio

from fieldhouse.config import Settings

STARTUP_DEADLINE = 60.0


@pytest.fixture
def url(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> str:
    if backend == "postgres":
        return str(request.getfixturevalue("pg_url"))
    return f"sqlite:///{(tmp_path / 'shared' / 'fieldhouse.sqlite3').resolve()}"


def _cli(url: str, *args: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-m", "fieldhouse", *args, "--database-url", url],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


async def _wait_until_serving(base: str, proc: trio.Process, log: Path) -> None:
    """Poll the port of a starting subprocess, within a deadline (not a race papered over)."""
    with trio.move_on_after(STARTUP_DEADLINE):
        async with httpx.AsyncClient(base_url=base) as client:
            while proc.returncode is None:
                try:
                    await client.get("/v1/openapi.json")
                    return
                except httpx.TransportError:
                    await trio.sleep(0.1)
    output = await trio.Path(log).read_text()
    raise AssertionError(f"server {base} did not start:\n{output}")


@asynccontextmanager
async def two_workers(url: str, tmp: Path, **settings: Any) -> AsyncIterator[list[str]]:
    """Start two worker processes on one database; yield their base URLs."""
    procs: list[trio.Process] = []
    bases: list[str] = []
    sockets: list[socket.socket] = []
    base_settings = Settings(
        **{"database_url": url, "data_dir": tmp / "data", "log_level": "WARNING", "workers": 2}
        | settings
    )
    try:
        for index in range(2):
            sock = socket.socket()
            sock.bind(("127.0.0.1", 0))
            sock.listen(128)
            sock.set_inheritable(True)
            sockets.append(sock)
            log = tmp / f"worker{index}.log"
            with log.open("wb") as out:
                proc = await trio.lowlevel.open_process(
                    [sys.executable, "-m", "fieldhouse.worker"],
                    stdin=subprocess.PIPE,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    pass_fds=(sock.fileno(),),
                    env={**os.environ},
                )
            assert proc.stdin is not None
            worker = replace(base_settings, worker_index=index)
            handoff = {"settings": worker.to_json(), "fd": sock.fileno()}
            await proc.stdin.send_all(json.dumps(handoff).encode() + b"\n")
            procs.append(proc)
            bases.append(f"http://127.0.0.1:{sock.getsockname()[1]}")
        for proc, base, i in zip(procs, bases, range(2), strict=True):
            await _wait_until_serving(base, proc, tmp / f"worker{i}.log")
        yield bases
    finally:
        with trio.CancelScope(shield=True):
            for proc in procs:
                if proc.returncode is None:
                    proc.terminate()
            for proc in procs:
                with trio.move_on_after(15) as scope:
                    await proc.wait()
                if scope.cancelled_caught:
                    proc.kill()
                    await proc.wait()
                if proc.stdin is not None:
                    await proc.stdin.aclose()
            for sock in sockets:
                sock.close()


async def _fetch(url: str, sql: str, *args: Any) -> list[dict[str, Any]]:
    """Rows of one query straight from the database (``$n`` placeholders; ``?`` on SQLite)."""
    if url.startswith("sqlite:///"):
        conn = sqlite3.connect(url.removeprefix("sqlite:///"))
        conn.row_factory = sqlite3.Row
        try:
            rows = conn.execute(sql.replace("$1", "?"), args).fetchall()
        finally:
            conn.close()
        return [dict(r) for r in rows]
    async with trio_asyncio.open_loop():
        conn = await trio_asyncio.aio_as_trio(asyncpg.connect)(url)
        try:
            records = await trio_asyncio.aio_as_trio(conn.fetch)(sql, *args)
        finally:
            await trio_asyncio.aio_as_trio(conn.close)()
    return [dict(r) for r in records]


async def test_concurrent_creates_across_processes(url: str, tmp_path: Path) -> None:
    made = _cli(url, "init", "--name", "Shared", "--template", "deals")
    headers = {"Authorization": f"Bearer {made['apiKey']}"}
    created: list[dict[str, Any]] = []
    async with two_workers(url, tmp_path) as bases:

        async def create(i: int, client: httpx.AsyncClient) -> None:
            resp = await client.post(
                "/v1/modules/deals/records",
                headers=headers,
                json={"displayName": f"Deal {i}", "fields": {"name": f"Deal {i}", "stage": "lead"}},
            )
            assert resp.status_code == 201, resp.text
            created.append(resp.json()["record"])

        async with (
            httpx.AsyncClient(base_url=bases[0], timeout=60) as a,
            httpx.AsyncClient(base_url=bases[1], timeout=60) as b,
            trio.open_nursery() as nursery,
        ):
            for i in range(100):
                nursery.start_soon(create, i, a if i % 2 else b)

    assert len(created) == 100
    numbers = sorted(int(r["fields"]["deal-number"].removeprefix("DEAL-")) for r in created)
    assert numbers == list(range(1, 101))  # distinct and gap-free

    number = (
        "r.fields->>'deal-number'"
        if url.startswith("postgres")
        else ("json_extract(r.fields, '$.\"deal-number\"')")
    )
    stored = await _fetch(
        url,
        f"SELECT r.id, {number} AS number, a.seq FROM records r"
        " JOIN activity a ON a.account_id = r.account_id AND a.record_id = r.id"
        " AND a.activity_type = 'record_created'"
        " WHERE r.account_id = $1 AND r.deleted_at IS NULL",
        made["accountId"],
    )
    assert {r["id"] for r in stored} == {r["recordId"] for r in created}  # every ack is durable
    seqs = [r["seq"] for r in await _fetch(url, "SELECT seq FROM activity ORDER BY seq")]
    assert seqs == list(range(1, len(seqs) + 1))  # one sequence, no duplicates, no gaps
    # one total order per workspace: numbers were handed out in activity-sequence order
    by_seq = [r["number"] for r in sorted(stored, key=lambda r: r["seq"])]
    assert by_seq == sorted(by_seq)


async def test_rate_limit_is_shared_between_processes(url: str, tmp_path: Path) -> None:
    made = _cli(url, "init", "--name", "Limited", "--template", "deals")
    headers = {"Authorization": f"Bearer {made['apiKey']}"}
    results: list[tuple[int, str]] = []
    async with two_workers(url, tmp_path, rate_limit=10) as bases:

        async def hit(client: httpx.AsyncClient) -> None:
            resp = await client.get("/v1/me", headers=headers)
            results.append((resp.status_code, resp.headers["X-RateLimit-Reset"]))

        async with (
            httpx.AsyncClient(base_url=bases[0], timeout=60) as a,
            httpx.AsyncClient(base_url=bases[1], timeout=60) as b,
            trio.open_nursery() as nursery,
        ):
            for i in range(20):
                nursery.start_soon(hit, a if i % 2 else b)

    assert {status for status, _ in results} <= {200, 429}
    # per window (a burst may straddle a minute boundary) the first 10 pass, whichever
    # process served them; separate in-memory counters would have let all 20 through
    windows: dict[str, list[int]] = {}
    for status, reset in results:
        windows.setdefault(reset, []).append(status)
    for statuses in windows.values():
        assert statuses.count(200) == min(len(statuses), 10)
    if len(windows) == 1:
        assert sorted(s for s, _ in results) == [200] * 10 + [429] * 10


SEARCH_DEADLINE = 60.0  # the other process embeds the record first; a stuck poller fails


async def _search_until_found(
    client: httpx.AsyncClient,
    headers: dict[str, str],
    text: str,
    record_id: str,
    *,
    by_vector: bool = False,
) -> dict[str, Any]:
    """POST /v1/search on another process until it finds ``record_id`` (``by_vector``: with
    its vector similarity), within a deadline (waiting for an external process to catch up,
    not a race papered over)."""
    body: dict[str, Any] = {}
    with trio.move_on_after(SEARCH_DEADLINE):
        while True:
            resp = await client.post("/v1/search", headers=headers, json={"query": text})
            assert resp.status_code == 200, resp.text
            body = resp.json()
            hits = [r for r in body["results"] if r["sourceId"] == record_id]
            if hits and (not by_vector or hits[0]["metadata"]["similarity"] is not None):
                return body
            await trio.sleep(0.1)
    raise AssertionError(f"{record_id} not found through the other process: {body}")


async def test_search_finds_records_created_through_the_other_process(
    url: str, tmp_path: Path
) -> None:
    made = _cli(url, "init", "--name", "Searched", "--template", "deals")
    headers = {"Authorization": f"Bearer {made['apiKey']}"}
    async with (
        two_workers(url, tmp_path) as bases,
        httpx.AsyncClient(base_url=bases[0], timeout=60) as a,
        httpx.AsyncClient(base_url=bases[1], timeout=60) as b,
    ):
        ids = {}
        for client, name in ((a, "Zanzibar clove shipment"), (b, "Quokka plush toys order")):
            resp = await client.post(
                "/v1/modules/deals/records",
                headers=headers,
                json={"displayName": name, "fields": {"name": name, "stage": "lead"}},
            )
            assert resp.status_code == 201, resp.text
            ids[name] = resp.json()["record"]["recordId"]
        # each process's index follows the activity written through the other one
        found = await _search_until_found(b, headers, "zanzibar", ids["Zanzibar clove shipment"])
        assert found["fallback"] is False
        assert found["results"][0]["title"] == "Zanzibar clove shipment"
        found = await _search_until_found(a, headers, "quokka", ids["Quokka plush toys order"])
        assert found["results"][0]["link"].startswith("/v1/modules/deals/records/")


TOPICS = (
    "Invoice for the quarterly cloud hosting bill",
    "Puppy adoption paperwork from the animal shelter",
    "Replacement brake pads for the delivery van",
    "Catering order of sandwiches for the board meeting",
    "Renewal of the office fire insurance policy",
    "Sponsorship of the local youth football tournament",
)


async def test_each_record_is_embedded_once_and_found_by_meaning_through_either_process(
    url: str, tmp_path: Path
) -> None:
    made = _cli(url, "init", "--name", "Embedded", "--template", "deals")
    account = made["accountId"]
    headers = {"Authorization": f"Bearer {made['apiKey']}"}
    async with (
        two_workers(url, tmp_path, log_level="INFO") as bases,
        httpx.AsyncClient(base_url=bases[0], timeout=60) as a,
        httpx.AsyncClient(base_url=bases[1], timeout=60) as b,
    ):
        ids = {}
        for i, name in enumerate(TOPICS):  # half the records through each process
            resp = await (a if i % 2 else b).post(
                "/v1/modules/deals/records",
                headers=headers,
                json={"displayName": name, "fields": {"name": name, "stage": "lead"}},
            )
            assert resp.status_code == 201, resp.text
            ids[name] = resp.json()["record"]["recordId"]
        # by meaning alone (no word in common): each process has every record's vector
        similarities = []
        for client in (a, b):
            for query, name in (
                ("pet dog rescue", TOPICS[1]),
                ("car repair parts", TOPICS[2]),
                ("lunch food for executives", TOPICS[3]),
            ):
                found = await _search_until_found(client, headers, query, ids[name])
                hit = next(r for r in found["results"] if r["sourceId"] == ids[name])
                assert hit["metadata"]["keywordScore"] is None  # found by its vector
                similarity = hit["metadata"]["similarity"]
                similarities.append((query, similarity, found["results"][0]["sourceId"]))
        # the same answer whichever process is asked
        assert similarities[:3] == similarities[3:]
        # every record (the template's too) has its vector through both processes by now
        for client in (a, b):
            for name in TOPICS:
                await _search_until_found(client, headers, name, ids[name], by_vector=True)
    records = await _fetch(
        url, "SELECT id FROM records WHERE account_id = $1 AND deleted_at IS NULL", account
    )
    # the vectors are rows of the store, made from the one queue (each record claimed once):
    # one vector a record, none waiting, whichever process served its write
    vectors = await _fetch(
        url,
        "SELECT record_id FROM record_vectors WHERE account_id = $1 AND length(vector) > 0",
        account,
    )
    assert sorted(r["record_id"] for r in vectors) == sorted(r["id"] for r in records)
    waiting = await _fetch(url, "SELECT record_id FROM search_queue WHERE account_id = $1", account)
    assert waiting == []


async def test_revocation_and_user_deletion_reach_every_process_at_once(
    url: str, tmp_path: Path
) -> None:
    made = _cli(url, "init", "--name", "Revoked", "--template", "deals")
    account = made["accountId"]
    key = _cli(url, "key", "create", "--workspace", account, "--name", "doomed")
    member = _cli(
        url,
        "user",
        "create",
        "--workspace",
        account,
        "--email",
        "m@example.com",
        "--display-name",
        "Member",
        "--role",
        "member",
    )
    member_key = _cli(url, "key", "create", "--workspace", account, "--user", member["userId"])
    doomed = {"Authorization": f"Bearer {key['apiKey']}"}
    members = {"Authorization": f"Bearer {member_key['apiKey']}"}
    async with (
        two_workers(url, tmp_path) as bases,
        httpx.AsyncClient(base_url=bases[0], timeout=60) as a,
        httpx.AsyncClient(base_url=bases[1], timeout=60) as b,
    ):
        for client in (a, b, a, b):  # each process has checked (and remembers) both keys
            assert (await client.get("/v1/me", headers=doomed)).status_code == 200
            assert (await client.get("/v1/me", headers=members)).status_code == 200
        # changed by a third process (the CLI), not by either server
        _cli(url, "key", "revoke", key["apiKeyId"])
        _cli(url, "user", "delete", "--workspace", account, member["userId"])
        for client in (a, b):
            resp = await client.get("/v1/me", headers=doomed)
            assert resp.status_code == 401, resp.text
            assert resp.json()["error"]["code"] == "unauthorized"
            resp = await client.get("/v1/me", headers=members)
            assert resp.status_code == 401, resp.text
        # the workspace's other key was never affected
        owner = {"Authorization": f"Bearer {made['apiKey']}"}
        for client in (a, b):
            assert (await client.get("/v1/me", headers=owner)).status_code == 200


def _imported(tmp_path: Path, index: int) -> set[str]:
    """The modules worker ``index`` imported, from its log (PYTHONPROFILEIMPORTTIME)."""
    lines = (tmp_path / f"worker{index}.log").read_text().splitlines()
    return {
        line.rsplit("|", 1)[1].strip()
        for line in lines
        if line.startswith("import time:") and "|" in line
    }


async def test_a_worker_that_sends_nothing_out_loads_no_http_client(
    url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # httpx (with rich, pygments and anyio behind it) costs a worker ~18 MB: it is loaded by
    # the first webhook delivery or upstream model call, not by serving records and searches
    monkeypatch.setenv("PYTHONPROFILEIMPORTTIME", "1")  # each import logged to the worker's log
    made = _cli(url, "init", "--name", "Quiet", "--template", "deals")
    headers = {"Authorization": f"Bearer {made['apiKey']}"}
    async with two_workers(url, tmp_path) as bases:
        for base in bases:
            async with httpx.AsyncClient(base_url=base, timeout=60) as client:
                made_deal = await client.post(
                    "/v1/modules/deals/records",
                    headers=headers,
                    json={
                        "displayName": "Quiet deal",
                        "fields": {"name": "Quiet deal", "stage": "lead"},
                    },
                )
                assert made_deal.status_code == 201, made_deal.text
                found = await client.get(
                    "/v1/modules/deals/records", headers=headers, params={"search": "quiet"}
                )
                assert found.status_code == 200, found.text
    for index in range(2):
        loaded = {name.split(".")[0] for name in _imported(tmp_path, index)}
        assert "fieldhouse" in loaded  # the log holds the worker's imports
        assert loaded.isdisjoint({"httpx", "httpcore", "rich", "pygments", "anyio"}), loaded


async def test_a_worker_serving_records_loads_no_web_framework(
    url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Quart (with werkzeug, flask, click, jinja2 and aiofiles behind it) cost a worker ~17 MB
    # for its Response class alone; the request path and the response are Fieldhouse's own.
    # The agents package (~2 MB) is loaded by the first agent request or, in part, by the
    # scheduler of reminders, approvals, emails and posts (worker 0 only)
    monkeypatch.setenv("PYTHONPROFILEIMPORTTIME", "1")  # each import logged to the worker's log
    made = _cli(url, "init", "--name", "Plain", "--template", "contacts")
    headers = {"Authorization": f"Bearer {made['apiKey']}"}
    records = "/v1/modules/contacts/records"
    async with two_workers(url, tmp_path) as bases:
        for base in bases:
            async with httpx.AsyncClient(base_url=base, headers=headers, timeout=60) as client:
                created = await client.post(
                    records,
                    headers={"Idempotency-Key": f"plain-{base}"},
                    json={"displayName": "Plain Person", "fields": {"first-name": "Plain"}},
                )
                assert created.status_code == 201, created.text
                record_id = created.json()["record"]["recordId"]
                changed = await client.patch(
                    f"{records}/{record_id}", json={"fields": {"last-name": "Person"}}
                )
                assert changed.status_code == 200, changed.text
                listed = await client.get(records, params={"pageSize": 5, "search": "plain"})
                assert listed.status_code == 200, listed.text
                assert (await client.head(records)).status_code == 200
                assert (await client.get("/v1/nowhere")).status_code == 404
    for index in range(2):
        modules = _imported(tmp_path, index)
        loaded = {name.split(".")[0] for name in modules}
        assert "fieldhouse.runtime" in modules  # the log holds the worker's imports
        assert loaded.isdisjoint({"quart", "werkzeug", "flask", "jinja2", "aiofiles"}), loaded
        agents = sorted(name for name in modules if name.startswith("fieldhouse.agents"))
        # worker 0 runs the scheduler, without the tools (their argument models)
        assert [name for name in agents if name.startswith("fieldhouse.agents.tools")] == []
        if index:
            assert agents == [], agents


def test_a_worker_whose_pipe_closes_before_its_settings_exits_quietly() -> None:
    """``fieldhouse serve`` starts its first worker before it prepares the store; if serve
    fails (or is stopped) first, the worker meets the end of its stdin: nothing to serve."""
    done = subprocess.run(
        [sys.executable, "-m", "fieldhouse.worker"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
