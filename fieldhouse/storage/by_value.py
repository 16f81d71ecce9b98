"""Finding live records by the value of one field (upsert and unique fields), per backend.

The only statements the bulk/upsert work adds to the storage layer; both dialects sit here so
they move together.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Collection
from typing import Any

from fieldhouse.model.records import RecordRow
from fieldhouse.storage.postgres_ops import Conn
from fieldhouse.storage.rows import record_from_row

_COLUMNS = "*"


def sqlite_records_by_value(
    c: sqlite3.Connection, account_id: str, module_id: str, slug: str, values: Collection[str]
) -> list[RecordRow]:
    """Live records of a module whose field ``slug`` holds one of ``values`` (text)."""
    if not values:
        return []
    marks = ", ".join("?" for _ in values)
    path = '$."' + slug.replace('"', "") + '"'
    sql = (
        f"SELECT {_COLUMNS} FROM records WHERE account_id = ? AND module_id = ?"
        f" AND deleted_at IS NULL AND json_extract(fields, ?) IN ({marks})"
    )
    args: list[Any] = [account_id, module_id, path, *values]
    return [record_from_row(r) for r in c.execute(sql, args)]


async def postgres_records_by_value(
    c: Conn,
    account_id: str,
    module_id: str,
    slug: str,
    values: Collection[str],
) -> list[RecordRow]:
    """Live records of a module whose field ``slug`` holds one of ``values`` (text)."""
    if not values:
        return []
    sql = (
        f"SELECT {_COLUMNS} FROM records WHERE account_id = $1 AND module_id = $2"
        " AND deleted_at IS NULL AND fields->>$3 = ANY($4::text[])"
    )
    rows = await c.fetch(sql, account_id, module_id, slug, list(values))
    return [record_from_row(r) for r in rows]
