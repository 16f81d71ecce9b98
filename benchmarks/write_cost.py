"""The write path's own cost, without HTTP: ``python -m benchmarks.write_cost
[--database-url postgresql://postgres@127.0.0.1:5432/test] [--creates 1500]``.

In one process, a runtime on a fresh store (SQLite in a temporary folder, and PostgreSQL on a
fresh database made through ``--database-url`` when given; search off) creates records in the
deals module through the workspace actor, from 1, 4 and 16 concurrent trio tasks. Each row is
the second of two rounds (the first warms caches and pools): CPU microseconds of this process
per create (process time: the trio thread, asyncpg or SQLite, and trio-asyncio for
PostgreSQL) and creates per second. With one task every create is a transaction of its own;
with 16 the actor groups them.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import trio

from benchmarks.aggregate_bench import SHAPES
from benchmarks.harness import format_table
from benchmarks.records_load import fresh_postgres
from fieldhouse.actors.bootstrap import init_workspace
from fieldhouse.actors.record_ops import CreateRecord
from fieldhouse.config import Settings
from fieldhouse.model.aggregate import parse_aggregate
from fieldhouse.model.listquery import parse_list_query
from fieldhouse.model.principal import SystemActor
from fieldhouse.runtime import open_runtime

CONCURRENCY = (1, 4, 16)


async def measure(
    settings: Settings, creates: int, aggregates: bool = False
) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    async with open_runtime(settings) as rt:
        made, _ = await init_workspace(rt.actors, "Bench", None)
        account = made.account_id
        deals = (await rt.actors.schemas.get(account)).get("deals")
        assert deals is not None
        module_id = deals.module.module_id
        if aggregates:  # what aggregate_bench asks is kept from now on (SQLite)
            for shape in SHAPES:
                spec = parse_aggregate(shape.get("groupBy"), shape.get("metrics"), deals)
                rest = [(k, v) for k, v in shape.items() if k not in ("groupBy", "metrics")]
                await rt.store.aggregate(account, deals, parse_list_query(rest, deals), spec)

        async def create(i: int) -> None:
            fields = {"name": f"Deal {i}", "stage": "lead"}
            await rt.actors.ask(
                CreateRecord(module_id, f"Deal {i}", fields, None, by=SystemActor(account, "bench"))
            )

        for tasks in CONCURRENCY:
            for _ in range(2):
                cpu, wall = time.process_time(), time.perf_counter()

                async def worker(first: int, tasks: int = tasks) -> None:
                    for i in range(first, creates, tasks):
                        await create(i)

                async with trio.open_nursery() as nursery:
                    for first in range(tasks):
                        nursery.start_soon(worker, first)
                cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
            rows.append(
                {
                    "tasks": tasks,
                    "CPU us/create": round(cpu / creates * 1e6),
                    "creates/s": round(creates / wall),
                }
            )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", default=None)
    parser.add_argument("--creates", type=int, default=1500)
    parser.add_argument(
        "--aggregates", action="store_true", help="aggregate_bench's aggregates asked first"
    )
    args = parser.parse_args()
    table: list[dict[str, object]] = []
    with tempfile.TemporaryDirectory(prefix="fh-write-cost-") as tmp:
        base = Settings(data_dir=Path(tmp), search_enabled=False)
        for row in trio.run(measure, base, args.creates, args.aggregates):
            table.append({"backend": "SQLite", **row})
        if args.database_url:
            with fresh_postgres(args.database_url) as url:
                settings = base.with_overrides(database_url=url)
                for row in trio.run(measure, settings, args.creates, args.aggregates):
                    table.append({"backend": "PostgreSQL", **row})
    print(f"{args.creates:,} creates per row, in process (no HTTP), search off")
    print(format_table(table))


if __name__ == "__main__":
    main()
