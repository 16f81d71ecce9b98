"""PostgreSQL schema migrations, applied in order and tracked in ``schema_migrations``.

The tables and columns are those of the SQLite schema with PostgreSQL types: JSON documents
are ``jsonb``, timestamps stay ISO-8601 text (so ordering and the list-query compiler behave
as on SQLite) and text that is sorted uses the "C" collation (byte order, as SQLite does),
whatever the database's default collation is.

Every workspace table is keyed and indexed with ``account_id`` first, so a distributed
PostgreSQL (Citus) can distribute them all on ``account_id`` and keep one workspace's rows,
and its transactions, on one node. ``meta``, ``accounts``, ``api_keys`` (looked up by key hash
before the account is known) and ``rate_windows`` are small cross-workspace tables: reference
tables there.

The functions here run on the asyncio side of trio-asyncio; :mod:`fieldhouse.storage.postgres`
calls them through ``aio_as_trio``.
"""

from __future__ import annotations

from typing import Any

from fieldhouse.storage.facets import MIGRATION as FACETS_MIGRATION
from fieldhouse.storage.objects import OBJECTS_POSTGRES

#: a constant advisory lock key that serialises migrations between processes
_MIGRATION_LOCK = 0x46484D4947  # "FHMIG"

MIGRATIONS: tuple[str, ...] = (
    # 1: the foundation (mirrors sqlite_schema migration 1)
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
    OBJECTS_POSTGRES,
    # 3: list totals kept per module and per single-choice value (storage/facets.py)
    FACETS_MIGRATION,
)


async def migrate(conn: Any) -> int:
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
        for index in range(version, len(MIGRATIONS)):
            await conn.execute(MIGRATIONS[index])
            await conn.execute("INSERT INTO schema_migrations (version) VALUES ($1)", index + 1)
    return len(MIGRATIONS)
