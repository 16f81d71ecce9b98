"""A bare store on each backend (no actors, no HTTP), with two workspaces and a module."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from fieldhouse.model.records import RecordRow
from fieldhouse.model.schema import FieldDef, ModuleDef
from fieldhouse.storage import Store, open_database
from fieldhouse.storage.base import Op
from fieldhouse.storage.migrations import migrate_sqlite
from fieldhouse.storage.sqldialect import SQLITE

A, B, MOD = "acct-a", "acct-b", "mod-1"
AT = "2026-01-01T00:00:00.000000Z"


@pytest.fixture
def url(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> str:
    if backend == "postgres":
        return str(request.getfixturevalue("pg_url"))
    return f"sqlite:///{tmp_path}/store.sqlite3"


@pytest.fixture
async def store(url: str) -> AsyncIterator[Store]:
    """Workspaces A and B, each with the module MOD of fields ``title`` and ``amount``."""
    async with open_database(url) as db:
        for account, slug in ((A, "a"), (B, "b")):
            await db.create_account(account, slug.upper(), slug, AT)
            async with db.write(account) as txn:
                await txn.insert_module(ModuleDef(f"{MOD}-{account}", account, "Deals", "deals"))
                await txn.upsert_fields(
                    [
                        FieldDef(
                            f"f-title-{account}", f"{MOD}-{account}", "T", "title", "T", "text", {}
                        ),
                        FieldDef(
                            f"f-amount-{account}",
                            f"{MOD}-{account}",
                            "A",
                            "amount",
                            "A",
                            "number",
                            {},
                        ),
                    ]
                )
        yield db


def record(account: str, rid: str, name: str, **fields: object) -> RecordRow:
    """A record of the workspace's module MOD; ``created_at`` follows the id."""
    at = f"2026-01-01T00:00:{rid[-2:]}.000000Z"
    return RecordRow(rid, account, f"{MOD}-{account}", name, dict(fields), at, at, None, None)


def sqlite_plan(op: Op[object]) -> str:
    """SQLite's plan (without statistics, as the server runs) for the op's first statement."""
    stmt = next(op)
    conn = sqlite3.connect(":memory:", isolation_level=None)
    migrate_sqlite(conn)
    sql, params = SQLITE.statement(stmt.sql, stmt.params)
    return " | ".join(str(r[3]) for r in conn.execute(f"EXPLAIN QUERY PLAN {sql}", params))
