"""Workspace objects that are not records: agents, agent runs, approvals, e-mails, reminders,
outreach sequences, social posts, landing pages. One table, typed by ``kind``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fieldhouse.storage.base import Op, count, execute, row, rows
from fieldhouse.storage.rows import ColumnRow, dumps, loads


@dataclass(frozen=True)
class ObjectRow:
    account_id: str
    kind: str
    object_id: str
    data: dict[str, Any]
    status: str | None
    due_at: str | None
    created_at: str
    updated_at: str


def object_from_row(r: ColumnRow) -> ObjectRow:
    return ObjectRow(
        r["account_id"],
        r["kind"],
        r["id"],
        loads(r["data"]),
        r["status"],
        r["due_at"],
        r["created_at"],
        r["updated_at"],
    )


def put_object(o: ObjectRow) -> Op[None]:
    """Insert or replace one object of its workspace."""
    yield execute(
        "INSERT INTO objects (account_id, kind, id, data, status, due_at, created_at, updated_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (account_id, kind, id) DO UPDATE SET"
        " data = excluded.data, status = excluded.status, due_at = excluded.due_at,"
        " updated_at = excluded.updated_at",
        (
            o.account_id,
            o.kind,
            o.object_id,
            dumps(o.data),
            o.status,
            o.due_at,
            o.created_at,
            o.updated_at,
        ),
    )


def get_object(account_id: str, kind: str, object_id: str) -> Op[ObjectRow | None]:
    r = yield row(
        "SELECT * FROM objects WHERE account_id = ? AND kind = ? AND id = ?",
        (account_id, kind, object_id),
    )
    return object_from_row(r) if r else None


def transition(
    account_id: str, kind: str, object_id: str, expected: str, status: str, at: str
) -> Op[bool]:
    """Move an object from status ``expected`` to ``status``; False if it was not there."""
    n = yield count(
        "UPDATE objects SET status = ?, updated_at = ?"
        " WHERE account_id = ? AND kind = ? AND id = ? AND status = ?",
        (status, at, account_id, kind, object_id, expected),
    )
    return bool(n == 1)


def list_objects(
    account_id: str, kind: str, status: str | None, limit: int, id_prefix: str = ""
) -> Op[list[ObjectRow]]:
    """Newest first; only ids that start with ``id_prefix`` when given (a key range)."""
    sql = "SELECT * FROM objects WHERE account_id = ? AND kind = ?"
    args: list[Any] = [account_id, kind]
    if status is not None:
        sql += " AND status = ?"
        args.append(status)
    if id_prefix:
        # every id that starts with the prefix sorts between it and the prefix with its last
        # character moved one on (ids are ASCII: uuids, digits and dashes)
        sql += " AND id >= ? AND id < ?"
        args += [id_prefix, id_prefix[:-1] + chr(ord(id_prefix[-1]) + 1)]
    found = yield rows(sql + " ORDER BY created_at DESC, id DESC LIMIT ?", (*args, limit))
    return [object_from_row(r) for r in found]


def due_objects(kind: str, status: str, before: str, limit: int) -> Op[list[ObjectRow]]:
    """Objects of every workspace whose due_at has come, oldest first (for schedulers)."""
    found = yield rows(
        "SELECT * FROM objects WHERE kind = ? AND status = ? AND due_at IS NOT NULL"
        " AND due_at <= ? ORDER BY due_at LIMIT ?",
        (kind, status, before, limit),
    )
    return [object_from_row(r) for r in found]


def objects_of_kind(
    kind: str, status: str, after: tuple[str, str], limit: int
) -> Op[list[ObjectRow]]:
    """Objects of one kind and status in every workspace, by (workspace, id) after ``after``:
    one page of a keyset walk (the webhook dispatcher's active hooks)."""
    found = yield rows(
        "SELECT * FROM objects WHERE kind = ? AND status = ?"
        " AND (account_id > ? OR (account_id = ? AND id > ?)) ORDER BY account_id, id LIMIT ?",
        (kind, status, after[0], after[0], after[1], limit),
    )
    return [object_from_row(r) for r in found]
