"""Schema migrations of both engines, applied in order.

SQLite tracks its version in ``PRAGMA user_version``, PostgreSQL in ``schema_migrations``.
The tables and columns are those of the SQLite schema with PostgreSQL types: JSON documents
are ``jsonb``, timestamps stay ISO-8601 text (so ordering and the list-query compiler behave
as on SQLite) and text that is sorted uses the "C" collation (byte order, as SQLite does),
whatever the database's default collation is.

Every workspace table is keyed and indexed with ``account_id`` first, so a distributed
PostgreSQL (Citus) can distribute them all on ``account_id`` and keep one workspace's rows,
and its transactions, on one node. ``meta``, ``accounts``, ``api_keys`` (looked up by key hash
before the account is known) and ``rate_windows`` are small cross-workspace tables: reference
tables there.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from fieldhouse.storage.aggregate_triggers import MIGRATION as KEPT_AGGREGATES
from fieldhouse.storage.aggregate_triggers import SQLITE_MIGRATION as SQLITE_KEPT_AGGREGATES
from fieldhouse.storage.facets import MIGRATION as FACETS
from fieldhouse.storage.facets import SQLITE_MIGRATION as SQLITE_FACETS
from fieldhouse.storage.fulltext_postgres import MIGRATION as FULLTEXT
from fieldhouse.storage.vectors import MIGRATION as VECTORS

#: the search index is filled from the records by the next start (fieldhouse.search.build)
REBUILD = "INSERT INTO meta (key, value) VALUES ('search_rebuild', 'needed') ON CONFLICT DO NOTHING"
#: a constant advisory lock key that serialises PostgreSQL migrations between processes
_MIGRATION_LOCK = 0x46484D4947  # "FHMIG"

SQLITE: tuple[str, ...] = (
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
    """
    CREATE TABLE objects (
        account_id TEXT NOT NULL, kind TEXT NOT NULL, id TEXT NOT NULL, data TEXT NOT NULL,
        status TEXT, due_at TEXT, created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
        PRIMARY KEY (account_id, kind, id));
    CREATE INDEX objects_by_status ON objects (account_id, kind, status, created_at);
    CREATE INDEX objects_due ON objects (kind, status, due_at) WHERE due_at IS NOT NULL
    """,
    # 3: the statements are written once for both engines: upserts name (account_id, id) as
    # PostgreSQL keys them, and links keep their position as a column (read in its order)
    """
    CREATE UNIQUE INDEX fields_account_id ON fields (account_id, id);
    CREATE UNIQUE INDEX views_account_id ON views (account_id, id);
    CREATE UNIQUE INDEX module_references_account_id ON module_references (account_id, id);
    ALTER TABLE record_links ADD COLUMN position INTEGER NOT NULL DEFAULT 0;
    UPDATE record_links SET position = rowid;
    CREATE INDEX record_links_source ON record_links (source_record_id, field_slug, position)
    """,
    # 4: sentence vectors, embedded once per record version by whichever process claims them
    # (storage/vectors.py); the other processes read them from here
    """
    CREATE TABLE search_vectors (
        account_id TEXT NOT NULL, record_id TEXT NOT NULL, stamp TEXT NOT NULL,
        model TEXT NOT NULL, vector BLOB, claimed_at REAL NOT NULL,
        PRIMARY KEY (account_id, record_id, stamp, model))
    """,
    # 5: objects of one kind across workspaces (the webhook dispatcher's active hooks)
    "CREATE INDEX objects_by_kind ON objects (kind, status, account_id, id)",
    # 6: a workspace's keys without reading every workspace's (PostgreSQL has it from 1)
    "CREATE INDEX api_keys_by_account ON api_keys (account_id, id)",
    # 7: list totals kept per module and per single-choice value (storage/facets.py; as
    # POSTGRES[2])
    SQLITE_FACETS,
    # 8: search in the store: records waiting for their vectors, the vectors themselves, and
    # each workspace's keyword tables (storage/fulltext_sqlite.py), filled by the first start
    VECTORS + ";" + REBUILD,
    # 9: archived fields (hidden, refused on writes, their values kept; as POSTGRES[6])
    "ALTER TABLE fields ADD COLUMN archived_at TEXT",
    # 10: aggregates kept by triggers (storage/aggregate_triggers.py); each is backfilled from the
    # records when a query first registers it
    SQLITE_KEPT_AGGREGATES,
    # 11: a key's own role, lower than its user's (POST /api/keys; as the PostgreSQL step 9)
    "ALTER TABLE api_keys ADD COLUMN role_slug TEXT",
)

POSTGRES: tuple[str, ...] = (
    # 1: the foundation (mirrors SQLITE[0])
    """
    CREATE TABLE meta (key text PRIMARY KEY, value text NOT NULL);
    CREATE TABLE accounts (
        id text PRIMARY KEY, name text NOT NULL, slug text NOT NULL UNIQUE,
        schema_version bigint NOT NULL DEFAULT 0, activity_seq bigint NOT NULL DEFAULT 0,
        created_at text COLLATE "C" NOT NULL);
    CREATE TABLE users (
        account_id text NOT NULL, id text NOT NULL, email text NOT NULL,
        display_name text NOT NULL, role_slug text NOT NULL,
        created_at text COLLATE "C" NOT NULL, deleted_at text,
        PRIMARY KEY (account_id, id), UNIQUE (account_id, email));
    CREATE TABLE roles (
        account_id text NOT NULL, slug text NOT NULL, can_view jsonb NOT NULL,
        can_edit jsonb NOT NULL, created_at text NOT NULL, PRIMARY KEY (account_id, slug));
    CREATE TABLE api_keys (
        id text PRIMARY KEY, account_id text NOT NULL, user_id text NOT NULL, name text,
        key_hash text NOT NULL UNIQUE, prefix text NOT NULL, scopes jsonb,
        created_at text NOT NULL, revoked_at text);
    CREATE INDEX api_keys_by_account ON api_keys (account_id, id);
    CREATE TABLE modules (
        account_id text NOT NULL, id text NOT NULL, name text NOT NULL,
        slug text COLLATE "C" NOT NULL, is_active boolean NOT NULL DEFAULT true,
        template_slug text, template_version text, created_at text COLLATE "C" NOT NULL,
        updated_at text NOT NULL, PRIMARY KEY (account_id, id), UNIQUE (account_id, slug));
    CREATE TABLE fields (
        account_id text NOT NULL, id text NOT NULL, module_id text NOT NULL,
        name text NOT NULL, slug text NOT NULL, label text NOT NULL, data_type text NOT NULL,
        config jsonb NOT NULL, is_required boolean NOT NULL, is_system boolean NOT NULL,
        privacy_level text NOT NULL, sort_order integer NOT NULL,
        vendor_managed boolean NOT NULL, created_at text NOT NULL, updated_at text NOT NULL,
        PRIMARY KEY (account_id, id), UNIQUE (account_id, module_id, slug));
    CREATE TABLE views (
        account_id text NOT NULL, id text NOT NULL, module_id text NOT NULL,
        name text NOT NULL, slug text NOT NULL, config jsonb NOT NULL,
        vendor_managed boolean NOT NULL, sort_order integer NOT NULL,
        PRIMARY KEY (account_id, id), UNIQUE (account_id, module_id, slug));
    CREATE TABLE module_references (
        account_id text NOT NULL, id text NOT NULL, source_module_id text NOT NULL,
        slug text NOT NULL, source_field_id text, source_field_slug text,
        relationship_type text NOT NULL, target_type text NOT NULL, target_module_slug text,
        target_filters jsonb, is_required boolean NOT NULL, cascade_delete boolean NOT NULL,
        cascade_update boolean NOT NULL, vendor_managed boolean NOT NULL,
        PRIMARY KEY (account_id, id), UNIQUE (account_id, source_module_id, slug));
    CREATE TABLE records (
        account_id text NOT NULL, id text COLLATE "C" NOT NULL, module_id text NOT NULL,
        display_name text COLLATE "C" NOT NULL, fields jsonb NOT NULL DEFAULT '{}',
        label_ids jsonb NOT NULL DEFAULT '[]', type_ids jsonb NOT NULL DEFAULT '[]',
        privacy_level text NOT NULL DEFAULT 'account', description_html text,
        owner_user_id text, created_at text COLLATE "C" NOT NULL,
        updated_at text COLLATE "C" NOT NULL, created_by text, updated_by text,
        created_by_name text, updated_by_name text, deleted_at text,
        PRIMARY KEY (account_id, id));
    CREATE INDEX records_by_module ON records
        (account_id, module_id, created_at DESC, id DESC) WHERE deleted_at IS NULL;
    CREATE INDEX records_by_name ON records
        (account_id, module_id, lower(display_name), id) WHERE deleted_at IS NULL;
    CREATE TABLE record_links (
        account_id text NOT NULL, source_record_id text NOT NULL, field_slug text NOT NULL,
        target_record_id text NOT NULL, position integer NOT NULL,
        PRIMARY KEY (account_id, source_record_id, field_slug, target_record_id));
    CREATE INDEX record_links_target ON record_links (account_id, target_record_id);
    CREATE TABLE labels (
        account_id text NOT NULL, id text NOT NULL, name text COLLATE "C" NOT NULL,
        color text, created_at text NOT NULL,
        PRIMARY KEY (account_id, id), UNIQUE (account_id, name));
    CREATE TABLE types (
        account_id text NOT NULL, id text NOT NULL, name text COLLATE "C" NOT NULL,
        color text, module_id text, created_at text NOT NULL,
        PRIMARY KEY (account_id, id), UNIQUE (account_id, name));
    CREATE TABLE activity (
        account_id text NOT NULL, seq bigint NOT NULL, id text NOT NULL,
        activity_type text NOT NULL, module_id text, record_id text, user_id text,
        created_at text NOT NULL, data jsonb NOT NULL, PRIMARY KEY (account_id, seq));
    CREATE INDEX activity_by_module ON activity (account_id, module_id, seq);
    CREATE INDEX activity_by_record ON activity (account_id, record_id, seq);
    CREATE TABLE rate_windows (
        bucket text NOT NULL, window_start bigint NOT NULL, hits bigint NOT NULL,
        PRIMARY KEY (bucket, window_start));
    """,
    # 2: workspace objects (agents, runs, approvals, outbox, reminders, pages, ...)
    """
    CREATE TABLE objects (
        account_id text NOT NULL, kind text NOT NULL, id text NOT NULL, data jsonb NOT NULL,
        status text, due_at text COLLATE "C", created_at text COLLATE "C" NOT NULL,
        updated_at text NOT NULL, PRIMARY KEY (account_id, kind, id));
    CREATE INDEX objects_by_status ON objects (account_id, kind, status, created_at);
    CREATE INDEX objects_due ON objects (kind, status, due_at) WHERE due_at IS NOT NULL;
    """,
    # 3: list totals kept per module and per single-choice value (storage/facets.py)
    FACETS,
    # 4: sentence vectors (mirrors SQLITE[3])
    """
    CREATE TABLE search_vectors (
        account_id text NOT NULL, record_id text COLLATE "C" NOT NULL,
        stamp text COLLATE "C" NOT NULL, model text NOT NULL, vector bytea,
        claimed_at double precision NOT NULL,
        PRIMARY KEY (account_id, record_id, stamp, model));
    """,
    # 5: objects of one kind across workspaces (mirrors SQLITE[4])
    "CREATE INDEX objects_by_kind ON objects (kind, status, account_id, id)",
    # 6: search in the store: the keyword index (storage/fulltext_postgres.py), records
    # waiting for their vectors and the vectors (mirrors SQLITE[7])
    FULLTEXT
    + ";"
    + REBUILD
    + ";"
    + VECTORS.replace("INTEGER PRIMARY KEY AUTOINCREMENT", "bigserial PRIMARY KEY")
    .replace("BLOB", "bytea")
    .replace(" REAL ", " double precision "),
    # 7: archived fields (mirrors SQLITE[8])
    "ALTER TABLE fields ADD COLUMN archived_at text",
    # 8: aggregates kept by a trigger (mirrors SQLITE[9])
    KEPT_AGGREGATES,
    # 9: a key's own role (mirrors the SQLite step 11)
    "ALTER TABLE api_keys ADD COLUMN role_slug text",
)


def migrate_sqlite(conn: sqlite3.Connection, steps: tuple[str, ...] = SQLITE) -> int:
    """Bring the database to the newest schema; return the version it is at."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        version = int(conn.execute("PRAGMA user_version").fetchone()[0])
        for index in range(version, len(steps)):
            for statement in _statements(steps[index]):
                conn.execute(statement)
            if steps is SQLITE and index == 7:
                _keyword_tables(conn)
            conn.execute(f"PRAGMA user_version = {index + 1}")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return len(steps)


