"""One page of markdown: Fieldhouse under 1, 32 and 256 concurrent clients on SQLite and on
PostgreSQL, with this machine's hello-world baseline measured in the same run.

    python -m benchmarks.report [--quick] [--duration 4] [--database-url postgresql://...]

Per backend, one `fieldhouse serve` subprocess (search on, keyword-only embedder so that
indexing does not compete for the CPU with the measurement) on a workspace with 100,000 deals
seeded straight into the database (``records_load``'s seeding: executemany into the SQLite
file, COPY into PostgreSQL), then at each concurrency: creates/s (POST record), reads/s (GET
record by id), list p50/p99 (filter + sort on the 100,000), search p99 (POST /v1/search) and
the agent stream's first-token latency (offline provider). PostgreSQL runs on a fresh
database ``fh_report_<random>`` created through ``--database-url``'s server and dropped at the
end. The baseline is ``benchmarks/baseline_app.py`` under ``hypercorn -k trio``; "vs baseline"
is each row's req/s over the baseline's at the same concurrency.

Bounded by a total watchdog (servers killed, exit 3). The default run takes about 3-4 minutes on
2 cores; ``--quick`` (2 s cells, 20,000 rows) under 2.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import secrets
import sqlite3
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from urllib.parse import urlsplit

import asyncpg
import httpx
import trio

from benchmarks.agents_bench import MESSAGES
from benchmarks.harness import (
    BodyFactory,
    LoadResult,
    RequestFactory,
    format_table,
    run_load_async,
    shared_ssl_context,
)
from benchmarks.http_load import start_baseline
from benchmarks.records_load import _admin, _deal_body, seed, seed_postgres
from benchmarks.search_bench import WORDS
from benchmarks.servers import (
    ServerProcess,
    machine_busy_seconds,
    running_server,
    total_timeout,
)

LEVELS = (1, 32, 256)
DEFAULT_ADMIN_URL = "postgresql://postgres@127.0.0.1:5432/test"
LIST_QUERY = "filter[stage]=won&sortField=amount&sortDirection=desc&pageSize=25&page=3"
STREAM_URL = "/v1/agents/messages?stream=true"
#: the generator's per-request timeout; slower answers count as errors (ReadTimeout)
REQUEST_TIMEOUT = 15.0
SEARCH_TERMS = [w for w in WORDS[20:400] if w.isalpha()]


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.report", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="2 s cells, 20,000 rows")
    parser.add_argument("--duration", type=float, default=None, help="seconds per cell")
    parser.add_argument("--rows", type=int, default=None, help="seeded deals (100,000)")
    parser.add_argument(
        "--database-url",
        default=os.environ.get("FIELDHOUSE_TEST_DATABASE_URL") or DEFAULT_ADMIN_URL,
        help="a PostgreSQL database to connect to in order to create the fresh one",
    )
    parser.add_argument("--no-postgres", action="store_true", help="SQLite only")
    args = parser.parse_args(argv)
    args.duration = args.duration or (2.0 if args.quick else 4.0)
    args.warmup = 0.5 if args.quick else 1.0
    args.rows = args.rows or (20_000 if args.quick else 100_000)
    return args


# --- measurements --------------------------------------------------------------------------


@dataclass
class Cell:
    measure: str
    backend: str
    clients: int
    result: LoadResult
    #: CPU per wall second of everything on the machine but the server and the generator
    other_cpu: float | None


def fivexx(result: LoadResult) -> int:
    return sum(n for k, n in result.statuses.items() if k.isdigit() and int(k) >= 500)


def client_errors(result: LoadResult) -> str:
    """Answers 3xx/4xx, and transport errors by name (timeouts, resets), with counts."""
    bad = {k: n for k, n in result.statuses.items() if not k.isdigit() or 300 <= int(k) < 500}
    return ", ".join(f"{k}: {n}" for k, n in sorted(bad.items())) or "0"


Snapshot = tuple[float | None, float, float | None]


def _snapshot(server: ServerProcess) -> Snapshot:
    return server.cpu_seconds(), time.process_time(), machine_busy_seconds()


def other_cpu(server: ServerProcess, before: Snapshot, wall: float) -> float | None:
    """The other processes' CPU share over a cell (machine busy - server - generator)."""
    (cpu0, own0, all0), (cpu1, own1, all1) = before, _snapshot(server)
    if cpu0 is None or cpu1 is None or all0 is None or all1 is None:
        return None
    return max(0.0, (all1 - all0 - (cpu1 - cpu0) - (own1 - own0)) / wall)


