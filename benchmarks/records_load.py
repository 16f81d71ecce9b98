"""Record writes and list queries against a real server, with GET /v1/me as the reference.

Run: ``python -m benchmarks.records_load [--duration 8] [--rows 100000]
[--database-url postgresql://user@host/db]``. Prints markdown: creates/s at 1 and 32 clients
on one workspace and spread over 8 workspaces, and list p50/p99 with a filter and a sort on a
module of ``--rows`` records (seeded straight into the database, since pushing 100,000 creates
through HTTP would dominate the run: executemany into the SQLite file, or COPY into
PostgreSQL). With ``--database-url`` the server runs on a fresh PostgreSQL database
(``fh_bench_<random>``, created through that URL's server and dropped afterwards).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import secrets
import sqlite3
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import urlsplit

import asyncpg
import httpx

from benchmarks.harness import LoadResult, format_table, run_load
from benchmarks.servers import init_workspace, running_server, total_timeout

STAGES = ("lead", "qualified", "proposal", "negotiation", "won", "lost")


def _row(
    label: str, clients: int, result: LoadResult, reference: float | None
) -> dict[str, object]:
    return {
        "measure": label,
        "clients": clients,
        "requests": result.requests,
        "req/s": round(result.rps, 1),
        "p50 ms": round(result.p50_ms, 2),
        "p99 ms": round(result.p99_ms, 2),
        "errors": result.errors,
        "vs GET /v1/me": f"{result.rps / reference:.2f}" if reference else "1.00",
    }


def _deal_body(seq: int) -> bytes:
    return json.dumps(
        {
            "displayName": f"Deal {seq}",
            "fields": {
                "name": f"Deal {seq}",
                "stage": STAGES[seq % len(STAGES)],
                "amount": {"amount": seq % 50_000, "currency": "USD"},
                "probability": seq % 100,
            },
        }
    ).encode()


def _extra_workspaces(data_dir: Path, count: int, env: dict[str, str]) -> list[str]:
    keys = []
    for i in range(count):
        made = init_workspace(data_dir, {**os.environ, **env}, f"Bench {i}", "--template", "deals")
        keys.append(made["apiKey"])
    return keys


COLUMNS = ("id", "account_id", "module_id", "display_name", "fields", "created_at", "updated_at")


def _seed_rows(account_id: str, module_id: str, rows: int) -> list[tuple[str, ...]]:
    """`rows` deals in the shape the API writes (the same on both backends)."""
    rng = random.Random(7)
    start = datetime(2026, 1, 1, tzinfo=UTC)
    batch: list[tuple[str, ...]] = []
    for i in range(rows):
        at = (start + timedelta(seconds=i)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        fields = {
            "name": f"Seeded deal {i}",
            "stage": rng.choice(STAGES),
            "amount": {"amount": rng.randint(0, 100_000), "currency": "USD"},
            "probability": rng.randint(0, 100),
            "deal-number": f"SEED-{i:06d}",
        }
        batch.append(
            (
                str(uuid.uuid4()),
                account_id,
                module_id,
                f"Seeded deal {i}",
                json.dumps(fields),
                at,
                at,
            )
        )
    return batch


def seed(db: Path, account_id: str, rows: int) -> None:
    """Insert `rows` deals into the SQLite file with executemany."""
    conn = sqlite3.connect(db, timeout=60)
    module_id = conn.execute(
        "SELECT id FROM modules WHERE account_id = ? AND slug = 'deals'", (account_id,)
    ).fetchone()[0]
    with conn:
        conn.executemany(
            f"INSERT INTO records ({', '.join(COLUMNS)}) VALUES (?, ?, ?, ?, ?, ?, ?)",
            _seed_rows(account_id, module_id, rows),
        )
    conn.close()


def seed_postgres(url: str, account_id: str, rows: int) -> None:
    """COPY `rows` deals into PostgreSQL, then ANALYZE (as autovacuum soon would)."""

    async def run() -> None:
        conn = await asyncpg.connect(url, timeout=30)
        try:
            module_id = await conn.fetchval(
                "SELECT id FROM modules WHERE account_id = $1 AND slug = 'deals'", account_id
            )
            await conn.copy_records_to_table(
                "records", records=_seed_rows(account_id, module_id, rows), columns=COLUMNS
            )
            await conn.execute("ANALYZE records")
        finally:
            await conn.close()

    asyncio.run(run())


async def _admin(url: str, sql: str) -> None:
    conn = await asyncpg.connect(url, timeout=30)
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


@contextmanager
def fresh_postgres(admin_url: str) -> Iterator[str]:
    """A new empty database on the server of ``admin_url``, dropped on exit; yields its URL
    (the server migrates it on first use)."""
    name = f"fh_bench_{secrets.token_hex(4)}"
    asyncio.run(_admin(admin_url, f"CREATE DATABASE {name}"))
    try:
        yield urlsplit(admin_url)._replace(path=f"/{name}").geturl()
    finally:
        asyncio.run(_admin(admin_url, f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"))


@contextmanager
def database(url: str | None) -> Iterator[dict[str, str]]:
    """The environment that points the server at the database: SQLite under the data
    directory when ``url`` is None, else a fresh PostgreSQL database."""
    if url is None:
        yield {}
        return
    with fresh_postgres(url) as fresh:
        yield {"FIELDHOUSE_DATABASE_URL": fresh}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--duration", type=float, default=8.0)
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--list-warmup", type=float, default=8.0)
    parser.add_argument(
        "--database-url",
        default=None,
        help="a PostgreSQL server (URL of a database to connect to) to run on instead of SQLite",
    )
    args = parser.parse_args()
    rows: list[dict[str, object]] = []
    failed = False
    with (
        total_timeout(600),
        tempfile.TemporaryDirectory() as tmp,
        database(args.database_url) as env,
    ):
        data = Path(tmp)
        with running_server(data, extra_env=env) as server:
            base, headers = server.base_url, {"Authorization": f"Bearer {server.api_key}"}
            me = run_load(f"{base}/v1/me", concurrency=32, duration=args.duration, headers=headers)
            rows.append(_row("GET /v1/me", 32, me, None))
            post = {**headers, "Content-Type": "application/json"}
            for clients in (1, 32):
                res = run_load(
                    f"{base}/v1/modules/deals/records",
                    concurrency=clients,
                    duration=args.duration,
                    headers=post,
                    method="POST",
                    body_factory=_deal_body,
                )
                rows.append(_row("POST record, 1 workspace", clients, res, me.rps))
                failed |= res.errors > 0
            keys = _extra_workspaces(data, 8, env)

            def spread(client: httpx.AsyncClient, seq: int) -> httpx.Request:
                key = keys[seq % len(keys)]
                return client.build_request(
                    "POST",
                    f"{base}/v1/modules/deals/records",
                    content=_deal_body(seq),
                    headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"},
                )

            for clients in (1, 32):
                res = run_load(spread, concurrency=clients, duration=args.duration)
                rows.append(_row("POST record, 8 workspaces", clients, res, me.rps))
                failed |= res.errors > 0
            if env:
                seed_postgres(env["FIELDHOUSE_DATABASE_URL"], server.account_id, args.rows)
            else:
                seed(data / "fieldhouse.sqlite3", server.account_id, args.rows)
            query = "filter[stage]=won&sortField=amount&sortDirection=desc&pageSize=25&page=3"
            for clients in (1, 32):
                res = run_load(
                    f"{base}/v1/modules/deals/records?{query}",
                    concurrency=clients,
                    duration=args.duration,
                    headers=headers,
                    # the first slow lists make the store build its expression indexes
                    # (CONCURRENTLY on PostgreSQL); measure the steady state after that
                    warmup=args.list_warmup,
                )
                rows.append(
                    _row(f"GET list ({args.rows:,} rows, filter+sort)", clients, res, me.rps)
                )
                failed |= res.errors > 0
    backend = "PostgreSQL" if args.database_url else "SQLite"
    print(f"Backend: {backend}; search {os.environ.get('FIELDHOUSE_SEARCH') or 'on'}\n")
    print(format_table(rows))
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
