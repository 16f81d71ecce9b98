"""Record writes and list queries against a real server, with GET /v1/me as the reference.

Run: ``python -m benchmarks.records_load [--duration 8] [--rows 100000]``. Prints markdown:
creates/s at 1 and 32 clients on one workspace and spread over 8 workspaces, and list p50/p99
with a filter and a sort on a module of ``--rows`` records (seeded straight into the SQLite file
with executemany, since pushing 100,000 creates through HTTP would dominate the run).
"""

from __future__ import annotations

import argparse
import json
import random
import sqlite3
import subprocess
import sys
import tempfile
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx

from benchmarks.harness import LoadResult, format_table, run_load
from benchmarks.servers import running_server, total_timeout

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


def _extra_workspaces(data_dir: Path, count: int) -> list[str]:
    keys = []
    for i in range(count):
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "fieldhouse",
                "init",
                "--data-dir",
                str(data_dir),
                "--name",
                f"Bench {i}",
                "--template",
                "deals",
            ],
            capture_output=True,
            check=True,
            timeout=60,
        )
        keys.append(json.loads(done.stdout.decode().splitlines()[-1])["apiKey"])
    return keys


def seed(db: Path, account_id: str, rows: int) -> None:
    """Insert `rows` deals directly (same shape the API writes)."""
    conn = sqlite3.connect(db, timeout=60)
    module_id = conn.execute(
        "SELECT id FROM modules WHERE account_id = ? AND slug = 'deals'", (account_id,)
    ).fetchone()[0]
    rng = random.Random(7)
    start = datetime(2026, 1, 1, tzinfo=UTC)
    batch = []
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
    with conn:
        conn.executemany(
            "INSERT INTO records (id, account_id, module_id, display_name, fields, created_at,"
            " updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            batch,
        )
    conn.close()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--duration", type=float, default=8.0)
    parser.add_argument("--rows", type=int, default=100_000)
    args = parser.parse_args()
    rows: list[dict[str, object]] = []
    failed = False
    with total_timeout(600), tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp)
        with running_server(data) as server:
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
            keys = _extra_workspaces(data, 8)

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
            seed(data / "fieldhouse.sqlite3", server.account_id, args.rows)
            query = "filter[stage]=won&sortField=amount&sortDirection=desc&pageSize=25&page=3"
            for clients in (1, 32):
                res = run_load(
                    f"{base}/v1/modules/deals/records?{query}",
                    concurrency=clients,
                    duration=args.duration,
                    headers=headers,
                )
                rows.append(
                    _row(f"GET list ({args.rows:,} rows, filter+sort)", clients, res, me.rps)
                )
                failed |= res.errors > 0
    print(format_table(rows))
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
