"""Opening the store a database URL names."""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path

import pytest
import trio

from fieldhouse.storage import open_database
from fieldhouse.storage.open import UnsupportedDatabase, is_postgres
from tests.storage.conftest import AT, A, record


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


async def test_sqlite_keeps_vectors_in_a_file_of_their_own_beside_the_database(
    tmp_path: Path,
) -> None:
    path = tmp_path / "fh.sqlite3"
    async with open_database(f"sqlite:///{path}") as store:
        await store.create_account(A, "A", "a", AT)
        assert await store.claim_vectors(A, "m", [("r1", "v1")], now=1.0, stale=10.0) == ["r1"]
        await store.put_vectors(A, "m", [("r1", "v1", b"\x01\x02")])
        assert await store.get_vectors(A, "m", [("r1", "v1")]) == {"r1": b"\x01\x02"}
    with contextlib.closing(sqlite3.connect(tmp_path / "fh.vectors.sqlite3")) as vectors:
        assert vectors.execute("SELECT record_id, vector FROM search_vectors").fetchall() == [
            ("r1", b"\x01\x02")
        ]
    with contextlib.closing(sqlite3.connect(path)) as main:
        assert main.execute("SELECT count(*) FROM search_vectors").fetchone() == (0,)
        assert main.execute("SELECT count(*) FROM accounts").fetchone() == (1,)


async def test_vectors_are_claimed_and_stored_while_a_record_write_holds_the_lock(
    tmp_path: Path,
) -> None:
    async with open_database(f"sqlite:///{tmp_path / 'fh.sqlite3'}") as store:
        await store.create_account(A, "A", "a", AT)
        async with store.write(A) as txn:
            await txn.insert_record(record(A, "r1", "one"))
            await txn.flush()  # the records' write lock is taken, and held
            # a deadline, not a wait: with one lock for both, this would wait for the commit
            with trio.fail_after(30):
                assert await store.claim_vectors(A, "m", [("r1", "v1")], now=1.0, stale=9) == ["r1"]
                await store.put_vectors(A, "m", [("r1", "v1", b"\x01")])
        assert await store.get_vectors(A, "m", [("r1", "v1")]) == {"r1": b"\x01"}
