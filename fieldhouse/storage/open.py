"""Open the Store a database URL names."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlparse

from fieldhouse.storage.base import Store


class UnsupportedDatabase(ValueError):
    """The database URL names a backend this build does not have."""


async def open_store(url: str) -> Store:
    """``sqlite:////abs/path.sqlite3`` (embedded) or ``postgresql://...``."""
    parsed = urlparse(url)
    if parsed.scheme == "sqlite":
        from fieldhouse.storage.sqlite import SQLiteStore

        # SQLAlchemy's convention: sqlite:///relative/path, sqlite:////absolute/path
        return await SQLiteStore.open(Path(url[len("sqlite:///") :]))
    if parsed.scheme in ("postgres", "postgresql"):
        raise UnsupportedDatabase(
            "PostgreSQL support is not built yet; use the embedded SQLite store (no --database-url)"
        )
    raise UnsupportedDatabase(f"unsupported database URL scheme {parsed.scheme!r}")
