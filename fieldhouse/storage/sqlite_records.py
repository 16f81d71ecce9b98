"""Synchronous SQL for records, links, counters and activity (SQLite backend)."""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Collection, Sequence
from typing import Any

from fieldhouse.model.records import RecordRow
from fieldhouse.storage.rows import advance_autonumber, dumps, loads, record_from_row

Conn = sqlite3.Connection
_NAMED = frozenset({"labels", "types"})
_RECORD_COLUMNS = (
    "id, account_id, module_id, display_name, fields, label_ids, type_ids, privacy_level,"
    " description_html, owner_user_id, created_at, updated_at, created_by, updated_by,"
    " created_by_name, updated_by_name, deleted_at"
)


def _marks(n: int) -> str:
    return ",".join("?" * n)


def insert_record(c: Conn, row: RecordRow) -> None:
    c.execute(
        f"INSERT INTO records ({_RECORD_COLUMNS}) VALUES ({_marks(17)})",
        (
            row.record_id,
            row.account_id,
            row.module_id,
            row.display_name,
            dumps(row.fields),
            dumps(row.label_ids),
            dumps(row.type_ids),
            row.privacy_level,
            row.description_html,
            row.owner_user_id,
            row.created_at,
            row.updated_at,
            row.created_by,
            row.updated_by,
            row.created_by_name,
            row.updated_by_name,
            row.deleted_at,
        ),
    )


def update_record(c: Conn, row: RecordRow) -> None:
    c.execute(
        "UPDATE records SET display_name = ?, fields = ?, label_ids = ?, type_ids = ?,"
        " updated_at = ?, updated_by = ?, updated_by_name = ?"
        " WHERE account_id = ? AND id = ? AND deleted_at IS NULL",
        (
            row.display_name,
            dumps(row.fields),
            dumps(row.label_ids),
            dumps(row.type_ids),
            row.updated_at,
            row.updated_by,
            row.updated_by_name,
            row.account_id,
            row.record_id,
        ),
    )


def get_records(
    c: Conn, account_id: str, ids: Collection[str], module_id: str | None = None
) -> list[RecordRow]:
    """Live (not deleted) records among ids, in no particular order."""
    if not ids:
        return []
    args: list[Any] = [account_id, *ids]
    sql = (
        f"SELECT {_RECORD_COLUMNS} FROM records WHERE account_id = ? AND id IN ({_marks(len(ids))})"
        " AND deleted_at IS NULL"
    )
    if module_id is not None:
        sql += " AND module_id = ?"
        args.append(module_id)
    return [record_from_row(r) for r in c.execute(sql, args)]


def soft_delete(
    c: Conn, account_id: str, module_id: str, ids: Sequence[str], at: str, by: str | None
) -> list[str]:
    if not ids:
        return []
    rows = c.execute(
        f"UPDATE records SET deleted_at = ?, updated_at = ?, updated_by = ?"
        f" WHERE account_id = ? AND module_id = ? AND id IN ({_marks(len(ids))})"
        " AND deleted_at IS NULL RETURNING id",
        (at, at, by, account_id, module_id, *ids),
    ).fetchall()
    return [r[0] for r in rows]


def set_links(
    c: Conn, account_id: str, source_id: str, field_slug: str, targets: Sequence[str]
) -> None:
    c.execute(
        "DELETE FROM record_links WHERE source_record_id = ? AND field_slug = ?",
        (source_id, field_slug),
    )
    c.executemany(
        "INSERT OR IGNORE INTO record_links (account_id, source_record_id, field_slug,"
        " target_record_id) VALUES (?, ?, ?, ?)",
        [(account_id, source_id, field_slug, t) for t in targets],
    )


def linked_targets(c: Conn, account_id: str, source_id: str, field_slug: str) -> list[str]:
    rows = c.execute(
        "SELECT l.target_record_id FROM record_links l JOIN records t"
        " ON t.id = l.target_record_id AND t.account_id = l.account_id AND t.deleted_at IS NULL"
        " WHERE l.account_id = ? AND l.source_record_id = ? AND l.field_slug = ?"
        " ORDER BY l.rowid",
        (account_id, source_id, field_slug),
    ).fetchall()
    return [r[0] for r in rows]


