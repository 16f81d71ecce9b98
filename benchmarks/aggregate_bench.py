"""Aggregates of 100,000 deals, through the app in-process: fresh answers and kept ones.

    .venv/bin/python -m benchmarks.aggregate_bench [--records 100000] [--requests 200]
        [--fresh 40] [--database-url postgresql://postgres@127.0.0.1:5432/test]

Seeds one workspace's deals in bulk through the store's write transactions (a stage, an
amount with cents, a probability, a close date and an owner each), then sends
``GET /v1/modules/deals/aggregate`` requests through the ASGI app (httpx, no socket), cycling
through a few shapes (by stage with sums and averages, by close-date month, by owner, by week
under a stage filter), in two rounds, and prints each shape's p50 and p99 in milliseconds:

- fresh: ``--fresh`` requests, each right after a deal is created through the workspace actor
  (what a dashboard sees while records are written: nothing read before the write can answer);
- kept: ``--requests`` requests with nothing written in between (answers the store kept; see
  ``fieldhouse.storage.aggregate``).

Every shape is asked once before either round (its first answer is printed apart: it may
register what keeps the shape's aggregates).
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx
import trio

from benchmarks.records_load import fresh_postgres
from fieldhouse.actors.bootstrap import init_workspace
from fieldhouse.actors.record_ops import CreateRecord
from fieldhouse.config import Settings
from fieldhouse.model.principal import SystemActor
from fieldhouse.model.records import RecordRow
from fieldhouse.runtime import Runtime, open_runtime

AT = "2026-01-01T00:00:00.000000Z"
BATCH = 2000
SHAPES: tuple[dict[str, str], ...] = (
    {"groupBy": "stage", "metrics": "count,sum:amount,avg:amount"},
    {"groupBy": "close-date:month", "metrics": "count,sum:amount"},
    {"groupBy": "owner", "metrics": "count,max:probability"},
    {"groupBy": "close-date:week", "metrics": "count", "filter[stage]": "won"},
)
PATH = "/v1/modules/deals/aggregate"


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    p.add_argument("--records", type=int, default=100_000)
    p.add_argument("--requests", type=int, default=200)
    p.add_argument("--fresh", type=int, default=40)
    p.add_argument("--database-url", default=None)
    return p.parse_args(argv)


def _pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def deal(rng: random.Random, n: int, owner: str) -> dict[str, Any]:
    """A deal's field values."""
    return {
        "name": f"deal {n}",
        "stage": rng.choice(["lead", "proposal", "won", "lost"]),
        "amount": {"amount": rng.randint(0, 10_000_00) / 100, "currency": "USD"},
        "probability": rng.randint(0, 100),
        "close-date": f"2024-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
        "owner": {"userId": owner, "displayName": "Owner", "email": None, "avatar": None},
    }


async def seed(rt: Runtime, account: str, module_id: str, owner: str, records: int) -> None:
    rng = random.Random(37)
    for start in range(0, records, BATCH):
        async with rt.store.write(account) as txn:
            for n in range(start, min(records, start + BATCH)):
                rid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
                fields = deal(rng, n, owner)
                row = RecordRow(rid, account, module_id, f"deal {n}", fields, AT, AT, None, None)
                await txn.insert_record(row)


def report(title: str, times: dict[int, list[float]]) -> None:
    print(f" {title}:")
    for i, shape in enumerate(SHAPES):
        ts = times[i]
        print(f"  {shape}: p50 {statistics.median(ts):.1f} ms, p99 {_pct(ts, 0.99):.1f} ms")
    every = [t for ts in times.values() for t in ts]
    print(f"  all: p50 {statistics.median(every):.1f} ms, p99 {_pct(every, 0.99):.1f} ms")


async def run(args: argparse.Namespace, data_dir: Path) -> None:
    settings = Settings(data_dir=data_dir, rate_limit=1_000_000, port=0, embedding_process=False)
    if args.database_url:
        settings = settings.with_overrides(database_url=args.database_url)
    async with open_runtime(settings) as rt:
        made, key = await init_workspace(rt.actors, "Bench", None)
        account, owner = made.account_id, made.user_id
        _, schemas = await rt.store.load_schemas(account)
        module_id = schemas["deals"].module.module_id
        started = time.perf_counter()
        await seed(rt, account, module_id, owner, args.records)
        print(f"seeded {args.records} deals in {time.perf_counter() - started:.1f} s")
        transport = httpx.ASGITransport(app=rt.app)  # type: ignore[arg-type]
        headers = {"Authorization": f"Bearer {key.api_key}"}
        rng = random.Random(38)

        async with httpx.AsyncClient(transport=transport, base_url="http://bench") as client:

            async def ask(shape: int) -> float:
                t0 = time.perf_counter()
                resp = await client.get(PATH, params=SHAPES[shape], headers=headers)
                assert resp.status_code == 200, resp.text
                return (time.perf_counter() - t0) * 1000

            first = [await ask(i) for i in range(len(SHAPES))]
            fresh: dict[int, list[float]] = {i: [] for i in range(len(SHAPES))}
            for n in range(args.fresh):
                fields = deal(rng, args.records + n, owner)
                await rt.actors.ask(
                    CreateRecord(module_id, "new", fields, None, by=SystemActor(account, "bench"))
                )
                fresh[n % len(SHAPES)].append(await ask(n % len(SHAPES)))
            kept: dict[int, list[float]] = {i: [] for i in range(len(SHAPES))}
            for n in range(args.requests):
                kept[n % len(SHAPES)].append(await ask(n % len(SHAPES)))
        engine = "postgres" if args.database_url else "sqlite"
        print(f"{engine}, {args.records} deals")
        print(" first answers: " + ", ".join(f"{t:.0f} ms" for t in first))
        report(f"fresh (a create before each; {args.fresh} requests)", fresh)
        report(f"kept (nothing written in between; {args.requests} requests)", kept)


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        if args.database_url is None:
            trio.run(run, args, Path(tmp) / "data")
            return
        with fresh_postgres(args.database_url) as url:  # a database of its own, dropped after
            args.database_url = url
            trio.run(run, args, Path(tmp) / "data")


if __name__ == "__main__":
    main()
