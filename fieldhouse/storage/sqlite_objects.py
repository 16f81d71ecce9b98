"""Synchronous SQL for workspace objects (SQLite backend)."""

from __future__ import annotations

import sqlite3
from typing import Any

from fieldhouse.storage.objects import ObjectRow
from fieldhouse.storage.rows import dumps, object_from_row

Conn = sqlite3.Connection


def put_object(c: Conn, row: ObjectRow) -> None:
    c.execute(
        "INSERT INTO objects (account_id, kind, id, data, status, due_at, created_at, updated_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (account_id, kind, id) DO UPDATE SET"
        " data = excluded.data, status = excluded.status, due_at = excluded.due_at,"
        " updated_at = excluded.updated_at",
        (
            row.account_id,
            row.kind,
            row.object_id,
            dumps(row.data),
            row.status,
            row.due_at,
            row.created_at,
            row.updated_at,
        ),
    )


def get_object(c: Conn, account_id: str, kind: str, object_id: str) -> ObjectRow | None:
    row = c.execute(
        "SELECT * FROM objects WHERE account_id = ? AND kind = ? AND id = ?",
        (account_id, kind, object_id),
    ).fetchone()
    return object_from_row(row) if row else None


def transition(
    c: Conn, account_id: str, kind: str, object_id: str, expected: str, status: str, at: str
) -> bool:
    cur = c.execute(
        "UPDATE objects SET status = ?, updated_at = ?"
        " WHERE account_id = ? AND kind = ? AND id = ? AND status = ?",
        (status, at, account_id, kind, object_id, expected),
    )
    return cur.rowcount == 1


def list_objects(
    c: Conn, account_id: str, kind: str, status: str | None, limit: int
) -> list[ObjectRow]:
    sql = "SELECT * FROM objects WHERE account_id = ? AND kind = ?"
    args: list[Any] = [account_id, kind]
    if status is not None:
        sql += " AND status = ?"
        args.append(status)
    sql += " ORDER BY created_at DESC, id DESC LIMIT ?"
    args.append(limit)
    return [object_from_row(r) for r in c.execute(sql, args)]


def due_objects(c: Conn, kind: str, status: str, before: str, limit: int) -> list[ObjectRow]:
    rows = c.execute(
        "SELECT * FROM objects WHERE kind = ? AND status = ? AND due_at IS NOT NULL"
        " AND due_at <= ? ORDER BY due_at LIMIT ?",
        (kind, status, before, limit),
    ).fetchall()
    return [object_from_row(r) for r in rows]