def _keyword_tables(conn: sqlite3.Connection) -> None:
    """Every existing workspace's keyword tables (a new one's come with it)."""
    from fieldhouse.storage.fulltext_sqlite import create_tables

    for (account_id,) in conn.execute("SELECT id FROM accounts").fetchall():
        for stmt in create_tables(str(account_id)):
            conn.execute(stmt.sql, stmt.params)


def _statements(script: str) -> list[str]:
    """The statements of a migration, split where a statement is complete (a trigger's body
    holds semicolons of its own)."""
    out: list[str] = []
    pending = ""
    for piece in script.split(";"):
        pending += piece + ";"
        if sqlite3.complete_statement(pending):
            if pending.strip(" \n;"):
                out.append(pending)
            pending = ""
    if pending.strip(" \n;"):
        out.append(pending)
    return out


async def migrate_postgres(conn: Any) -> int:
    """Bring the database to the newest schema; return the version it is at.

    Safe to run from several processes at once: an advisory lock serialises them.
    """
    async with conn.transaction():
        await conn.execute("SELECT pg_advisory_xact_lock($1)", _MIGRATION_LOCK)
        await conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations"
            " (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())"
        )
        version = int(
            await conn.fetchval("SELECT coalesce(max(version), 0) FROM schema_migrations")
        )
        for index in range(version, len(POSTGRES)):
            await conn.execute(POSTGRES[index])
            await conn.execute("INSERT INTO schema_migrations (version) VALUES ($1)", index + 1)
    return len(POSTGRES)
