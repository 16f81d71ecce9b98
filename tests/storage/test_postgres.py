"""The PostgreSQL driver: the trio-asyncio loop it needs, and per-workspace write turns."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import trio
import trio.testing

from fieldhouse.storage import Store, open_database
from fieldhouse.storage.postgres import LoopNotOpen, PostgresDriver
from tests.storage.conftest import AT, A, B, record


@pytest.fixture
async def pg(pg_url: str) -> AsyncIterator[Store]:
    async with open_database(pg_url) as db:
        await db.create_account(A, "A", "a", AT)
        await db.create_account(B, "B", "b", AT)
        yield db


async def test_opening_outside_the_trio_asyncio_loop_is_refused(pg_url: str) -> None:
    with pytest.raises(LoopNotOpen, match="open_database"):
        await PostgresDriver.open(pg_url)


async def test_other_workspaces_write_while_one_transaction_is_open(pg: Store) -> None:
    release = trio.Event()
    done: list[str] = []

    async def slow() -> None:
        async with pg.write(A) as txn:
            await txn.insert_record(record(A, "r01", "slow"))
            await release.wait()
        done.append("A")

    async with trio.open_nursery() as nursery:
        nursery.start_soon(slow)
        await trio.testing.wait_all_tasks_blocked()
        async with pg.write(B) as txn:  # not held up by A's open transaction
            await txn.insert_record(record(B, "r02", "quick"))
        done.append("B")
        assert await pg.get_records(A, ["r01"]) == []  # A has not committed
        release.set()
    assert done == ["B", "A"]
    assert len(await pg.get_records(A, ["r01"])) == 1


async def test_a_transaction_sees_what_the_previous_one_of_its_workspace_committed(
    pg: Store,
) -> None:
    async def bump() -> None:
        async with pg.write(A) as txn:
            await txn.append_activity({"id": "e", "activityType": "t", "createdDateTime": AT})

    async with trio.open_nursery() as nursery:
        for _ in range(5):
            nursery.start_soon(bump)
    # each took the sequence number after the last one committed: no number twice
    assert [e["seq"] for e in await pg.activity_since(A, 0, 10)] == [1, 2, 3, 4, 5]