def linking_sources(c: Conn, account_id: str, target_ids: Collection[str]) -> list[tuple[str, str]]:
    """(source record id, field slug) of live records that link to any of target_ids."""
    if not target_ids:
        return []
    rows = c.execute(
        "SELECT DISTINCT l.source_record_id, l.field_slug FROM record_links l JOIN records s"
        " ON s.id = l.source_record_id AND s.deleted_at IS NULL"
        f" WHERE l.account_id = ? AND l.target_record_id IN ({_marks(len(target_ids))})",
        (account_id, *target_ids),
    ).fetchall()
    return [(r[0], r[1]) for r in rows]


def take_autonumber(c: Conn, account_id: str, field_id: str, sequence: str | None) -> int:
    """The field's next number (per sequence when given), advancing the stored counter."""
    row = c.execute(
        "SELECT config FROM fields WHERE account_id = ? AND id = ?", (account_id, field_id)
    ).fetchone()
    if row is None:
        raise LookupError(f"field {field_id} does not exist")
    config = loads(row[0]) or {}
    value = advance_autonumber(config, sequence)
    c.execute(
        "UPDATE fields SET config = ? WHERE account_id = ? AND id = ?",
        (dumps(config), account_id, field_id),
    )
    return value


def existing_ids(c: Conn, table: str, account_id: str, ids: Collection[str]) -> set[str]:
    assert table in _NAMED or table == "users"
    if not ids:
        return set()
    extra = " AND deleted_at IS NULL" if table == "users" else ""
    rows = c.execute(
        f"SELECT id FROM {table} WHERE account_id = ? AND id IN ({_marks(len(ids))}){extra}",
        (account_id, *ids),
    ).fetchall()
    return {r[0] for r in rows}


def record_modules(c: Conn, account_id: str, ids: Collection[str]) -> dict[str, tuple[str, str]]:
    """record id -> (module slug, display name) for live records among ids."""
    if not ids:
        return {}
    rows = c.execute(
        "SELECT r.id, m.slug, r.display_name FROM records r JOIN modules m ON m.id = r.module_id"
        f" WHERE r.account_id = ? AND r.id IN ({_marks(len(ids))}) AND r.deleted_at IS NULL",
        (account_id, *ids),
    ).fetchall()
    return {r[0]: (r[1], r[2]) for r in rows}


def list_records(
    c: Conn, where: str, params: Sequence[Any], order_by: str, limit: int, offset: int
) -> tuple[list[RecordRow], int]:
    total = int(c.execute(f"SELECT count(*) FROM records r WHERE {where}", params).fetchone()[0])
    rows = c.execute(
        f"SELECT {_RECORD_COLUMNS} FROM records r WHERE {where} ORDER BY {order_by}"
        " LIMIT ? OFFSET ?",
        (*params, limit, offset),
    ).fetchall()
    return [record_from_row(r) for r in rows], total


def picker(
    c: Conn, account_id: str, module_id: str, search: str | None, limit: int
) -> list[RecordRow]:
    sql = (
        f"SELECT {_RECORD_COLUMNS} FROM records WHERE account_id = ? AND module_id = ?"
        " AND deleted_at IS NULL"
    )
    args: list[Any] = [account_id, module_id]
    if search:
        escaped = search.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        sql += " AND lower(display_name) LIKE lower(?) ESCAPE '\\'"
        args.append(f"%{escaped}%")
    sql += " ORDER BY lower(display_name), id LIMIT ?"
    args.append(limit)
    return [record_from_row(r) for r in c.execute(sql, args)]