def load_cell(
    server: ServerProcess,
    args: argparse.Namespace,
    measure: str,
    backend: str,
    clients: int,
    target: str | RequestFactory,
    *,
    headers: dict[str, str] | None = None,
    method: str = "GET",
    body_factory: BodyFactory | None = None,
) -> Cell:
    print(f"  {backend} {measure} x{clients} ...", file=sys.stderr, flush=True)
    before, wall0 = _snapshot(server), time.perf_counter()
    load = partial(
        run_load_async,
        target,
        concurrency=clients,
        duration=args.duration,
        warmup=args.warmup,
        headers=headers,
        method=method,
        body_factory=body_factory,
        request_timeout=REQUEST_TIMEOUT,
    )
    result = trio.run(load)
    return Cell(
        measure, backend, clients, result, other_cpu(server, before, time.perf_counter() - wall0)
    )


async def _stream_load(
    base: str, key: str, clients: int, duration: float, warmup: float
) -> LoadResult:
    """Closed loop of agent streams. A stream counts when it ends inside the measured window
    (they can take longer than the window at 256 clients); its first-token latency (request
    start to the first ``token`` event) counts when that token arrives inside the window.
    Streams still open at the end of the window are cut."""
    latencies: list[float] = []
    statuses: Counter[str] = Counter()
    errors = in_window = 0
    headers = {"Authorization": f"Bearer {key}"}

    async def worker(index: int) -> None:
        nonlocal errors, in_window
        limits = httpx.Limits(max_connections=1, max_keepalive_connections=1)
        async with httpx.AsyncClient(
            base_url=base,
            headers=headers,
            limits=limits,
            timeout=httpx.Timeout(REQUEST_TIMEOUT),
            verify=shared_ssl_context(),
        ) as client:
            seq = index
            while True:
                started = time.perf_counter()
                message = MESSAGES[seq % len(MESSAGES)].format(i=f"r{seq}")
                seq += clients
                first = 0.0
                try:
                    async with client.stream("POST", STREAM_URL, json={"message": message}) as res:
                        status, ok = str(res.status_code), res.is_success
                        async for line in res.aiter_lines():
                            if not first and line == "event: token":
                                first = time.perf_counter()
                                if measure_from <= first:
                                    latencies.append((first - started) * 1000.0)
                            elif line == "event: error":
                                status, ok = "error event", False
                except httpx.HTTPError as exc:
                    status, ok = type(exc).__name__, False
                if time.perf_counter() >= measure_from:
                    statuses[status] += 1
                    errors += not ok
                    in_window += 1

    measure_from = time.perf_counter() + warmup
    cpu0 = time.process_time()
    with trio.move_on_after(warmup + duration):
        async with trio.open_nursery() as nursery:
            for index in range(clients):
                nursery.start_soon(worker, index)
    cpu = (time.process_time() - cpu0) / (warmup + duration)
    return LoadResult(in_window, errors, dict(statuses), duration, in_window, latencies, cpu)


def stream_cell(
    server: ServerProcess, args: argparse.Namespace, backend: str, clients: int
) -> Cell:
    print(f"  {backend} agent stream x{clients} ...", file=sys.stderr, flush=True)
    before, wall0 = _snapshot(server), time.perf_counter()
    result = trio.run(
        _stream_load, server.base_url, server.api_key, clients, args.duration, args.warmup
    )
    other = other_cpu(server, before, time.perf_counter() - wall0)
    return Cell("agent stream (first token)", backend, clients, result, other)


# --- databases -----------------------------------------------------------------------------


