"""What the processes on one database tell each other without a round trip per request.

Two things cross process boundaries on the hot path:

* the **change epoch**: a number that moves whenever something a cache may hold stops being
  true (a key revoked, a user deleted, a schema changed). Every process reads it on every
  request for nothing (a word in shared memory, or a counter kept current by a listener) and
  drops what it remembered when it moved;
* **rate-limit reservations**: each process counts requests in memory against a share of a
  key's window that it reserved from a count kept once for all processes.

On the embedded SQLite store the processes share a machine: the epoch is eight bytes in a
memory-mapped file beside the database and the reservations live in a small SQLite file of
their own (losing them in a crash costs nothing). On PostgreSQL the epoch travels by
LISTEN/NOTIFY on one connection per process, and the reservations are an upsert into the
store's ``rate_windows`` table: storage owns those statements
(:mod:`fieldhouse.storage.coordination_postgres`), and the Backend hands each out.
"""

from __future__ import annotations

import fcntl
import mmap
import os
import secrets
import sqlite3
import struct
import time
from collections.abc import AsyncIterator, Callable, Hashable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, Protocol, TypeVar

import trio

_WORD = struct.Struct("<q")
K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


@dataclass(frozen=True)
class Remembered(Generic[V]):
    """A value read from the store, at the change epoch read just before it."""

    value: V
    epoch: int
    expires: float


class EpochMemo(Generic[K, V]):
    """Values read from the store, each kept while the change epoch stays where it was when
    it was read, and ``ttl`` seconds at most; cleared whole past ``max_entries`` (rare: more
    live keys than entries). A caller reads :meth:`epoch` before the store, so a change
    meanwhile drops what it then remembers."""

    def __init__(
        self,
        epoch: Callable[[], int],
        *,
        ttl: float = 60.0,
        max_entries: int = 10_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.epoch = epoch
        self._ttl = ttl
        self._max_entries = max_entries
        self._clock = clock
        self._known: dict[K, Remembered[V]] = {}

    def recall(self, key: K) -> Remembered[V] | None:
        known = self._known.get(key)
        if known is None:
            return None
        if known.epoch != self.epoch() or known.expires <= self._clock():
            del self._known[key]
            return None
        return known

    def remember(self, key: K, value: V, epoch: int) -> None:
        if len(self._known) >= self._max_entries:
            self._known.clear()
        self._known[key] = Remembered(value, epoch, self._clock() + self._ttl)


class Coordination(Protocol):
    #: whether every process sees the epoch move the moment :meth:`bump` returns
    immediate: bool

    def epoch(self) -> int:
        """The current change epoch; cheap enough to read on every request."""
        ...

    async def bump(self) -> None:
        """Move the epoch in every process (after the change committed)."""
        ...

    async def reserve_rate_hits(self, bucket: str, window: int, hits: int) -> int:
        """Add ``hits`` to a bucket's window for every process; the window's total after."""
        ...


class LocalCoordination:
    """One process alone: the epoch and the counts live in memory (tests, embedded tools)."""

    immediate = True

    def __init__(self) -> None:
        self._epoch = 0
        self._hits: dict[tuple[str, int], int] = {}

    def epoch(self) -> int:
        return self._epoch

    async def bump(self) -> None:
        self._epoch += 1

    async def reserve_rate_hits(self, bucket: str, window: int, hits: int) -> int:
        total = self._hits.get((bucket, window), 0) + hits
        self._hits[(bucket, window)] = total
        return total


class FileCoordination:
    """Processes of one machine around one SQLite database.

    The epoch is a random 64-bit word in a memory-mapped file: a bump writes a fresh random
    value, so two processes bumping at once can never write the value a reader saw before.
    """

    immediate = True

    def __init__(self, epoch_path: Path, counts_path: Path) -> None:
        fd = os.open(epoch_path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            if os.fstat(fd).st_size < _WORD.size:
                os.ftruncate(fd, _WORD.size)
            self._map = mmap.mmap(fd, _WORD.size)
        finally:
            os.close(fd)
        self._counts_path = counts_path
        self._counts: sqlite3.Connection | None = None
        self._lock = trio.Lock()

    def epoch(self) -> int:
        value: int = _WORD.unpack_from(self._map, 0)[0]
        return value

    async def bump(self) -> None:
        _WORD.pack_into(self._map, 0, secrets.randbits(63))

    async def reserve_rate_hits(self, bucket: str, window: int, hits: int) -> int:
        async with self._lock:
            return await trio.to_thread.run_sync(self._reserve, bucket, window, hits)

    def _reserve(self, bucket: str, window: int, hits: int) -> int:
        if self._counts is None:
            conn = sqlite3.connect(self._counts_path, timeout=30, check_same_thread=False)
            # one process at a time: switching a new file to WAL while another process does
            # fails at once with "database is locked" (the busy timeout does not cover it)
            with open(f"{self._counts_path}-setuplock", "a") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute(
                    "CREATE TABLE IF NOT EXISTS rate_windows (bucket TEXT NOT NULL,"
                    " window_start INTEGER NOT NULL, hits INTEGER NOT NULL,"
                    " PRIMARY KEY (bucket, window_start)) WITHOUT ROWID"
                )
            conn.execute("PRAGMA synchronous=OFF")  # a lost count after a crash costs nothing
            self._counts = conn
        with self._counts as conn:
            row = conn.execute(
                "INSERT INTO rate_windows (bucket, window_start, hits) VALUES (?, ?, ?)"
                " ON CONFLICT (bucket, window_start) DO UPDATE SET hits = hits + excluded.hits"
                " RETURNING hits",
                (bucket, window, hits),
            ).fetchone()
            conn.execute("DELETE FROM rate_windows WHERE window_start < ?", (window - 1,))
        return int(row[0])

    def close(self) -> None:
        self._map.close()
        if self._counts is not None:
            self._counts.close()


@asynccontextmanager
async def open_file_coordination(db: Path) -> AsyncIterator[Coordination]:
    """The processes of one machine around the SQLite database ``db`` (files beside it)."""
    files = FileCoordination(
        db.with_name(db.name + ".epoch"), db.with_name(db.name + ".ratelimits")
    )
    try:
        yield files
    finally:
        files.close()
