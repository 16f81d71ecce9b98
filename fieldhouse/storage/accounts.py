"""Operations on accounts, meta, users, roles, API keys, labels, types and rate windows."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from fieldhouse.model.principal import Role
from fieldhouse.storage.base import (
    AccountRow,
    ApiKeyRow,
    KeyLookup,
    Op,
    UserRow,
    count,
    execute,
    row,
    rows,
    value,
)
from fieldhouse.storage.rows import (
    KEY_LISTING,
    USER_LISTING,
    account_from_row,
    dumps,
    key_from_row,
    key_listing,
    loads,
    user_from_row,
    user_listing,
)
from fieldhouse.storage.sqldialect import Dialect

_COUNTERS = frozenset({"schema_version", "activity_seq"})
_NAMED = frozenset({"labels", "types"})


def create_account(account_id: str, name: str, slug: str, at: str) -> Op[None]:
    yield execute(
        "INSERT INTO accounts (id, name, slug, created_at) VALUES (?, ?, ?, ?)",
        (account_id, name, slug, at),
    )


def get_account(account_id: str) -> Op[AccountRow | None]:
    r = yield row("SELECT * FROM accounts WHERE id = ?", (account_id,))
    return account_from_row(r) if r else None


def list_accounts() -> Op[list[AccountRow]]:
    found = yield rows("SELECT * FROM accounts ORDER BY created_at")
    return [account_from_row(r) for r in found]


def get_meta(key: str) -> Op[str | None]:
    v = yield value("SELECT value FROM meta WHERE key = ?", (key,))
    return None if v is None else str(v)


def set_meta_if_absent(key: str, v: str) -> Op[str]:
    yield execute("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT DO NOTHING", (key, v))
    return str((yield value("SELECT value FROM meta WHERE key = ?", (key,))))


def delete_meta(d: Dialect, key: str) -> Op[None]:
    """Remove key and its value; on SQLite the value's bytes are overwritten, not left in a
    free page (``secure_delete``)."""
    if d.name == "sqlite":
        yield execute("PRAGMA secure_delete = ON")
    try:
        yield execute("DELETE FROM meta WHERE key = ?", (key,))
    finally:
        if d.name == "sqlite":
            yield execute("PRAGMA secure_delete = OFF")


def bump_counter(account_id: str, column: str) -> Op[int]:
    """Advance one of the account's counters (a row update inside the caller's transaction,
    under the workspace lock) and return its new value."""
    assert column in _COUNTERS
    v = yield value(
        f"UPDATE accounts SET {column} = {column} + 1 WHERE id = ? RETURNING {column}",
        (account_id,),
    )
    if v is None:
        raise LookupError(f"account {account_id} does not exist")
    return int(v)


def counters(account_id: str) -> Op[tuple[int, int]]:
    """The account's schema version and last activity sequence number, read together."""
    r = yield row("SELECT schema_version, activity_seq FROM accounts WHERE id = ?", (account_id,))
    return (-1, 0) if r is None else (int(r[0]), int(r[1]))


def set_activity_seq(account_id: str, seq: int) -> Op[None]:
    """Store the account's last activity sequence number (advanced in memory by the writer
    holding the workspace lock)."""
    yield execute("UPDATE accounts SET activity_seq = ? WHERE id = ?", (seq, account_id))


def schema_version(account_id: str) -> Op[int]:
    v = yield value("SELECT schema_version FROM accounts WHERE id = ?", (account_id,))
    return -1 if v is None else int(v)


def insert_user(u: UserRow, created_at: str) -> Op[None]:
    yield execute(
        "INSERT INTO users (id, account_id, email, display_name, role_slug, created_at)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        (u.user_id, u.account_id, u.email, u.display_name, u.role_slug, created_at),
    )


def get_user(account_id: str, user_id: str) -> Op[UserRow | None]:
    r = yield row("SELECT * FROM users WHERE account_id = ? AND id = ?", (account_id, user_id))
    return user_from_row(r) if r else None


def owner_user_id(account_id: str) -> Op[str | None]:
    v = yield value(
        "SELECT id FROM users WHERE account_id = ? AND role_slug = 'owner'"
        " AND deleted_at IS NULL ORDER BY created_at LIMIT 1",
        (account_id,),
    )
    return None if v is None else str(v)


def delete_user(account_id: str, user_id: str, at: str) -> Op[bool]:
    n = yield count(
        "UPDATE users SET deleted_at = ? WHERE account_id = ? AND id = ? AND deleted_at IS NULL",
        (at, account_id, user_id),
    )
    return bool(n == 1)


def insert_role(account_id: str, role: Role, created_at: str) -> Op[None]:
    yield execute(
        "INSERT INTO roles (account_id, slug, can_view, can_edit, created_at)"
        " VALUES (?, ?, ?, ?, ?)",
        (
            account_id,
            role.slug,
            dumps(sorted(role.can_view or ())),
            dumps(sorted(role.can_edit or ())),
            created_at,
        ),
    )


def get_role(account_id: str, slug: str) -> Op[Role | None]:
    r = yield row("SELECT * FROM roles WHERE account_id = ? AND slug = ?", (account_id, slug))
    if r is None:
        return None
    return Role(slug, frozenset(loads(r["can_view"])), frozenset(loads(r["can_edit"])))


