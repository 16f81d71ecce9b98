"""Throwaway PostgreSQL databases for the tests.

``FIELDHOUSE_TEST_DATABASE_URL`` names a server and a database the tests may connect to in
order to create others (``make test`` and ``.ci/run`` set it; the default is the local
server). The schema is migrated once into a template database; every test then gets a
``CREATE DATABASE ... TEMPLATE`` clone (a few tens of milliseconds) and drops it afterwards.
An unreachable server fails the tests that need it, with the reason: it never skips them.
"""

from __future__ import annotations

import asyncio
import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import asyncpg
import pytest

from fieldhouse.storage.migrations import migrate_postgres

DEFAULT_URL = "postgresql://postgres@127.0.0.1:5432/test"


def admin_url() -> str:
    return os.environ.get("FIELDHOUSE_TEST_DATABASE_URL") or DEFAULT_URL


def database_url(name: str) -> str:
    """The admin URL with its database replaced by name."""
    return urlsplit(admin_url())._replace(path=f"/{name}").geturl()


async def _admin(*statements: str) -> None:
    conn = await asyncpg.connect(admin_url(), timeout=10)
    try:
        for sql in statements:
            await conn.execute(sql)
    finally:
        await conn.close()


async def _migrate(name: str) -> None:
    conn = await asyncpg.connect(database_url(name), timeout=10)
    try:
        await migrate_postgres(conn)  # type: ignore[arg-type]  # a plain connection serves as well
    finally:
        await conn.close()


def run_admin(*statements: str) -> None:
    """Run statements on the admin database; fail the test clearly if the server is away."""
    try:
        asyncio.run(_admin(*statements))
    except (TimeoutError, OSError, asyncpg.InvalidCatalogNameError) as exc:
        pytest.fail(
            f"PostgreSQL is unreachable at {admin_url()} ({exc!r}). Start it, or point "
            "FIELDHOUSE_TEST_DATABASE_URL at a server where these tests may create databases.",
            pytrace=False,
        )


#: what a migrated database's schema is made of; a test database whose fingerprint still matches
#: its template's after the test is emptied and used again, any other is dropped
_FINGERPRINT = """
SELECT md5(coalesce((SELECT string_agg(table_name || '.' || column_name || ':' || data_type
                                       || ':' || coalesce(column_default, ''), ','
                                       ORDER BY table_name, column_name)
                     FROM information_schema.columns WHERE table_schema = 'public'), '')
        || coalesce((SELECT string_agg(indexdef, ',' ORDER BY indexdef)
                     FROM pg_indexes WHERE schemaname = 'public'), '')
        || coalesce((SELECT string_agg(conname || pg_get_constraintdef(c.oid), ',' ORDER BY conname)
                     FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace
                     WHERE n.nspname = 'public'), '')
        || coalesce((SELECT string_agg(tgname, ',' ORDER BY tgname) FROM pg_trigger
                     WHERE NOT tgisinternal), ''))
"""


@dataclass
class Template:
    """A migrated database to clone, with what emptying a clone must restore: its schema's
    fingerprint and the rows the migrations wrote (schema_migrations, meta)."""

    name: str
    fingerprint: str
    seeds: dict[str, str]  # table -> its rows as a JSON array
    spare: list[str] = field(default_factory=list)  # emptied clones, ready for the next test


async def _describe(name: str) -> tuple[str, dict[str, str]]:
    conn = await asyncpg.connect(database_url(name), timeout=10)
    try:
        fingerprint = await conn.fetchval(_FINGERPRINT)
        seeds = {}
        for table in await conn.fetch(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename"
        ):
            t = table["tablename"]
            rows = await conn.fetchval(f"SELECT coalesce(json_agg(t), '[]') FROM {t} t")
            if rows != "[]":
                seeds[t] = rows
        return fingerprint, seeds
    finally:
        await conn.close()


async def _empty(template: Template, name: str) -> bool:
    """Empty a used clone back to its template's rows; False if its schema was changed (or it
    cannot be emptied), so that it must be dropped instead."""
    conn = await asyncpg.connect(database_url(name), timeout=10)
    try:
        # a server the test left running (or killed) may still hold sessions and their locks
        await conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        if await conn.fetchval(_FINGERPRINT) != template.fingerprint:
            return False
        tables = [
            r["tablename"]
            for r in await conn.fetch("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
        ]
        sequences = [
            r["sequencename"] for r in await conn.fetch("SELECT sequencename FROM pg_sequences")
        ]
        async with conn.transaction():
            await conn.execute("SET LOCAL lock_timeout = '10s'")
            await conn.execute("SET LOCAL session_replication_role = replica")  # no FK order
            for t in tables:
                await conn.execute(f'DELETE FROM "{t}"')
            for t, rows in template.seeds.items():
                await conn.execute(
                    f'INSERT INTO "{t}" SELECT * FROM json_populate_recordset(NULL::"{t}", $1)',
                    rows,
                )
            for seq in sequences:
                await conn.execute("SELECT setval($1::regclass, 1, false)", f'"{seq}"')
        return True
    except (asyncpg.PostgresError, OSError, TimeoutError):
        return False
    finally:
        await conn.close()


@contextmanager
def template_database() -> Iterator[Template]:
    name = f"fh_tpl_{os.getpid()}_{secrets.token_hex(3)}"
    run_admin(f"CREATE DATABASE {name}")
    template = Template(name, "", {})
    try:
        asyncio.run(_migrate(name))
        template.fingerprint, template.seeds = asyncio.run(_describe(name))
        yield template
    finally:
        run_admin(
            *(f"DROP DATABASE IF EXISTS {n} WITH (FORCE)" for n in template.spare),
            f"DROP DATABASE IF EXISTS {name} WITH (FORCE)",
        )


@contextmanager
def fresh_database(template: Template) -> Iterator[str]:
    """An empty migrated database (a clone of the template, or one an earlier test used and
    that was emptied back to the template's rows: a tenth of the cost of CREATE and DROP
    DATABASE); yields its URL."""
    if template.spare:
        name = template.spare.pop()
    else:
        name = f"fh_t_{secrets.token_hex(6)}"
        # test databases need no durability across a server crash: commits skip the WAL flush
        run_admin(
            f"CREATE DATABASE {name} TEMPLATE {template.name}",
            f"ALTER DATABASE {name} SET synchronous_commit = off",
        )
    try:
        yield database_url(name)
    finally:
        if asyncio.run(_empty(template, name)):
            template.spare.append(name)
        else:
            run_admin(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
