"""How long ``fieldhouse import`` takes for 100,000 contacts on the embedded SQLite store.

    .venv/bin/python -m benchmarks.import_bench [ROWS]

Builds a CSV of contacts in a temporary folder, imports it through the same path as the
command (workspace actor, full validation, one activity entry per record) and prints the
seconds and rows per second.
"""

from __future__ import annotations

import csv
import sys
import tempfile
import time
from pathlib import Path

import trio

from fieldhouse.actors.bootstrap import init_workspace
from fieldhouse.actors.system import open_actor_system
from fieldhouse.config import Settings
from fieldhouse.storage import open_database
from fieldhouse.transfer import import_records


async def run(rows: int, folder: Path) -> None:
    settings = Settings(data_dir=folder / "data")
    path = folder / "contacts.csv"
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["first-name", "last-name", "job-title"])
        for i in range(rows):
            writer.writerow([f"First{i}", f"Last{i}", "Engineer" if i % 2 else "Manager"])
    async with (
        open_database(settings.resolved_database_url) as store,
        open_actor_system(store, settings) as system,
    ):
        made, _ = await init_workspace(system, "Bench", None)
        started = time.perf_counter()
        report = await import_records(system, made.account_id, "contacts", path, progress=False)
        seconds = time.perf_counter() - started
    print(
        f"imported {report['imported']} contacts ({len(report['rejected'])} rejected) "
        f"in {seconds:.1f} s: {report['imported'] / seconds:,.0f} rows/s on SQLite"
    )


def main() -> None:
    rows = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    with tempfile.TemporaryDirectory() as folder:
        trio.run(run, rows, Path(folder))


if __name__ == "__main__":
    main()
