"""How the processes around one PostgreSQL database coordinate: the change epoch travels by
LISTEN/NOTIFY on one connection of each process's own, and rate-limit reservations are an
upsert into the store's ``rate_windows`` table (see :mod:`fieldhouse.coordination` for what
the two are). The PostgreSQL Backend (:mod:`fieldhouse.storage.backend`) opens it; it runs
inside the store's trio-asyncio loop.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any, TypeVar

import asyncpg
import trio

from fieldhouse.coordination import Coordination
from fieldhouse.storage.postgres import aio

log = logging.getLogger("fieldhouse.coordination")

#: the channel a bump notifies and every process listens on
CHANNEL = "fieldhouse_changes"
T = TypeVar("T")


class PostgresCoordination:
    """Processes around one PostgreSQL database, on one connection of their own each.

    The epoch is a counter in memory that a LISTEN callback moves; while the connection is
    down the epoch moves on every read, so nothing is remembered that a missed notice could
    have invalidated.
    """

    #: the other servers hear of a bump when their LISTEN connection does, a moment later
    immediate = False

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
        return await aio(fn, *args)

    async def connect(self) -> None:
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
