"""Reading records and their search docs back by id, at workspace size.

    .venv/bin/python -m benchmarks.lookups [--sizes 1000 10000 100000] [--ids 64 100]
        [--database-url postgresql://postgres@127.0.0.1:5432/test]

Seeds one workspace of N records through the store's write transactions (SQLite in a
temporary folder by default), each record's search doc written with it, then times
``Store.get_records`` for lists of random ids (bulk operations read records back this way),
``Store.search_docs`` for the same lists (the embedding loop reads the text of the 64 records
it claims this way, and a search the docs of its 100 best candidates), ``Store.keyword_stats``
(a workspace's word statistics, counted again once a minute while it is searched) and a walk
over every record with ``Store.records_after`` (``fieldhouse search rebuild``), and prints one
markdown row per size. Figures are medians of repeated runs; only runs on the same machine in
the same hour compare.
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
    p.add_argument("--ids", type=int, nargs="+", default=[64, 100])
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
            heads = " | ".join(
                f"{name}({k}) ms" for name in ("get_records", "search_docs") for k in args.ids
            )
            print(f"| records | {heads} | keyword_stats ms | walk all (records_after) ms |")
            print("|---:|" + "---:|" * (2 * len(args.ids) + 2))
            have = 0
            for size in sorted(args.sizes):
                await seed(store, have, size)
                have = size
                lists = [[f"rec-{random.randrange(size):08d}" for _ in range(k)] for k in args.ids]
                cells = [
                    await timed(lambda ids=ids: store.get_records(ACCOUNT, ids), REPEAT)
                    for ids in lists
                ]
                for ids in lists:
                    cells.append(
                        await timed(lambda ids=ids: store.search_docs(ACCOUNT, ids), REPEAT)
                    )
                cells.append(await timed(lambda: store.keyword_stats(ACCOUNT), 3))

                async def walk() -> None:
                    last = ""
                    while rows := await store.records_after(ACCOUNT, last, 500):
                        last = rows[-1].record_id

                cells.append(await timed(walk, 3))  # pages of 500, as a rebuild reads
                print(f"| {size:,} | " + " | ".join(f"{c:.2f}" for c in cells) + " |", flush=True)


def main(argv: Sequence[str] | None = None) -> None:
    trio.run(run, parse_args(argv))


if __name__ == "__main__":
    main()