@contextmanager
def fresh_postgres(admin_url: str) -> Iterator[str]:
    name = f"fh_report_{secrets.token_hex(4)}"
    asyncio.run(_admin(admin_url, f"CREATE DATABASE {name}"))
    try:
        yield urlsplit(admin_url)._replace(path=f"/{name}").geturl()
    finally:
        asyncio.run(_admin(admin_url, f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"))


def record_ids(server_env: dict[str, str], data: Path, account: str) -> list[str]:
    sql = "SELECT id FROM records WHERE account_id = {} ORDER BY random() LIMIT 2000"
    url = server_env.get("FIELDHOUSE_DATABASE_URL")
    if url is None:
        with sqlite3.connect(data / "fieldhouse.sqlite3") as conn:
            return [r[0] for r in conn.execute(sql.format("?"), (account,))]

    async def fetch() -> list[str]:
        conn = await asyncpg.connect(url, timeout=30)
        try:
            return [r["id"] for r in await conn.fetch(sql.format("$1"), account)]
        finally:
            await conn.close()

    return asyncio.run(fetch())


# --- one backend ---------------------------------------------------------------------------


def run_backend(
    args: argparse.Namespace, backend: str, env: dict[str, str], work: Path
) -> tuple[list[Cell], str]:
    data = work / backend
    server_env = {
        **env,
        "FIELDHOUSE_EMBEDDER": "none",
        "FIELDHOUSE_LOG_LEVEL": "WARNING",
        "FIELDHOUSE_AGENT_PROVIDER": "offline",
    }
    cells: list[Cell] = []
    print(f"{backend}:", file=sys.stderr, flush=True)
    with running_server(data, extra_env=server_env) as server:
        base = server.base_url
        auth = {"Authorization": f"Bearer {server.api_key}"}
        post = {**auth, "Content-Type": "application/json"}
        print(f"  seeding {args.rows:,} deals ...", file=sys.stderr, flush=True)
        if "FIELDHOUSE_DATABASE_URL" in env:
            seed_postgres(env["FIELDHOUSE_DATABASE_URL"], server.account_id, args.rows)
        else:
            seed(data / "fieldhouse.sqlite3", server.account_id, args.rows)
        ids = record_ids(env, data, server.account_id)
        rng = random.Random(3)
        with httpx.Client(base_url=base, headers=auth, timeout=60) as client:
            for _ in range(3):  # the first list queries may add their expression index
                client.get(f"/v1/modules/deals/records?{LIST_QUERY}").raise_for_status()

        def read(client: httpx.AsyncClient, seq: int) -> httpx.Request:
            return client.build_request("GET", f"{base}/v1/modules/deals/records/{ids[seq % 2000]}")

        def search(client: httpx.AsyncClient, seq: int) -> httpx.Request:
            words = rng.sample(SEARCH_TERMS, 2)
            body = json.dumps({"query": " ".join(words), "limit": 10}).encode()
            return client.build_request("POST", f"{base}/v1/search", content=body, headers=post)

        for clients in LEVELS:
            cells.append(
                load_cell(
                    server,
                    args,
                    "create (POST record)",
                    backend,
                    clients,
                    f"{base}/v1/modules/deals/records",
                    headers=post,
                    method="POST",
                    body_factory=_deal_body,
                )
            )
        for clients in LEVELS:
            cells.append(
                load_cell(server, args, "read (GET record)", backend, clients, read, headers=auth)
            )
        for clients in LEVELS:
            cells.append(
                load_cell(
                    server,
                    args,
                    f"list {args.rows // 1000}k (filter+sort)",
                    backend,
                    clients,
                    f"{base}/v1/modules/deals/records?{LIST_QUERY}",
                    headers=auth,
                )
            )
        with httpx.Client(base_url=base, headers=post, timeout=60) as client:
            probe = client.post("/v1/search", json={"query": "deal", "limit": 10}).json()
        index_note = (
            f"fallback={str(probe.get('fallback')).lower()}, total for 'deal'={probe.get('total')}"
        )
        for clients in LEVELS:
            cells.append(load_cell(server, args, "search", backend, clients, search, headers=auth))
        for clients in LEVELS:
            cells.append(stream_cell(server, args, backend, clients))
    return cells, index_note


# --- output --------------------------------------------------------------------------------


def row(cell: Cell, baseline: dict[int, LoadResult]) -> dict[str, object]:
    result = cell.result
    base_rps = baseline[cell.clients].rps if cell.clients in baseline else 0.0
    other = "n/a" if cell.other_cpu is None else f"{cell.other_cpu * 100:.0f}%"
    return {
        "measure": cell.measure,
        "backend": cell.backend,
        "clients": cell.clients,
        "req/s": round(result.rps, 1),
        "p50 ms": f"{result.p50_ms:.1f}" if result.latencies_ms else "-",
        "p99 ms": f"{result.p99_ms:.1f}" if result.latencies_ms else "-",
        "5xx": fivexx(result),
        "other errors": client_errors(result),
        "vs baseline": f"{result.rps / base_rps:.3f}" if base_rps else "n/a",
        "gen CPU": f"{result.client_cpu * 100:.0f}%",
        "other CPU": other,
    }


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    started = time.monotonic()
    guard = 360.0 if args.quick else 900.0
    cells: list[Cell] = []
    notes: dict[str, str] = {}
    baseline: dict[int, LoadResult] = {}
    with total_timeout(guard), tempfile.TemporaryDirectory(prefix="fh-report-") as tmp:
        work = Path(tmp)
        print("baseline (hypercorn -k trio, raw ASGI):", file=sys.stderr, flush=True)
        with start_baseline(work) as base:
            for clients in LEVELS:
                cell = load_cell(
                    base, args, "baseline GET / (hello world)", "-", clients, base.base_url + "/"
                )
                baseline[clients] = cell.result
                cells.append(cell)
        found, notes["SQLite"] = run_backend(args, "SQLite", {}, work)
        cells += found
        if not args.no_postgres:
            with fresh_postgres(args.database_url) as url:
                env = {"FIELDHOUSE_DATABASE_URL": url}
                found, notes["PostgreSQL"] = run_backend(args, "PostgreSQL", env, work)
                cells += found
    total = time.monotonic() - started
    print(f"# Fieldhouse benchmark report{' (quick)' if args.quick else ''}\n")
    print(
        f"{time.strftime('%Y-%m-%d %H:%M')}, {os.cpu_count()} cores; server and load generator "
        f"share the machine. Closed loop, one keep-alive connection per client (httpx on trio); "
        f"{args.duration:g} s measured per cell after {args.warmup:g} s warm-up; "
        f"{args.rows:,} deals seeded straight into the database.\n"
    )
    print(format_table([row(c, baseline) for c in cells]))
    print()
    print(
        "- req/s: answers completed in the window (agent stream: whole streams ending in it); "
        "p50/p99: whole request, except agent stream = request start to the first `token` "
        "event.\n"
        "- 5xx: server errors (503 = workspace busy, with Retry-After); other errors: 4xx and "
        f"generator-side transport errors (ReadTimeout = no answer within {REQUEST_TIMEOUT:g} s); "
        "an `error event` is a stream that ended with `event: error`.\n"
        "- vs baseline: req/s over the hello-world app's at the same concurrency (same run).\n"
        "- gen CPU: the load generator's CPU (100% = one core); other CPU: the rest of the "
        "machine during the cell (high values skew the row).\n"
        "- create: deals with 4 fields; read: GET by id among 2,000 seeded ids; list: "
        f"`{LIST_QUERY}`; search: two random common words, limit 10; agent stream: offline "
        "provider, five message kinds (create contact, reminder, find deals, e-mail draft, help)."
    )
    for backend, note in notes.items():
        print(
            f"- search index ({backend}): keyword-only (FIELDHOUSE_EMBEDDER=none); it holds the "
            f"records created through the API in this run, not the seeded rows (written behind "
            f"the server's back, so never published to the indexer); probe: {note}."
        )
    print(f"- Total {total:.0f} s; PostgreSQL database fh_report_* created and dropped.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
