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
store's ``rate_windows`` table.
"""

from __future__ import annotations

import fcntl
import logging
import mmap
import os
import secrets
import sqlite3
import struct
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Protocol, TypeVar

import trio

log = logging.getLogger("fieldhouse.coordination")

CHANNEL = "fieldhouse_changes"
_WORD = struct.Struct("<q")
T = TypeVar("T")


class Coordination(Protocol):
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


class PostgresCoordination:
    """Processes around one PostgreSQL database, on one connection of their own each.

    The epoch is a counter in memory that a LISTEN callback moves; while the connection is
    down the epoch moves on every read, so nothing is remembered that a missed notice could
    have invalidated.
    """

    def __init__(self, url: str) -> None:
        self._url = url
        self._epoch = 0
        self._listening = False
        self._conn: Any = None
        self._lock = trio.Lock()
        self._lost = trio.Event()

    def epoch(self) -> int:
        if not self._listening:
            self._epoch += 1
        return self._epoch

    def _noticed(self, *_: object) -> None:
        self._epoch += 1

    def _terminated(self, *_: object) -> None:
        self._listening = False
        self._epoch += 1
        self._lost.set()

    async def _aio(self, fn: Callable[..., Awaitable[T]], *args: Any) -> T:
        # the store's crossing, so a database away is a 503 (StoreUnavailable) here too
        from fieldhouse.storage.postgres import aio

        return await aio(fn, *args)

    async def connect(self) -> None:
        import asyncpg

        conn = await self._aio(asyncpg.connect, self._url)
        await self._aio(conn.add_listener, CHANNEL, self._noticed)
        conn.add_termination_listener(self._terminated)
        self._conn = conn
        self._lost = trio.Event()
        self._listening = True
        self._epoch += 1  # whatever happened while nobody listened

    async def keep_listening(self) -> None:
        """Reconnect whenever the listening connection is lost (runs until cancelled)."""
        delay = 0.5
        while True:
            await self._lost.wait()
            log.warning("lost the change listener connection; reconnecting")
            while not self._listening:
                try:
                    async with self._lock:
                        await self.connect()
                    delay = 0.5
                except Exception:
                    await trio.sleep(delay)
                    delay = min(delay * 2, 10.0)

    async def bump(self) -> None:
        self._epoch += 1  # this process at once, the others when the notice arrives
        async with self._lock:
            if self._conn is not None and self._listening:
                await self._aio(self._conn.execute, f"NOTIFY {CHANNEL}")

    async def reserve_rate_hits(self, bucket: str, window: int, hits: int) -> int:
        async with self._lock:
            if self._conn is None or not self._listening:
                await self.connect()
            total = await self._aio(
                self._conn.fetchval,
                "INSERT INTO rate_windows (bucket, window_start, hits) VALUES ($1, $2, $3)"
                " ON CONFLICT (bucket, window_start)"
                " DO UPDATE SET hits = rate_windows.hits + EXCLUDED.hits RETURNING hits",
                bucket,
                window,
                hits,
            )
        return int(total)

    async def aclose(self) -> None:
        if self._conn is not None:
            self._listening = False
            conn, self._conn = self._conn, None
            await self._aio(conn.close)


@asynccontextmanager
async def open_postgres_coordination(url: str) -> AsyncIterator[Coordination]:
    """The processes around one PostgreSQL database (inside the trio-asyncio loop)."""
    pg = PostgresCoordination(url)
    await pg.connect()
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(pg.keep_listening)
            try:
                yield pg
            finally:
                nursery.cancel_scope.cancel()
    except BaseExceptionGroup as group:
        # the body's own error, not the nursery's wrapping, is what callers want
        if len(group.exceptions) == 1:
            raise group.exceptions[0] from None
        raise
    finally:
        with trio.CancelScope(shield=True):
            await pg.aclose()


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
