"""``fieldhouse backup DIR`` and ``fieldhouse restore FILE`` for the embedded SQLite store.

A backup uses SQLite's online backup API in one step: in WAL mode it reads one consistent
snapshot while the server keeps writing. A restore needs the data directory to itself, so it
takes the same ``serve.lock`` a server holds (and refuses while one runs); it keeps the
database it replaces beside it. The search index (words and vectors) is part of the file, so
a restored database searches at once.
PostgreSQL is backed up with its own tools; these commands say how.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import time
from contextlib import closing
from pathlib import Path
from typing import Any

from fieldhouse.config import Settings
from fieldhouse.storage.backend import Backend, NoDatabaseFile

#: tables every Fieldhouse database has; a file without them is not one
_REQUIRED_TABLES = frozenset({"meta", "accounts", "records"})


class BackupError(Exception):
    """A backup or restore that cannot be done as asked (the message says what to do)."""


def sqlite_file(backend: Backend) -> Path:
    """The embedded database file; a BackupError saying what to do for any other database."""
    try:
        return backend.database_file()
    except NoDatabaseFile as exc:
        raise BackupError(str(exc)) from None


def backup(backend: Backend, dest_dir: Path) -> dict[str, Any]:
    """Copy the live database into ``dest_dir``; a consistent snapshot, even while serving."""
    source = sqlite_file(backend)
    if not source.exists():
        raise BackupError(f"No database at {source}; nothing to back up")
    dest_dir.mkdir(parents=True, exist_ok=True)
    target = _fresh_name(dest_dir / f"fieldhouse-{_stamp()}.sqlite3")
    partial = target.with_name(target.name + ".partial")
    try:
        _copy(source, partial)
        _check(partial)
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
    return {"backup": str(target), "bytes": target.stat().st_size, "check": "ok"}


def restore(settings: Settings, backend: Backend, source: Path) -> dict[str, Any]:
    """Replace the data directory's database with ``source`` (a file ``backup`` made)."""
    target = sqlite_file(backend)
    if not source.is_file():
        raise BackupError(f"No backup file at {source}")
    _check(source)
    with backend.serve_lock():
        previous = None
        if target.exists():
            previous = _fresh_name(target.with_name(f"{target.name}.before-restore-{_stamp()}"))
            _copy(target, previous)
        target.parent.mkdir(parents=True, exist_ok=True)
        _copy(source, target)
        # (search is data of the file: the restored records come with their index and vectors;
        # a folder of per-process indexes an older version kept is only in the way)
        shutil.rmtree(settings.data_dir / "search", ignore_errors=True)
    return {
        "restored": str(source),
        "database": str(target),
        "previous": None if previous is None else str(previous),
    }


def _copy(source: Path, target: Path) -> None:
    """SQLite's online backup in one step (one read snapshot; writers carry on in WAL)."""
    with (
        closing(sqlite3.connect(source, timeout=30)) as src,
        closing(sqlite3.connect(target, timeout=30)) as dst,
    ):
        src.backup(dst)


def _check(path: Path) -> None:
    try:
        with closing(sqlite3.connect(path)) as db:
            verdict = db.execute("PRAGMA quick_check").fetchone()[0]
            tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
    except sqlite3.DatabaseError as exc:
        raise BackupError(f"{path} is not a SQLite database: {exc}") from exc
    if verdict != "ok":
        raise BackupError(f"{path} fails SQLite's integrity check: {verdict}")
    missing = _REQUIRED_TABLES - tables
    if missing:
        raise BackupError(f"{path} is not a Fieldhouse database (no {', '.join(sorted(missing))})")


def _stamp() -> str:
    return time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())


def _fresh_name(path: Path) -> Path:
    candidate, n = path, 1
    while candidate.exists():
        candidate = path.with_name(f"{path.stem}-{n}{path.suffix}")
        n += 1
    return candidate
