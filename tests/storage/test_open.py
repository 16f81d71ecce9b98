"""Opening the store a database URL names."""

from __future__ import annotations

from pathlib import Path

import pytest

from fieldhouse.storage import open_database
from fieldhouse.storage.open import UnsupportedDatabase, is_postgres
from fieldhouse.storage.sqlite import SQLiteDriver


async def test_an_unknown_scheme_is_refused_by_name() -> None:
    with pytest.raises(UnsupportedDatabase, match="'mysql'"):
        async with open_database("mysql://localhost/db"):
            pass


async def test_a_sqlite_url_makes_its_directory_and_database(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "er" / "fh.sqlite3"
    async with open_database(f"sqlite:///{path}") as store:
        assert not store.shared_between_processes
        assert await store.list_accounts() == []
    assert path.exists()


def test_postgres_urls_are_recognised() -> None:
    assert is_postgres("postgresql://u@h/db") and is_postgres("postgres://h/db")
    assert not is_postgres("sqlite:////tmp/x.sqlite3")


@pytest.mark.parametrize(("mode", "pragma"), [("normal", 1), ("full", 2)])
async def test_sqlite_commits_as_durably_as_asked(tmp_path: Path, mode: str, pragma: int) -> None:
    """normal: a commit survives the server's crash; full: an OS crash too (an fsync each)."""
    url = f"sqlite:///{tmp_path / 'fh.sqlite3'}"
    async with open_database(url, sqlite_synchronous=mode) as store:
        driver = store._db
        assert isinstance(driver, SQLiteDriver)
        for conn in (driver._writer, *driver._readers):
            assert conn.execute("PRAGMA synchronous").fetchone()[0] == pragma
