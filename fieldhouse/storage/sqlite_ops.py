"""Synchronous SQL for the SQLite backend; each function runs in a worker thread."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from typing import Any

from fieldhouse.model.principal import Role
from fieldhouse.model.schema import FieldDef, ModuleDef, ModuleSchema, ReferenceDef, ViewDef
from fieldhouse.storage.base import AccountRow, ApiKeyRow, KeyLookup, UserRow
from fieldhouse.storage.rows import (
    account_from_row,
    assemble_schemas,
    dumps,
    key_from_row,
    loads,
    thaw_json,
    user_from_row,
)

Conn = sqlite3.Connection

_COUNTERS = frozenset({"schema_version", "activity_seq"})
_SCOPED_TABLES = {
    "fields": "module_id",
    "views": "module_id",
    "module_references": "source_module_id",
}
_NAMED_TABLES = frozenset({"labels", "types"})


def begin(c: Conn) -> None:
    c.execute("BEGIN IMMEDIATE")


def commit(c: Conn) -> None:
    c.execute("COMMIT")


def rollback(c: Conn) -> None:
    if c.in_transaction:
        c.execute("ROLLBACK")


def execute(c: Conn, sql: str) -> None:
    c.execute(sql)


def create_account(c: Conn, account_id: str, name: str, slug: str, at: str) -> None:
    c.execute(
        "INSERT INTO accounts (id, name, slug, created_at) VALUES (?, ?, ?, ?)",
        (account_id, name, slug, at),
    )


def get_account(c: Conn, account_id: str) -> AccountRow | None:
    row = c.execute("SELECT * FROM accounts WHERE id = ?", (account_id,)).fetchone()
    return account_from_row(row) if row else None


def list_accounts(c: Conn) -> list[AccountRow]:
    return [account_from_row(r) for r in c.execute("SELECT * FROM accounts ORDER BY created_at")]


def get_meta(c: Conn, key: str) -> str | None:
    row = c.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return None if row is None else str(row[0])


def set_meta_if_absent(c: Conn, key: str, value: str) -> str:
    c.execute("INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)", (key, value))
    return str(c.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()[0])


def delete_meta(c: Conn, key: str) -> None:
    # secure_delete overwrites the value's bytes instead of leaving them in a free page
    c.execute("PRAGMA secure_delete = ON")
    try:
        c.execute("DELETE FROM meta WHERE key = ?", (key,))
    finally:
        c.execute("PRAGMA secure_delete = OFF")


def bump_counter(c: Conn, column: str, account_id: str) -> int:
    assert column in _COUNTERS
    row = c.execute(
        f"UPDATE accounts SET {column} = {column} + 1 WHERE id = ? RETURNING {column}",
        (account_id,),
    ).fetchone()
    if row is None:
        raise LookupError(f"account {account_id} does not exist")
    return int(row[0])


def schema_version(c: Conn, account_id: str) -> int:
    row = c.execute("SELECT schema_version FROM accounts WHERE id = ?", (account_id,)).fetchone()
    return -1 if row is None else int(row[0])


def insert_user(c: Conn, u: UserRow, created_at: str) -> None:
    c.execute(
        "INSERT INTO users (id, account_id, email, display_name, role_slug, created_at)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        (u.user_id, u.account_id, u.email, u.display_name, u.role_slug, created_at),
    )


def get_user(c: Conn, account_id: str, user_id: str) -> UserRow | None:
    row = c.execute(
        "SELECT * FROM users WHERE account_id = ? AND id = ?", (account_id, user_id)
    ).fetchone()
    return user_from_row(row) if row else None


def owner_user_id(c: Conn, account_id: str) -> str | None:
    row = c.execute(
        "SELECT id FROM users WHERE account_id = ? AND role_slug = 'owner' AND deleted_at IS NULL"
        " ORDER BY created_at LIMIT 1",
        (account_id,),
    ).fetchone()
    return None if row is None else str(row[0])


def insert_role(c: Conn, account_id: str, role: Role, created_at: str) -> None:
    c.execute(
        "INSERT INTO roles (account_id, slug, can_view, can_edit, created_at) VALUES (?,?,?,?,?)",
        (
            account_id,
            role.slug,
            dumps(sorted(role.can_view or ())),
            dumps(sorted(role.can_edit or ())),
            created_at,
        ),
    )


def get_role(c: Conn, account_id: str, slug: str) -> Role | None:
    row = c.execute(
        "SELECT * FROM roles WHERE account_id = ? AND slug = ?", (account_id, slug)
    ).fetchone()
    if row is None:
        return None
    return Role(slug, frozenset(loads(row["can_view"])), frozenset(loads(row["can_edit"])))


def insert_api_key(c: Conn, k: ApiKeyRow, prefix: str, created_at: str) -> None:
    c.execute(
        "INSERT INTO api_keys (id, account_id, user_id, name, key_hash, prefix, scopes, created_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (
            k.key_id,
            k.account_id,
            k.user_id,
            k.name,
            k.key_hash,
            prefix,
            None if k.scopes is None else dumps(list(k.scopes)),
            created_at,
        ),
    )


def delete_user(c: Conn, account_id: str, user_id: str, at: str) -> bool:
    cur = c.execute(
        "UPDATE users SET deleted_at = ? WHERE account_id = ? AND id = ? AND deleted_at IS NULL",
        (at, account_id, user_id),
    )
    return cur.rowcount == 1


def revoke_api_key(c: Conn, account_id: str, key_id: str, at: str) -> bool:
    cur = c.execute(
        "UPDATE api_keys SET revoked_at = ? WHERE account_id = ? AND id = ? AND revoked_at IS NULL",
        (at, account_id, key_id),
    )
    return cur.rowcount == 1


def find_key(c: Conn, key_id: str) -> ApiKeyRow | None:
    row = c.execute("SELECT * FROM api_keys WHERE id = ?", (key_id,)).fetchone()
    return key_from_row(row) if row else None


def lookup_key(c: Conn, key_hash: str) -> KeyLookup | None:
    row = c.execute(
        "SELECT k.*, u.id AS u_id, u.account_id AS u_account_id, u.email AS u_email,"
        " u.display_name AS u_display_name, u.role_slug AS u_role_slug,"
        " u.deleted_at AS u_deleted_at, a.schema_version AS schema_version"
        " FROM api_keys k JOIN users u ON u.id = k.user_id AND u.account_id = k.account_id"
        " JOIN accounts a ON a.id = k.account_id WHERE k.key_hash = ?",
        (key_hash,),
    ).fetchone()
    if row is None:
        return None
    return KeyLookup(key_from_row(row), user_from_row(row, "u_"), int(row["schema_version"]))


def insert_module(c: Conn, m: ModuleDef) -> None:
    c.execute(
        "INSERT INTO modules (id, account_id, name, slug, is_active, template_slug,"
        " template_version, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            m.module_id,
            m.account_id,
            m.name,
            m.slug,
            int(m.is_active),
            m.template_slug,
            m.template_version,
            m.created_at,
            m.updated_at,
        ),
    )


def upsert_fields(c: Conn, account_id: str, fields: Sequence[FieldDef]) -> None:
    c.executemany(
        "INSERT INTO fields (id, account_id, module_id, name, slug, label, data_type, config,"
        " is_required, is_system, privacy_level, sort_order, vendor_managed, created_at,"
        " updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
        " ON CONFLICT (id) DO UPDATE SET name = excluded.name, slug = excluded.slug,"
        " label = excluded.label, data_type = excluded.data_type, config = excluded.config,"
        " is_required = excluded.is_required, is_system = excluded.is_system,"
        " privacy_level = excluded.privacy_level, sort_order = excluded.sort_order,"
        " vendor_managed = excluded.vendor_managed, updated_at = excluded.updated_at",
        [
            (
                f.field_id,
                account_id,
                f.module_id,
                f.name,
                f.slug,
                f.label,
                f.data_type,
                dumps(thaw_json(f.config)),
                int(f.is_required),
                int(f.is_system),
                f.privacy_level,
                f.sort_order,
                int(f.vendor_managed),
                f.created_at,
                f.updated_at,
            )
            for f in fields
        ],
    )


def upsert_views(c: Conn, account_id: str, views: Sequence[ViewDef]) -> None:
    c.executemany(
        "INSERT INTO views (id, account_id, module_id, name, slug, config, vendor_managed,"
        " sort_order) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET"
        " name = excluded.name, slug = excluded.slug, config = excluded.config,"
        " vendor_managed = excluded.vendor_managed, sort_order = excluded.sort_order",
        [
            (
                v.view_id,
                account_id,
                v.module_id,
                v.name,
                v.slug,
                dumps(thaw_json(v.config)),
                int(v.vendor_managed),
                v.sort_order,
            )
            for v in views
        ],
    )


def upsert_references(c: Conn, account_id: str, refs: Sequence[ReferenceDef]) -> None:
    c.executemany(
        "INSERT INTO module_references (id, account_id, source_module_id, slug, source_field_id,"
        " source_field_slug, relationship_type, target_type, target_module_slug, target_filters,"
        " is_required, cascade_delete, cascade_update, vendor_managed)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET"
        " slug = excluded.slug, source_field_id = excluded.source_field_id,"
        " source_field_slug = excluded.source_field_slug,"
        " relationship_type = excluded.relationship_type, target_type = excluded.target_type,"
        " target_module_slug = excluded.target_module_slug,"
        " target_filters = excluded.target_filters, is_required = excluded.is_required,"
        " cascade_delete = excluded.cascade_delete, cascade_update = excluded.cascade_update,"
        " vendor_managed = excluded.vendor_managed",
        [
            (
                r.reference_id,
                account_id,
                r.source_module_id,
                r.slug,
                r.source_field_id,
                r.source_field_slug,
                r.relationship_type,
                r.target_type,
                r.target_module_slug,
                None if r.target_filters is None else dumps(thaw_json(r.target_filters)),
                int(r.is_required),
                int(r.cascade_delete),
                int(r.cascade_update),
                int(r.vendor_managed),
            )
            for r in refs
        ],
    )


def delete_in(c: Conn, table: str, account_id: str, module_id: str, ids: Sequence[str]) -> None:
    column = _SCOPED_TABLES[table]
    c.executemany(
        f"DELETE FROM {table} WHERE account_id = ? AND {column} = ? AND id = ?",
        [(account_id, module_id, i) for i in ids],
    )


def load_schemas(c: Conn, account_id: str) -> tuple[int, dict[str, ModuleSchema]]:
    version = schema_version(c, account_id)
    args = (account_id,)
    modules = c.execute(
        "SELECT * FROM modules WHERE account_id = ? AND is_active = 1 ORDER BY created_at, slug",
        args,
    ).fetchall()
    fields = c.execute("SELECT * FROM fields WHERE account_id = ?", args).fetchall()
    views = c.execute("SELECT * FROM views WHERE account_id = ?", args).fetchall()
    refs = c.execute("SELECT * FROM module_references WHERE account_id = ?", args).fetchall()
    return version, assemble_schemas(modules, fields, views, refs)


def insert_label(
    c: Conn, account_id: str, label_id: str, name: str, color: str | None, at: str
) -> None:
    c.execute(
        "INSERT INTO labels (id, account_id, name, color, created_at) VALUES (?, ?, ?, ?, ?)",
        (label_id, account_id, name, color, at),
    )


def insert_type(
    c: Conn,
    account_id: str,
    type_id: str,
    name: str,
    color: str | None,
    module_id: str | None,
    at: str,
) -> None:
    c.execute(
        "INSERT INTO types (id, account_id, name, color, module_id, created_at)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        (type_id, account_id, name, color, module_id, at),
    )


def list_named(c: Conn, table: str, account_id: str) -> list[dict[str, Any]]:
    assert table in _NAMED_TABLES
    rows = c.execute(
        f"SELECT * FROM {table} WHERE account_id = ? ORDER BY name", (account_id,)
    ).fetchall()
    return [{k: r[k] for k in r.keys() if k != "account_id"} for r in rows]  # noqa: SIM118


def append_activity(c: Conn, account_id: str, e: Mapping[str, Any]) -> int:
    seq = bump_counter(c, "activity_seq", account_id)
    c.execute(
        "INSERT INTO activity (account_id, seq, id, activity_type, module_id, record_id,"
        " user_id, created_at, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            account_id,
            seq,
            e["id"],
            e["activityType"],
            e.get("moduleId"),
            e.get("recordId"),
            e.get("userId"),
            e["createdDateTime"],
            dumps(e.get("data") or {}),
        ),
    )
    return seq
