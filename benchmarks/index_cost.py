"""What writing a record's search doc adds to its create: ``python -m benchmarks.index_cost
[--records 5000]``.

A record's words are written by its own write transaction (``WriteTxn.insert_record`` builds
its :class:`Doc` with ``record_doc`` and the commit writes it into the workspace's keyword
index, and queues the record for its vector when the store has a vector model). This creates
records of the side-by-side load's deals shape (a name, a stage, an amount, a date) through
``Store.write`` into a new SQLite store, one record a transaction (a lone create, as the API
writes one) and 25 and 200 a transaction (bulk writes), three ways:

- records only: ``WriteTxn._index`` replaced by a no-op for the run (no search doc at all:
  what a create cost before search moved into the store, less the old indexer's own work),
- with the keyword doc (the store has no vector model: keyword search only),
- with the keyword doc and the record's place in the vector queue (as a server with an
  embedder writes it),

and prints CPU microseconds (process time: the trio thread and the store's threads) and wall
microseconds per record; the indexing's cost is the difference to the first row. Two more
lines: building the docs alone (``record_doc``), and the keyword write of ready docs through
``Store.reindex`` (what a rebuild writes). Records have no module schema here, so
``record_doc`` reads every string value (as for a record of a module whose schema is gone).
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import trio

from benchmarks.harness import format_table
from fieldhouse.model.records import RecordRow
from fieldhouse.model.schema import ModuleDef
from fieldhouse.model.search_doc import record_doc
from fieldhouse.storage import open_database
from fieldhouse.storage.store import WriteTxn

ACCOUNT, MODULE = "bench-account", "deals"
AT = "2026-11-26T10:00:00.000000Z"
STAGES = ("lead", "qualified", "proposal", "won", "lost")
COMPANIES = ("Acme", "Globex", "Initech", "Umbrella")
MODEL = "bench-model"


def deal(rng: random.Random, i: int) -> RecordRow:
    name = f"Deal {uuid.UUID(int=rng.getrandbits(128)).hex[:8]} {rng.choice(COMPANIES)}"
    fields = {
        "name": name,
        "stage": rng.choice(STAGES),
        "amount": {"amount": rng.randint(1, 100_000), "currency": "USD"},
        "close-date": f"2026-11-{rng.randint(1, 28):02d}",
    }
    at = f"2026-11-26T10:00:00.{i:06d}Z"
    return RecordRow(
        uuid.UUID(int=rng.getrandbits(128)).hex, ACCOUNT, MODULE, name, fields, at, at, None, None
    )


@contextmanager
def no_search_doc() -> Iterator[None]:
    """Records written without their search doc (for the comparison only)."""
    real = WriteTxn._index

    async def skip(self: WriteTxn, row: RecordRow) -> None:
        pass

    WriteTxn._index = skip  # type: ignore[method-assign]
    try:
        yield
    finally:
        WriteTxn._index = real  # type: ignore[method-assign]


async def creates(rows: list[RecordRow], batch: int, how: str) -> tuple[float, float]:
    """CPU and wall microseconds per record of creating ``rows``, ``batch`` a transaction."""
    with tempfile.TemporaryDirectory(prefix="fh-index-cost-") as tmp:
        async with open_database(f"sqlite:///{tmp}/cost.sqlite3") as store:
            store.vector_model = MODEL if how == "vector" else None
            await store.create_account(ACCOUNT, "Bench", "bench", AT)
            async with store.write(ACCOUNT) as txn:
                await txn.insert_module(ModuleDef(MODULE, ACCOUNT, "Deals", "deals"))
            with no_search_doc() if how == "none" else _nothing():
                cpu, wall = time.process_time(), time.perf_counter()
                for start in range(0, len(rows), batch):
                    async with store.write(ACCOUNT, light=batch <= 25) as txn:  # creates are light
                        for row in rows[start : start + batch]:
                            await txn.insert_record(row)
                cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    return cpu / len(rows) * 1e6, wall / len(rows) * 1e6


@contextmanager
def _nothing() -> Iterator[None]:
    yield


async def reindex(rows: list[RecordRow], batch: int) -> tuple[float, float, float]:
    """CPU microseconds per record of building the docs, and CPU and wall of their keyword
    write through ``Store.reindex``, ``batch`` a call."""
    cpu = time.process_time()
    docs = [record_doc(row, None, {}) for row in rows]
    build = (time.process_time() - cpu) / len(rows) * 1e6
    with tempfile.TemporaryDirectory(prefix="fh-index-cost-") as tmp:
        async with open_database(f"sqlite:///{tmp}/cost.sqlite3") as store:
            await store.create_account(ACCOUNT, "Bench", "bench", AT)
            cpu, wall = time.process_time(), time.perf_counter()
            for start in range(0, len(docs), batch):
                await store.reindex(ACCOUNT, docs[start : start + batch], first=False)
            cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    return build, cpu / len(rows) * 1e6, wall / len(rows) * 1e6


HOW = {
    "none": "records only (no search doc)",
    "keyword": "+ keyword doc",
    "vector": "+ keyword doc + vector queue",
}


async def run(records: int) -> None:
    rng = random.Random(7)
    rows = [deal(rng, i) for i in range(records)]
    table: list[dict[str, object]] = []
    for batch in (1, 25, 200):
        for how, label in HOW.items():
            cpu, wall = await creates(rows, batch, how)
            table.append(
                {
                    "records a transaction": batch,
                    "written": label,
                    "CPU us/record": round(cpu, 1),
                    "wall us/record": round(wall, 1),
                }
            )
    print(f"creates through Store.write, {records:,} records of the deals shape, SQLite")
    print(format_table(table))
    for batch in (25, 200):
        build, cpu, wall = await reindex(rows, batch)
        print(
            f"Store.reindex, {batch} docs a call: record_doc {build:.1f} us/record CPU; "
            f"keyword write {cpu:.1f} us/record CPU, {wall:.1f} wall"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=5000)
    args = parser.parse_args()
    trio.run(run, args.records)


if __name__ == "__main__":
    main()
