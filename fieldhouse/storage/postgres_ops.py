"""SQL for the PostgreSQL backend: accounts, users, keys, schemas, labels, activity.

Coroutines here run on the asyncio side of trio-asyncio, each given one pooled connection;
:mod:`fieldhouse.storage.postgres` calls each through ``aio_as_trio``, so one call is one hop
between the loops however many statements it runs. JSON travels as text both ways (asyncpg's
default for ``jsonb``), exactly as it does on SQLite.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import asyncpg
from asyncpg.pool import PoolConnectionProxy

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

if TYPE_CHECKING:
    Conn = PoolConnectionProxy[asyncpg.Record]
else:
    Conn = PoolConnectionProxy

_COUNTERS = frozenset({"schema_version", "activity_seq"})
_SCOPED_TABLES = {
    "fields": "module_id",
    "views": "module_id",
    "module_references": "source_module_id",
}
_NAMED_TABLES = frozenset({"labels", "types"})


def workspace_lock_key(account_id: str) -> int:
    """The 64-bit advisory lock key of a workspace (stable across processes and versions)."""
    digest = hashlib.blake2b(account_id.encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


async def lock_workspace(c: Conn, account_id: str) -> None:
    # Under READ COMMITTED every later statement of the transaction takes a fresh snapshot,
    # so once the lock is held it sees all that the previous holder committed.
    await c.execute("SELECT pg_advisory_xact_lock($1)", workspace_lock_key(account_id))


async def create_account(c: Conn, account_id: str, name: str, slug: str, at: str) -> None:
    await c.execute(
        "INSERT INTO accounts (id, name, slug, created_at) VALUES ($1, $2, $3, $4)",
        account_id,
        name,
        slug,
        at,
    )


async def get_account(c: Conn, account_id: str) -> AccountRow | None:
    row = await c.fetchrow("SELECT * FROM accounts WHERE id = $1", account_id)
    return account_from_row(row) if row else None


async def list_accounts(c: Conn) -> list[AccountRow]:
    return [
        account_from_row(r) for r in await c.fetch("SELECT * FROM accounts ORDER BY created_at")
    ]


async def get_meta(c: Conn, key: str) -> str | None:
    value = await c.fetchval("SELECT value FROM meta WHERE key = $1", key)
    return None if value is None else str(value)


async def set_meta_if_absent(c: Conn, key: str, value: str) -> str:
    await c.execute(
        "INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING", key, value
    )
    return str(await c.fetchval("SELECT value FROM meta WHERE key = $1", key))


async def delete_meta(c: Conn, key: str) -> None:
    await c.execute("DELETE FROM meta WHERE key = $1", key)


async def bump_counter(c: Conn, column: str, account_id: str) -> int:
    assert column in _COUNTERS
    value = await c.fetchval(
        f"UPDATE accounts SET {column} = {column} + 1 WHERE id = $1 RETURNING {column}",
        account_id,
    )
    if value is None:
        raise LookupError(f"account {account_id} does not exist")
    return int(value)


async def schema_version(c: Conn, account_id: str) -> int:
    value = await c.fetchval("SELECT schema_version FROM accounts WHERE id = $1", account_id)
    return -1 if value is None else int(value)


async def insert_user(c: Conn, u: UserRow, created_at: str) -> None:
    await c.execute(
        "INSERT INTO users (id, account_id, email, display_name, role_slug, created_at)"
        " VALUES ($1, $2, $3, $4, $5, $6)",
        u.user_id,
        u.account_id,
        u.email,
        u.display_name,
        u.role_slug,
        created_at,
    )


async def get_user(c: Conn, account_id: str, user_id: str) -> UserRow | None:
    row = await c.fetchrow(
        "SELECT * FROM users WHERE account_id = $1 AND id = $2", account_id, user_id
    )
    return user_from_row(row) if row else None


async def owner_user_id(c: Conn, account_id: str) -> str | None:
    value = await c.fetchval(
        "SELECT id FROM users WHERE account_id = $1 AND role_slug = 'owner'"
        " AND deleted_at IS NULL ORDER BY created_at LIMIT 1",
        account_id,
    )
    return None if value is None else str(value)


async def insert_role(c: Conn, account_id: str, role: Role, created_at: str) -> None:
    await c.execute(
        "INSERT INTO roles (account_id, slug, can_view, can_edit, created_at)"
        " VALUES ($1, $2, $3, $4, $5)",
        account_id,
        role.slug,
        dumps(sorted(role.can_view or ())),
        dumps(sorted(role.can_edit or ())),
        created_at,
    )


async def get_role(c: Conn, account_id: str, slug: str) -> Role | None:
    row = await c.fetchrow(
        "SELECT * FROM roles WHERE account_id = $1 AND slug = $2", account_id, slug
    )
    if row is None:
        return None
    return Role(slug, frozenset(loads(row["can_view"])), frozenset(loads(row["can_edit"])))


async def insert_api_key(c: Conn, k: ApiKeyRow, prefix: str, created_at: str) -> None:
    await c.execute(
        "INSERT INTO api_keys (id, account_id, user_id, name, key_hash, prefix, scopes,"
        " created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
        k.key_id,
        k.account_id,
        k.user_id,
        k.name,
        k.key_hash,
        prefix,
        None if k.scopes is None else dumps(list(k.scopes)),
        created_at,
    )


async def delete_user(c: Conn, account_id: str, user_id: str, at: str) -> bool:
    status = await c.execute(
        "UPDATE users SET deleted_at = $1 WHERE account_id = $2 AND id = $3 AND deleted_at IS NULL",
        at,
        account_id,
        user_id,
    )
    return bool(status == "UPDATE 1")


async def revoke_api_key(c: Conn, account_id: str, key_id: str, at: str) -> bool:
    status = await c.execute(
        "UPDATE api_keys SET revoked_at = $1 WHERE account_id = $2 AND id = $3"
        " AND revoked_at IS NULL",
        at,
        account_id,
        key_id,
    )
    return status == "UPDATE 1"


async def find_key(c: Conn, key_id: str) -> ApiKeyRow | None:
    row = await c.fetchrow("SELECT * FROM api_keys WHERE id = $1", key_id)
    return key_from_row(row) if row else None


async def lookup_key(c: Conn, key_hash: str) -> KeyLookup | None:
    row = await c.fetchrow(
        "SELECT k.*, u.id AS u_id, u.account_id AS u_account_id, u.email AS u_email,"
        " u.display_name AS u_display_name, u.role_slug AS u_role_slug,"
        " u.deleted_at AS u_deleted_at, a.schema_version AS schema_version"
        " FROM api_keys k JOIN users u ON u.id = k.user_id AND u.account_id = k.account_id"
        " JOIN accounts a ON a.id = k.account_id WHERE k.key_hash = $1",
        key_hash,
    )
    if row is None:
        return None
    return KeyLookup(key_from_row(row), user_from_row(row, "u_"), int(row["schema_version"]))


async def insert_module(c: Conn, m: ModuleDef) -> None:
    await c.execute(
        "INSERT INTO modules (id, account_id, name, slug, is_active, template_slug,"
        " template_version, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
        m.module_id,
        m.account_id,
        m.name,
        m.slug,
        m.is_active,
        m.template_slug,
        m.template_version,
        m.created_at,
        m.updated_at,
    )


async def upsert_fields(c: Conn, account_id: str, fields: Sequence[FieldDef]) -> None:
    await c.executemany(
        "INSERT INTO fields (id, account_id, module_id, name, slug, label, data_type, config,"
        " is_required, is_system, privacy_level, sort_order, vendor_managed, created_at,"
        " updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)"
        " ON CONFLICT (account_id, id) DO UPDATE SET name = excluded.name,"
        " slug = excluded.slug, label = excluded.label, data_type = excluded.data_type,"
        " config = excluded.config, is_required = excluded.is_required,"
        " is_system = excluded.is_system, privacy_level = excluded.privacy_level,"
        " sort_order = excluded.sort_order, vendor_managed = excluded.vendor_managed,"
        " updated_at = excluded.updated_at",
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
                f.is_required,
                f.is_system,
                f.privacy_level,
                f.sort_order,
                f.vendor_managed,
                f.created_at,
                f.updated_at,
            )
            for f in fields
        ],
    )


async def upsert_views(c: Conn, account_id: str, views: Sequence[ViewDef]) -> None:
    await c.executemany(
        "INSERT INTO views (id, account_id, module_id, name, slug, config, vendor_managed,"
        " sort_order) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)"
        " ON CONFLICT (account_id, id) DO UPDATE SET name = excluded.name,"
        " slug = excluded.slug, config = excluded.config,"
        " vendor_managed = excluded.vendor_managed, sort_order = excluded.sort_order",
        [
            (
                v.view_id,
                account_id,
                v.module_id,
                v.name,
                v.slug,
                dumps(thaw_json(v.config)),
                v.vendor_managed,
                v.sort_order,
            )
            for v in views
        ],
    )


async def upsert_references(c: Conn, account_id: str, refs: Sequence[ReferenceDef]) -> None:
    await c.executemany(
        "INSERT INTO module_references (id, account_id, source_module_id, slug,"
        " source_field_id, source_field_slug, relationship_type, target_type,"
        " target_module_slug, target_filters, is_required, cascade_delete, cascade_update,"
        " vendor_managed) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)"
        " ON CONFLICT (account_id, id) DO UPDATE SET slug = excluded.slug,"
        " source_field_id = excluded.source_field_id,"
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
                r.is_required,
                r.cascade_delete,
                r.cascade_update,
                r.vendor_managed,
            )
            for r in refs
        ],
    )


async def delete_in(
    c: Conn, table: str, account_id: str, module_id: str, ids: Sequence[str]
) -> None:
    column = _SCOPED_TABLES[table]
    await c.execute(
        f"DELETE FROM {table} WHERE account_id = $1 AND {column} = $2 AND id = ANY($3::text[])",
        account_id,
        module_id,
        list(ids),
    )


async def load_schemas(c: Conn, account_id: str) -> tuple[int, dict[str, ModuleSchema]]:
    version = await schema_version(c, account_id)
    modules = await c.fetch(
        "SELECT * FROM modules WHERE account_id = $1 AND is_active ORDER BY created_at, slug",
        account_id,
    )
    fields = await c.fetch("SELECT * FROM fields WHERE account_id = $1", account_id)
    views = await c.fetch("SELECT * FROM views WHERE account_id = $1", account_id)
    refs = await c.fetch("SELECT * FROM module_references WHERE account_id = $1", account_id)
    return version, assemble_schemas(
        *(list(map(dict, rows)) for rows in (modules, fields, views, refs))
    )


async def insert_label(
    c: Conn, account_id: str, label_id: str, name: str, color: str | None, at: str
) -> None:
    await c.execute(
        "INSERT INTO labels (id, account_id, name, color, created_at) VALUES ($1, $2, $3, $4, $5)",
        label_id,
        account_id,
        name,
        color,
        at,
    )


async def insert_type(
    c: Conn,
    account_id: str,
    type_id: str,
    name: str,
    color: str | None,
    module_id: str | None,
    at: str,
) -> None:
    await c.execute(
        "INSERT INTO types (id, account_id, name, color, module_id, created_at)"
        " VALUES ($1, $2, $3, $4, $5, $6)",
        type_id,
        account_id,
        name,
        color,
        module_id,
        at,
    )


async def list_named(c: Conn, table: str, account_id: str) -> list[dict[str, Any]]:
    assert table in _NAMED_TABLES
    rows = await c.fetch(f"SELECT * FROM {table} WHERE account_id = $1 ORDER BY name", account_id)
    return [{k: v for k, v in r.items() if k != "account_id"} for r in rows]


async def append_activity(c: Conn, account_id: str, e: Mapping[str, Any]) -> int:
    """Take the next activity sequence number (a row update inside the caller's transaction,
    under the workspace lock) and store the entry under it."""
    seq = await bump_counter(c, "activity_seq", account_id)
    await c.execute(
        "INSERT INTO activity (account_id, seq, id, activity_type, module_id, record_id,"
        " user_id, created_at, data) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
        account_id,
        seq,
        e["id"],
        e["activityType"],
        e.get("moduleId"),
        e.get("recordId"),
        e.get("userId"),
        e["createdDateTime"],
        dumps(e.get("data") or {}),
    )
    return seq
