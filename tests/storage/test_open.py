"""Opening the store a database URL names."""

from __future__ import annotations

from pathlib import Path

import pytest

from fieldhouse.storage import open_database
from fieldhouse.storage.open import UnsupportedDatabase, is_postgres


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
