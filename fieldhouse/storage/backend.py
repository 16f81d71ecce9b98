"""What differs between the engines, outside the Store's own SQL: one :class:`Backend` each.

The store hides the SQL; this object answers the rest, so no code outside ``storage/`` asks
which engine it runs on:

* how the processes over one database coordinate (the change epoch and rate-limit counts,
  :mod:`fieldhouse.coordination`): files beside an embedded database, LISTEN/NOTIFY and a
  table for PostgreSQL (:mod:`fieldhouse.storage.coordination_postgres`);
* whether servers that share nothing but the database may serve it (``distributed``): then
  what they must agree on (the JWT secret) lives in the database and rate limits are counted
  for all of them, not in one process's memory;
* the lock that keeps a second server off an embedded database's directory;
* the file a backup copies, or the advice to use the engine's own tools.

:func:`backend_for` makes it once from the settings, in the composition root.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import AbstractAsyncContextManager, AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol
from urllib.parse import urlparse

from fieldhouse.storage.urls import UnsupportedDatabase, is_postgres

if TYPE_CHECKING:
    from fieldhouse.config import Settings
    from fieldhouse.coordination import Coordination


class AlreadyServing(Exception):
    """Another server runs on the same SQLite data directory."""


class NoDatabaseFile(Exception):
    """The database is no file this process can copy; the message says how to back it up."""


class Backend(Protocol):
    @property
    def distributed(self) -> bool:
        """Servers on machines that share nothing but the database may serve it together."""
        ...

    @property
    def database_in_process(self) -> bool:
        """The database's work runs inside the server's own processes (an embedded engine),
        not in processes of the database's own."""
        ...

    def open_coordination(self) -> AbstractAsyncContextManager[Coordination]:
        """What the processes over this database tell each other; must run where the store
        runs (inside the trio-asyncio loop for PostgreSQL)."""
        ...

    def serve_lock(self) -> AbstractContextManager[int | None]:
        """Held while serving (and restoring): refuses a second server where one database
        file allows only one; the lock's descriptor, or None where no lock is needed."""
        ...

    def database_file(self) -> Path:
        """The SQLite file ``fieldhouse backup`` copies (with SQLite's online backup API);
        :class:`NoDatabaseFile`, saying how to back the database up, for any other engine."""
        ...


@dataclass(frozen=True)
class SQLiteBackend:
    """The embedded store: one file, the processes of one machine around it."""

    path: Path
    data_dir: Path
    distributed = False
    database_in_process = True

    @contextmanager
    def serve_lock(self) -> Iterator[int | None]:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        with (self.data_dir / "serve.lock").open("a+") as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise AlreadyServing(
                    f"Another fieldhouse server is using {self.data_dir.resolve()}; stop it "
                    "first, or give this one its own --data-dir (or several --workers of one "
                    "server)"
                ) from None
            handle.truncate(0)
            handle.write(f"{os.getpid()}\n")
            handle.flush()
            try:
                yield handle.fileno()
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def open_coordination(self) -> AbstractAsyncContextManager[Coordination]:
        from fieldhouse.coordination import open_file_coordination

        return open_file_coordination(self.path)

    def database_file(self) -> Path:
        return self.path


@dataclass(frozen=True)
class PostgresBackend:
    """PostgreSQL: several servers over one database are a supported deployment."""

    url: str
    distributed = True
    database_in_process = False

    @contextmanager
    def serve_lock(self) -> Iterator[int | None]:
        yield None

    def open_coordination(self) -> AbstractAsyncContextManager[Coordination]:
        # (imported here: asyncpg costs an embedded store's process memory it never uses)
        from fieldhouse.storage.coordination_postgres import open_postgres_coordination

        return open_postgres_coordination(self.url)

    def database_file(self) -> Path:
        parsed = urlparse(self.url)
        safe = parsed._replace(netloc=parsed.hostname or "").geturl()
        raise NoDatabaseFile(
            "This server keeps its data in PostgreSQL; back it up with PostgreSQL's own tools, "
            f"e.g. pg_dump --format=custom --file=fieldhouse.dump '{safe}' (and restore with "
            "pg_restore --clean --dbname=...); add the user and password as you connect normally"
        )


def backend_for(settings: Settings) -> Backend:
    """The backend the settings' database URL names (:class:`UnsupportedDatabase` if none)."""
    url = settings.resolved_database_url
    if is_postgres(url):
        return PostgresBackend(url)
    scheme = urlparse(url).scheme
    if scheme == "sqlite":
        # SQLAlchemy's convention: sqlite:///relative/path, sqlite:////absolute/path
        return SQLiteBackend(Path(url[len("sqlite:///") :]), settings.data_dir)
    raise UnsupportedDatabase(f"unsupported database URL scheme {scheme!r}")