def list_activity(
    c: Conn,
    account_id: str,
    *,
    module_ids: Collection[str] | None,
    record_id: str | None,
    types: Collection[str],
    limit: int,
    after_seq: int | None = None,
) -> list[dict[str, Any]]:
    """Newest first; oldest first from after_seq on when it is given (the change feed).
    module_ids None means any module (and workspace-level entries)."""
    sql = "SELECT * FROM activity WHERE account_id = ?"
    args: list[Any] = [account_id]
    if after_seq is not None:
        sql += " AND seq > ?"
        args.append(after_seq)
    if module_ids is not None:
        sql += f" AND module_id IN ({_marks(len(module_ids))})" if module_ids else " AND 0"
        args.extend(module_ids)
    if record_id is not None:
        sql += " AND record_id = ?"
        args.append(record_id)
    if types:
        sql += f" AND activity_type IN ({_marks(len(types))})"
        args.extend(types)
    sql += " ORDER BY seq LIMIT ?" if after_seq is not None else " ORDER BY seq DESC LIMIT ?"
    args.append(limit)
    return [
        {
            "id": r["id"],
            "seq": r["seq"],
            "activityType": r["activity_type"],
            "moduleId": r["module_id"],
            "recordId": r["record_id"],
            "userId": r["user_id"],
            "createdDateTime": r["created_at"],
            "data": loads(r["data"]),
        }
        for r in c.execute(sql, args)
    ]


def _field_path(field_slug: str) -> str:
    """A JSON path naming one top-level key (slugs are kebab-case, so quoting is enough)."""
    return '$."' + field_slug.replace('"', "") + '"'


def records_lacking_field(
    c: Conn, account_id: str, module_id: str, field_slug: str | None
) -> list[RecordRow]:
    """Live records of a module without a (non-null) value under field_slug (all of them when
    field_slug is None), oldest first."""
    sql = (
        f"SELECT {_RECORD_COLUMNS} FROM records WHERE account_id = ? AND module_id = ?"
        " AND deleted_at IS NULL"
    )
    args: list[Any] = [account_id, module_id]
    if field_slug is not None:
        sql += " AND coalesce(json_type(fields, ?), 'null') = 'null'"
        args.append(_field_path(field_slug))
    rows = c.execute(sql + " ORDER BY created_at, id", args).fetchall()
    return [record_from_row(r) for r in rows]


def remove_field_values(c: Conn, account_id: str, module_id: str, field_slug: str) -> int:
    """Remove field_slug from the module's live records and their links under it."""
    path = _field_path(field_slug)
    changed = c.execute(
        "UPDATE records SET fields = json_remove(fields, ?) WHERE account_id = ?"
        " AND module_id = ? AND deleted_at IS NULL AND json_type(fields, ?) IS NOT NULL",
        (path, account_id, module_id, path),
    ).rowcount
    c.execute(
        "DELETE FROM record_links WHERE account_id = ? AND field_slug = ? AND source_record_id IN"
        " (SELECT id FROM records WHERE account_id = ? AND module_id = ?)",
        (account_id, field_slug, account_id, module_id),
    )
    return int(changed)


def create_expression_index(c: Conn, expr: str) -> None:
    """An index on one list-query expression (made by the query compiler from a checked field
    slug, never from request text), so filters and sorts on big modules avoid full scans."""
    column_expr = expr.replace("r.fields", "fields")
    name = "rx_" + hashlib.sha1(column_expr.encode()).hexdigest()[:16]
    c.execute(
        f"CREATE INDEX IF NOT EXISTS {name} ON records (account_id, module_id, ({column_expr}), id)"
        " WHERE deleted_at IS NULL"
    )


def activity_since(c: Conn, account_id: str, seq: int, limit: int) -> list[dict[str, Any]]:
    """Entries after ``seq``, oldest first (a range scan of the primary key)."""
    rows = c.execute(
        "SELECT id, seq, activity_type, module_id, record_id FROM activity"
        " WHERE account_id = ? AND seq > ? ORDER BY seq LIMIT ?",
        (account_id, seq, limit),
    )
    return [
        {
            "id": r["id"],
            "seq": r["seq"],
            "activityType": r["activity_type"],
            "moduleId": r["module_id"],
            "recordId": r["record_id"],
        }
        for r in rows
    ]