def insert_api_key(k: ApiKeyRow, prefix: str, created_at: str) -> Op[None]:
    yield execute(
        "INSERT INTO api_keys (id, account_id, user_id, name, key_hash, prefix, scopes,"
        " role_slug, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            k.key_id,
            k.account_id,
            k.user_id,
            k.name,
            k.key_hash,
            prefix,
            None if k.scopes is None else dumps(list(k.scopes)),
            k.role_slug,
            created_at,
        ),
    )


def revoke_api_key(account_id: str, key_id: str, at: str) -> Op[bool]:
    n = yield count(
        "UPDATE api_keys SET revoked_at = ? WHERE account_id = ? AND id = ? AND revoked_at IS NULL",
        (at, account_id, key_id),
    )
    return bool(n == 1)


def find_key(key_id: str) -> Op[ApiKeyRow | None]:
    r = yield row("SELECT * FROM api_keys WHERE id = ?", (key_id,))
    return key_from_row(r) if r else None


def user_and_key(
    account_id: str, user_id: str, key_id: str | None
) -> Op[tuple[UserRow | None, ApiKeyRow | None]]:
    """:func:`get_user` and, when ``key_id`` is given and the user is there, :func:`find_key`:
    one read where the workspace actor checks who may write (one pass through the driver, not
    two)."""
    user = yield from get_user(account_id, user_id)
    if user is None or key_id is None:
        return user, None
    key = yield from find_key(key_id)
    return user, key


def lookup_key(key_hash: str) -> Op[KeyLookup | None]:
    r = yield row(
        "SELECT k.*, u.id AS u_id, u.account_id AS u_account_id, u.email AS u_email,"
        " u.display_name AS u_display_name, u.role_slug AS u_role_slug,"
        " u.deleted_at AS u_deleted_at, a.schema_version AS schema_version"
        " FROM api_keys k JOIN users u ON u.id = k.user_id AND u.account_id = k.account_id"
        " JOIN accounts a ON a.id = k.account_id WHERE k.key_hash = ?",
        (key_hash,),
    )
    if r is None:
        return None
    return KeyLookup(key_from_row(r), user_from_row(r, "u_"), int(r["schema_version"]))


def insert_label(account_id: str, label_id: str, name: str, color: str | None, at: str) -> Op[None]:
    yield execute(
        "INSERT INTO labels (id, account_id, name, color, created_at) VALUES (?, ?, ?, ?, ?)",
        (label_id, account_id, name, color, at),
    )


def insert_type(
    account_id: str, type_id: str, name: str, color: str | None, module_id: str | None, at: str
) -> Op[None]:
    yield execute(
        "INSERT INTO types (id, account_id, name, color, module_id, created_at)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        (type_id, account_id, name, color, module_id, at),
    )


def list_named(table: str, account_id: str) -> Op[list[dict[str, Any]]]:
    assert table in _NAMED
    found = yield rows(f"SELECT * FROM {table} WHERE account_id = ? ORDER BY name", (account_id,))
    return [{k: r[k] for k in r.keys() if k != "account_id"} for r in found]  # noqa: SIM118


def label_names(account_id: str) -> Op[dict[str, str]]:
    """label id -> name: what a record's labels read as in its search text."""
    found = yield from list_named("labels", account_id)
    return {str(x["id"]): str(x["name"]) for x in found}


def existing_ids(table: str, account_id: str, ids: Collection[str]) -> Op[set[str]]:
    """Which of ids exist in labels, types or (live) users of this workspace."""
    assert table in _NAMED or table == "users"
    if not ids:
        return set()
    live = " AND deleted_at IS NULL" if table == "users" else ""
    found = yield rows(
        f"SELECT id FROM {table} WHERE account_id = ? AND id = ANY(?){live}",
        (account_id, list(ids)),
    )
    return {r[0] for r in found}


def hit_rate_limit(bucket: str, window_start: int) -> Op[int]:
    """Count one hit in the bucket's window; return the window's count including it."""
    n = yield value(
        "INSERT INTO rate_windows (bucket, window_start, hits) VALUES (?, ?, 1)"
        " ON CONFLICT (bucket, window_start) DO UPDATE SET hits = rate_windows.hits + 1"
        " RETURNING hits",
        (bucket, window_start),
    )
    return int(n)


def prune_rate_windows(before: int) -> Op[None]:
    yield execute("DELETE FROM rate_windows WHERE window_start < ?", (before,))


def list_users(account_id: str) -> Op[list[dict[str, Any]]]:
    found = yield rows(
        f"SELECT {USER_LISTING} FROM users WHERE account_id = ? ORDER BY created_at, id",
        (account_id,),
    )
    return [user_listing(r) for r in found]


def list_api_keys(account_id: str) -> Op[list[dict[str, Any]]]:
    found = yield rows(
        f"SELECT {KEY_LISTING} FROM api_keys WHERE account_id = ? ORDER BY created_at, id",
        (account_id,),
    )
    return [key_listing(r) for r in found]
