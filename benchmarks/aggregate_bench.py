"""Aggregates of 100,000 deals on SQLite, through the app in-process.

    .venv/bin/python -m benchmarks.aggregate_bench [--records 100000] [--requests 200]
        [--database-url postgresql://postgres@127.0.0.1:5432/test]

Seeds one workspace's deals in bulk through the store's write transactions (a stage, an
amount with cents, a probability, a close date and an owner each), then sends ``--requests``
``GET /v1/modules/deals/aggregate`` requests through the ASGI app (httpx, no socket), cycling
through a few shapes (by stage with sums and averages, by close-date month, by owner, by week
under a stage filter), and prints, in milliseconds, each shape's first answer (computed: a scan
of the module's JSON) and the p50 and p99 of the rest (kept answers: nothing was written in
between; see ``fieldhouse.storage.aggregate``), and of all of them.
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

import httpx
import trio

from fieldhouse.actors.bootstrap import init_workspace
from fieldhouse.config import Settings
from fieldhouse.model.records import RecordRow
from fieldhouse.runtime import open_runtime

AT = "2026-01-01T00:00:00.000000Z"
BATCH = 2000
SHAPES: tuple[dict[str, str], ...] = (
    {"groupBy": "stage", "metrics": "count,sum:amount,avg:amount"},
    {"groupBy": "close-date:month", "metrics": "count,sum:amount"},
    {"groupBy": "owner", "metrics": "count,max:probability"},
    {"groupBy": "close-date:week", "metrics": "count", "filter[stage]": "won"},
)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    p.add_argument("--records", type=int, default=100_000)
    p.add_argument("--requests", type=int, default=200)
    p.add_argument("--database-url", default=None)
    return p.parse_args(argv)


def _pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def run(args: argparse.Namespace, data_dir: Path) -> None:
    settings = Settings(data_dir=data_dir, rate_limit=1_000_000, port=0, embedding_process=False)
    if args.database_url:
        settings = Settings(
            data_dir=data_dir,
            rate_limit=1_000_000,
            port=0,
            embedding_process=False,
            database_url=args.database_url,
        )
    async with open_runtime(settings) as rt:
        made, key = await init_workspace(rt.actors, "Bench", None)
        account, owner = made.account_id, made.user_id
        _, schemas = await rt.store.load_schemas(account)
        module_id = schemas["deals"].module.module_id
        rng = random.Random(37)
        started = time.perf_counter()
        for start in range(0, args.records, BATCH):
            async with rt.store.write(account) as txn:
                for n in range(start, min(args.records, start + BATCH)):
                    day = f"2024-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
                    fields = {
                        "name": f"deal {n}",
                        "stage": rng.choice(["lead", "proposal", "won", "lost"]),
                        "amount": {"amount": rng.randint(0, 10_000_00) / 100, "currency": "USD"},
                        "probability": rng.randint(0, 100),
                        "close-date": day,
                        "owner": {
                            "userId": owner,
                            "displayName": "Owner",
                            "email": None,
                            "avatar": None,
                        },
                    }
                    rid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
                    row = RecordRow(
                        rid, account, module_id, f"deal {n}", fields, AT, AT, None, None
                    )
                    await txn.insert_record(row)
        print(f"seeded {args.records} deals in {time.perf_counter() - started:.1f} s")
        transport = httpx.ASGITransport(app=rt.app)  # type: ignore[arg-type]
        headers = {"Authorization": f"Bearer {key.api_key}"}
        times: dict[int, list[float]] = {i: [] for i in range(len(SHAPES))}
        async with httpx.AsyncClient(transport=transport, base_url="http://bench") as client:
            first: list[float] = []
            for i in range(len(SHAPES)):  # the first of each is computed; the rest are kept
                t0 = time.perf_counter()
                resp = await client.get(
                    "/v1/modules/deals/aggregate", params=SHAPES[i], headers=headers
                )
                first.append((time.perf_counter() - t0) * 1000)
                assert resp.status_code == 200, resp.text
            for n in range(args.requests):
                shape = n % len(SHAPES)
                t0 = time.perf_counter()
                resp = await client.get(
                    "/v1/modules/deals/aggregate", params=SHAPES[shape], headers=headers
                )
                times[shape].append((time.perf_counter() - t0) * 1000)
                assert resp.status_code == 200, resp.text
        everything = [t for ts in times.values() for t in ts]
        engine = "postgres" if args.database_url else "sqlite"
        print(f"{engine}, {args.records} deals, {args.requests} requests")
        for i, shape in enumerate(SHAPES):
            ts = times[i]
            print(
                f"  {shape}: computed {first[i]:.0f} ms;"
                f" then p50 {statistics.median(ts):.1f} ms, p99 {_pct(ts, 0.99):.1f} ms"
            )
        print(
            f"all: p50 {statistics.median(everything):.1f} ms, p99 {_pct(everything, 0.99):.1f} ms"
        )


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        trio.run(run, args, Path(tmp) / "data")


if __name__ == "__main__":
    main()
