"""Schema migrations: a database made by an older version opens with its data intact."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from fieldhouse.storage import open_database
from fieldhouse.storage.migrations import SQLITE, migrate_sqlite

A = "acct-a"


def _old_database(path: Path) -> None:
    """A database at schema version 2, whose links were ordered by insertion (rowid)."""
    conn = sqlite3.connect(path, isolation_level=None)
    for migration in SQLITE[:2]:
        for statement in migration.split(";"):
            if statement.strip():
                conn.execute(statement)
    conn.execute("PRAGMA user_version = 2")
    conn.execute(
        "INSERT INTO accounts (id, name, slug, created_at) VALUES (?, 'A', 'a', 't')", (A,)
    )
    for rid in ("src", "t3", "t1", "t2"):
        conn.execute(
            "INSERT INTO records (id, account_id, module_id, display_name, created_at,"
            " updated_at) VALUES (?, ?, 'm', ?, 't', 't')",
            (rid, A, rid),
        )
    for target in ("t3", "t1", "t2"):
        conn.execute("INSERT INTO record_links VALUES (?, 'src', 'f', ?)", (A, target))
    conn.close()


async def test_an_old_sqlite_database_keeps_its_link_order(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    _old_database(path)
    async with open_database(f"sqlite:///{path}") as store:
        assert await store.linked_targets(A, "src", "f") == ["t3", "t1", "t2"]
        async with store.write(A) as txn:
            await txn.set_links("src", "f", ["t2", "t3"])
        assert await store.linked_targets(A, "src", "f") == ["t2", "t3"]


def test_migrating_twice_changes_nothing(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / "db.sqlite3", isolation_level=None)
    assert migrate_sqlite(conn) == len(SQLITE)
    assert migrate_sqlite(conn) == len(SQLITE)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == len(SQLITE)
