"""Open the Store a database URL names."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from urllib.parse import urlparse

import trio

from fieldhouse.storage.sqlite import SQLiteDriver
from fieldhouse.storage.store import Store
from fieldhouse.storage.urls import UnsupportedDatabase, is_postgres

__all__ = ["UnsupportedDatabase", "is_postgres", "open_database"]


async def _open_store(url: str, sqlite_synchronous: str = "normal") -> Store:
    """``sqlite:////abs/path.sqlite3`` (embedded) or ``postgresql://...``.

    A PostgreSQL store must be opened inside ``trio_asyncio.open_loop()``; prefer
    :func:`open_database`, which opens that loop when the URL needs it.
    """
    parsed = urlparse(url)
    if parsed.scheme == "sqlite":
        # SQLAlchemy's convention: sqlite:///relative/path, sqlite:////absolute/path
        path = Path(url[len("sqlite:///") :])
        return Store(await SQLiteDriver.open(path, synchronous=sqlite_synchronous.upper()))
    if is_postgres(url):
        from fieldhouse.storage.postgres import PostgresDriver

        return Store(await PostgresDriver.open(url))
    raise UnsupportedDatabase(f"unsupported database URL scheme {parsed.scheme!r}")


@asynccontextmanager
async def open_database(url: str, *, sqlite_synchronous: str = "normal") -> AsyncIterator[Store]:
    """The store a URL names, closed on exit; for PostgreSQL, inside a trio-asyncio loop
    that stays open around the whole block (every asyncpg object lives in it).
    ``sqlite_synchronous``: ``normal`` (a commit survives the server's crash) or ``full`` (an
    OS crash or power cut too: an fsync a commit); see :mod:`fieldhouse.storage.sqlite`."""
    try:
        async with AsyncExitStack() as stack:
            if is_postgres(url):
                # (imported here: asyncpg and trio-asyncio cost an embedded store's process
                # 15 MB of memory it never uses)
                from fieldhouse.storage.aioloop import open_loop

                await stack.enter_async_context(open_loop())
            store = await _open_store(url, sqlite_synchronous)
            try:
                yield store
            finally:
                with trio.CancelScope(shield=True):
                    await store.aclose()
    except BaseExceptionGroup as group:
        # the loop's nurseries wrap whatever the block raised: callers want that error itself
        sole = _sole(group)
        if sole is None:
            raise
        raise sole from None


def _sole(group: BaseExceptionGroup[BaseException]) -> BaseException | None:
    """The one exception a chain of single-member groups carries, if that is what it is."""
    inner: BaseException = group
    while isinstance(inner, BaseExceptionGroup):
        if len(inner.exceptions) != 1:
            return None
        inner = inner.exceptions[0]
    return inner
