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


@contextmanager
def template_database() -> Iterator[str]:
    name = f"fh_tpl_{os.getpid()}_{secrets.token_hex(3)}"
    run_admin(f"CREATE DATABASE {name}")
    try:
        asyncio.run(_migrate(name))
        yield name
    finally:
        run_admin(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@contextmanager
def fresh_database(template: str) -> Iterator[str]:
    """A clone of the template, dropped on exit; yields its URL."""
    name = f"fh_t_{secrets.token_hex(6)}"
    # test databases need no durability across a server crash: commits skip the WAL flush
    run_admin(
        f"CREATE DATABASE {name} TEMPLATE {template}",
        f"ALTER DATABASE {name} SET synchronous_commit = off",
    )
    try:
        yield database_url(name)
    finally:
        run_admin(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
