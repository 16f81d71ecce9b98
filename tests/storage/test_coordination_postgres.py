"""The PostgreSQL processes' coordination: a bump reaches the other processes by NOTIFY, and a
process whose listening connection is lost remembers nothing until it listens again."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import asyncpg
import trio

from fieldhouse.storage import open_database
from fieldhouse.storage.coordination_postgres import PostgresCoordination
from fieldhouse.storage.postgres import aio

#: a notice crosses the database in milliseconds; this bounds a loaded machine
DEADLINE = 10


async def until(check: Callable[[], bool]) -> None:
    """Wait for a notice from the database: nothing in this trio loop can be awaited for its
    arrival, so the check is polled."""
    with trio.fail_after(DEADLINE):
        while not check():  # noqa: ASYNC110
            await trio.sleep(0.005)


async def run_sql(url: str, sql: str, *args: Any) -> Any:
    conn = await aio(asyncpg.connect, url)
    try:
        return await aio(conn.fetchval, sql, *args)
    finally:
        await aio(conn.close)


async def test_a_bump_reaches_every_process_by_notify(pg_url: str) -> None:
    async with open_database(pg_url):  # the trio-asyncio loop the listeners live in
        one, other = PostgresCoordination(pg_url), PostgresCoordination(pg_url)
        await one.connect()
        await other.connect()
        try:
            seen = other.epoch()
            assert other.epoch() == seen  # nothing moved: a cache may keep what it holds
            await one.bump()
            await until(lambda: other.epoch() != seen)
            assert await one.reserve_rate_hits("key:a", 3, 2) == 2
            assert await other.reserve_rate_hits("key:a", 3, 1) == 3
        finally:
            await one.aclose()
            await other.aclose()


async def test_a_lost_listener_remembers_nothing_until_it_listens_again(pg_url: str) -> None:
    async with open_database(pg_url), trio.open_nursery() as nursery:
        pg = PostgresCoordination(pg_url)
        await pg.connect()
        nursery.start_soon(pg.keep_listening)
        pid = pg._conn.get_server_pid()
        async with pg._lock:  # the reconnect waits for it: the gap is seen for certain
            assert await run_sql(pg_url, "SELECT pg_terminate_backend($1)", pid)
            # while nobody listens, every read is a new epoch: a missed notice cannot go unseen
            await until(lambda: pg.epoch() != pg.epoch())
        # it listens again on a new connection, and the epoch holds still between notices
        await until(lambda: pg.epoch() == pg.epoch())
        assert pg._conn.get_server_pid() != pid
        seen = pg.epoch()
        await run_sql(pg_url, "NOTIFY fieldhouse_changes")
        await until(lambda: pg.epoch() != seen)
        nursery.cancel_scope.cancel()
        with trio.CancelScope(shield=True):
            await pg.aclose()
