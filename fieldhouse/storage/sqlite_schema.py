"""SQLite schema migrations, applied in order and tracked in PRAGMA user_version."""

from __future__ import annotations

import sqlite3

from fieldhouse.storage.objects import OBJECTS_SQLITE

MIGRATIONS: tuple[str, ...] = (
    # 1: the foundation
    """
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE accounts (
        id TEXT PRIMARY KEY, name TEXT NOT NULL, slug TEXT NOT NULL UNIQUE,
        schema_version INTEGER NOT NULL DEFAULT 0, activity_seq INTEGER NOT NULL DEFAULT 0,
        created_at TEXT NOT NULL);
    CREATE TABLE users (
        id TEXT PRIMARY KEY, account_id TEXT NOT NULL, email TEXT NOT NULL,
        display_name TEXT NOT NULL, role_slug TEXT NOT NULL, created_at TEXT NOT NULL,
        deleted_at TEXT, UNIQUE (account_id, email));
    CREATE TABLE roles (
        account_id TEXT NOT NULL, slug TEXT NOT NULL, can_view TEXT NOT NULL,
        can_edit TEXT NOT NULL, created_at TEXT NOT NULL, PRIMARY KEY (account_id, slug));
    CREATE TABLE api_keys (
        id TEXT PRIMARY KEY, account_id TEXT NOT NULL, user_id TEXT NOT NULL, name TEXT,
        key_hash TEXT NOT NULL UNIQUE, prefix TEXT NOT NULL, scopes TEXT,
        created_at TEXT NOT NULL, revoked_at TEXT);
    CREATE TABLE modules (
        id TEXT PRIMARY KEY, account_id TEXT NOT NULL, name TEXT NOT NULL, slug TEXT NOT NULL,
        is_active INTEGER NOT NULL DEFAULT 1, template_slug TEXT, template_version TEXT,
        created_at TEXT NOT NULL, updated_at TEXT NOT NULL, UNIQUE (account_id, slug));
    CREATE TABLE fields (
        id TEXT PRIMARY KEY, account_id TEXT NOT NULL, module_id TEXT NOT NULL,
        name TEXT NOT NULL, slug TEXT NOT NULL, label TEXT NOT NULL, data_type TEXT NOT NULL,
        config TEXT NOT NULL, is_required INTEGER NOT NULL, is_system INTEGER NOT NULL,
        privacy_level TEXT NOT NULL, sort_order INTEGER NOT NULL,
        vendor_managed INTEGER NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
        UNIQUE (module_id, slug));
    CREATE TABLE views (
        id TEXT PRIMARY KEY, account_id TEXT NOT NULL, module_id TEXT NOT NULL,
        name TEXT NOT NULL, slug TEXT NOT NULL, config TEXT NOT NULL,
        vendor_managed INTEGER NOT NULL, sort_order INTEGER NOT NULL,
        UNIQUE (module_id, slug));
    CREATE TABLE module_references (
        id TEXT PRIMARY KEY, account_id TEXT NOT NULL, source_module_id TEXT NOT NULL,
        slug TEXT NOT NULL, source_field_id TEXT, source_field_slug TEXT,
        relationship_type TEXT NOT NULL, target_type TEXT NOT NULL, target_module_slug TEXT,
        target_filters TEXT, is_required INTEGER NOT NULL, cascade_delete INTEGER NOT NULL,
        cascade_update INTEGER NOT NULL, vendor_managed INTEGER NOT NULL,
        UNIQUE (source_module_id, slug));
    CREATE TABLE records (
        id TEXT PRIMARY KEY, account_id TEXT NOT NULL, module_id TEXT NOT NULL,
        display_name TEXT NOT NULL, fields TEXT NOT NULL DEFAULT '{}',
        label_ids TEXT NOT NULL DEFAULT '[]', type_ids TEXT NOT NULL DEFAULT '[]',
        privacy_level TEXT NOT NULL DEFAULT 'account', description_html TEXT,
        owner_user_id TEXT, created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
        created_by TEXT, updated_by TEXT, created_by_name TEXT, updated_by_name TEXT,
        deleted_at TEXT);
    CREATE INDEX records_by_module ON records (account_id, module_id, created_at, id)
        WHERE deleted_at IS NULL;
    CREATE TABLE record_links (
        account_id TEXT NOT NULL, source_record_id TEXT NOT NULL, field_slug TEXT NOT NULL,
        target_record_id TEXT NOT NULL,
        PRIMARY KEY (source_record_id, field_slug, target_record_id));
    CREATE INDEX record_links_target ON record_links (account_id, target_record_id);
    CREATE TABLE labels (
        id TEXT PRIMARY KEY, account_id TEXT NOT NULL, name TEXT NOT NULL, color TEXT,
        created_at TEXT NOT NULL, UNIQUE (account_id, name));
    CREATE TABLE types (
        id TEXT PRIMARY KEY, account_id TEXT NOT NULL, name TEXT NOT NULL, color TEXT,
        module_id TEXT, created_at TEXT NOT NULL, UNIQUE (account_id, name));
    CREATE TABLE activity (
        account_id TEXT NOT NULL, seq INTEGER NOT NULL, id TEXT NOT NULL,
        activity_type TEXT NOT NULL, module_id TEXT, record_id TEXT, user_id TEXT,
        created_at TEXT NOT NULL, data TEXT NOT NULL, PRIMARY KEY (account_id, seq));
    CREATE INDEX activity_by_module ON activity (account_id, module_id, seq);
    CREATE INDEX activity_by_record ON activity (account_id, record_id, seq);
    """,
    # 2: workspace objects (agents, runs, approvals, outbox, reminders, pages, ...)
    OBJECTS_SQLITE,
)


def migrate(conn: sqlite3.Connection) -> int:
    """Bring the database to the newest schema; return the version it is at."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        version = int(conn.execute("PRAGMA user_version").fetchone()[0])
        for index in range(version, len(MIGRATIONS)):
            for statement in MIGRATIONS[index].split(";"):
                if statement.strip():
                    conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {index + 1}")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return len(MIGRATIONS)
