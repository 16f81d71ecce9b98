"""Reading records back by id, as the search indexer and bulk operations do, at workspace size.

    .venv/bin/python -m benchmarks.lookups [--sizes 1000 10000 100000] [--ids 14 256]
        [--database-url postgresql://postgres@127.0.0.1:5432/test]

Seeds one workspace of N records through the store (SQLite in a temporary folder by default),
then times ``Store.get_records`` for lists of random ids (the indexer reads each batch of
changed records back this way) and a walk over every record with ``Store.records_after``
(a search index's sync), and prints one markdown row per size. Figures are medians of
repeated runs; only runs on the same machine in the same hour compare.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from collections.abc import Sequence

import trio

from fieldhouse.model.records import RecordRow
from fieldhouse.model.schema import ModuleDef
from fieldhouse.storage import Store, open_database

ACCOUNT, MODULE = "bench-account", "bench-module"
AT = "2026-01-01T00:00:00.000000Z"
BATCH = 1000
REPEAT = 30


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    p.add_argument("--sizes", type=int, nargs="+", default=[1000, 10_000, 100_000])
    p.add_argument("--ids", type=int, nargs="+", default=[14, 256])
    p.add_argument("--database-url", default=None)
    return p.parse_args(argv)


async def seed(store: Store, have: int, size: int) -> None:
    for start in range(have, size, BATCH):
        async with store.write(ACCOUNT) as txn:
            for n in range(start, min(size, start + BATCH)):
                rid = f"rec-{n:08d}"
                fields = {"name": f"deal {n}", "stage": random.choice(["lead", "won", "lost"])}
                row = RecordRow(rid, ACCOUNT, MODULE, f"deal {n}", fields, AT, AT, None, None)
                await txn.insert_record(row)


async def timed(fn: object, repeat: int) -> float:
    """Median milliseconds of ``repeat`` awaits of ``fn()``."""
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        await fn()  # type: ignore[operator]
        runs.append((time.perf_counter() - start) * 1000)
    return statistics.median(runs)


async def run(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        url = args.database_url or f"sqlite:///{tmp}/lookups.sqlite3"
        async with open_database(url) as store:
            await store.create_account(ACCOUNT, "Bench", f"bench-{random.randrange(10**9)}", AT)
            async with store.write(ACCOUNT) as txn:
                await txn.insert_module(ModuleDef(MODULE, ACCOUNT, "Deals", "deals"))
            heads = " | ".join(f"get_records({k}) ms" for k in args.ids)
            print(f"| records | {heads} | walk all (records_after, pages of 500) ms |")
            print("|---:|" + "---:|" * (len(args.ids) + 1))
            have = 0
            for size in sorted(args.sizes):
                await seed(store, have, size)
                have = size
                cells = []
                for k in args.ids:
                    ids = [f"rec-{random.randrange(size):08d}" for _ in range(k)]
                    cells.append(
                        await timed(lambda ids=ids: store.get_records(ACCOUNT, ids), REPEAT)
                    )

                async def walk() -> None:
                    last = ""
                    while rows := await store.records_after(ACCOUNT, last, 500):
                        last = rows[-1].record_id

                cells.append(await timed(walk, 3))
                print(f"| {size:,} | " + " | ".join(f"{c:.2f}" for c in cells) + " |", flush=True)


def main(argv: Sequence[str] | None = None) -> None:
    trio.run(run, parse_args(argv))


if __name__ == "__main__":
    main()
