"""What one create writes to SQLite, and what each statement costs: ``python -m
benchmarks.write_pages [--creates 2000] [--embedder none|minilm-int8]``.

In one process, a runtime on a fresh store (SQLite in a temporary folder) creates deals one at a
time through the workspace actor (each create a transaction of its own, as at one connection)
with the deal body of ``../shared/peers/side_by_side.sh``. Two tables are printed:

- the WAL frames (4 KB pages) a create's commit appends, by the table or index each page belongs
  to (SQLite's ``dbstat``), with the checkpoints held back so every frame stays in the WAL;
- the wall time of each kind of statement a create runs, per create, with the checkpoint
  thread's statements (the WAL copied into the database) in their own rows.

Both explain the fixed cost of a lone create: the commit's pages and their checkpoint.
"""

from __future__ import annotations

import argparse
import collections
import re
import sqlite3
import struct
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import trio

import fieldhouse.storage.sqlite as sqlite_store
from benchmarks.harness import format_table
from fieldhouse.actors.bootstrap import init_workspace
from fieldhouse.actors.record_ops import CreateRecord
from fieldhouse.config import Settings
from fieldhouse.model.principal import SystemActor
from fieldhouse.runtime import open_runtime

_FRAME_HEADER = 24
_WAL_HEADER = 32


class _Timed(sqlite3.Connection):
    """A connection that adds each statement's wall time to :data:`SPENT` while counting."""

    def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:  # type: ignore[override]
        started = time.perf_counter()
        try:
            return super().execute(sql, *args)
        finally:
            _spent(sql, started)

    def executemany(self, sql: str, *args: Any) -> sqlite3.Cursor:  # type: ignore[override]
        started = time.perf_counter()
        try:
            return super().executemany(sql, *args)
        finally:
            _spent(sql, started)


SPENT: collections.defaultdict[str, float] = collections.defaultdict(float)
RUNS: collections.Counter[str] = collections.Counter()
COUNTING = [False]


def _spent(sql: str, started: float) -> None:
    if COUNTING[0]:
        kind = re.sub(r"fts_[0-9a-f]+", "fts_<workspace>", " ".join(sql.split()[:4]))[:60]
        SPENT[kind] += time.perf_counter() - started
        RUNS[kind] += 1


@contextmanager
def _timed_connections() -> Iterator[None]:
    connect = sqlite3.connect

    def timed(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        kwargs["factory"] = _Timed
        made: sqlite3.Connection = connect(*args, **kwargs)
        return made

    sqlite3.connect = timed  # type: ignore[assignment]
    try:
        yield
    finally:
        sqlite3.connect = connect


def _body(i: int) -> dict[str, Any]:
    return {
        "name": f"w-{i}-{i * 7919 % 100000}",
        "stage": ("lead", "won", "lost")[i % 3],
        "amount": {"amount": i % 9000 + 0.5, "currency": "USD"},
        "close-date": f"2026-{i % 12 + 1:02d}-{i % 27 + 1:02d}",
    }


async def _run(embedder: str, creates: int, *, frames: bool) -> dict[str, Any]:
    folder = tempfile.mkdtemp(prefix="fieldhouse-pages-")
    async with open_runtime(Settings(data_dir=Path(folder), embedder=embedder)) as rt:
        made, _ = await init_workspace(rt.actors, "Bench", None)
        account = made.account_id
        deals = (await rt.actors.schemas.get(account)).get("deals")
        assert deals is not None
        by = SystemActor(account, "bench")

        async def create(i: int) -> None:
            fields = _body(i)
            name = str(fields["name"])
            await rt.actors.ask(CreateRecord(deals.module.module_id, name, fields, None, by=by))

        for i in range(300):  # (warm: the tables past their first pages)
            await create(i)
        db, wal, start = _files(folder)  # (a few system calls, between two creates)
        COUNTING[0] = True
        cpu = time.process_time()
        for i in range(300, 300 + creates):
            await create(i)
        cpu = time.process_time() - cpu
        COUNTING[0] = False
        result: dict[str, Any] = {"cpu_us": cpu / creates * 1e6}
        if frames:
            result["frames"] = _frames_by_table(db, wal, start, creates)
    return result


def _files(folder: str) -> tuple[Path, Path, int]:
    """The database file, its WAL and the WAL's size now."""
    db = next(p for p in Path(folder).iterdir() if p.name.endswith(".sqlite3"))
    wal = Path(f"{db}-wal")
    return db, wal, wal.stat().st_size if wal.exists() else 0


def _frames_by_table(db: Path, wal: Path, start: int, creates: int) -> list[tuple[str, float]]:
    data = wal.read_bytes()
    page = 4096
    offset = max(start, _WAL_HEADER)
    pages: collections.Counter[int] = collections.Counter()
    while offset + _FRAME_HEADER + page <= len(data):
        pages[struct.unpack(">I", data[offset : offset + 4])[0]] += 1
        offset += _FRAME_HEADER + page
    owner: dict[int, str] = {}
    with sqlite3.connect(db) as c:
        for name, pageno in c.execute("SELECT name, pageno FROM dbstat"):
            owner[int(pageno)] = str(name)
    by: collections.Counter[str] = collections.Counter()
    for number, n in pages.items():
        name = owner.get(number, "(free or new)")
        by[re.sub(r"fts_[0-9a-f]+", "fts_<workspace>", name)] += n
    return [(name, n / creates) for name, n in by.most_common()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--creates", type=int, default=2000)
    parser.add_argument("--embedder", default="none")
    args = parser.parse_args()
    # the checkpoints held back: every frame of the measured creates stays in the WAL
    kept = sqlite_store.CHECKPOINT_COMMITS
    sqlite_store.CHECKPOINT_COMMITS = 10**9
    try:
        held = trio.run(lambda: _run(args.embedder, min(args.creates, 500), frames=True))
    finally:
        sqlite_store.CHECKPOINT_COMMITS = kept
    with _timed_connections():
        timed = trio.run(lambda: _run(args.embedder, args.creates, frames=False))
    total = sum(n for _, n in held["frames"])
    print(
        f"WAL frames a create ({min(args.creates, 500):,} creates, embedder {args.embedder}): "
        f"{total:.1f}"
    )
    print(
        format_table(
            [{"table or index": t, "frames/create": round(n, 2)} for t, n in held["frames"]]
        )
    )
    print()
    print(
        f"statements a create ({args.creates:,} creates, checkpoints every "
        f"{kept} commits): {timed['cpu_us']:,.0f} us of process CPU a create"
    )
    rows = [
        {
            "statement": kind,
            "runs/create": round(RUNS[kind] / args.creates, 2),
            "us/create": round(SPENT[kind] / args.creates * 1e6, 1),
        }
        for kind in sorted(SPENT, key=SPENT.__getitem__, reverse=True)
        if SPENT[kind] / args.creates * 1e6 >= 0.5
    ]
    print(format_table(rows))


if __name__ == "__main__":
    main()
