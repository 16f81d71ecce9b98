"""The SQLite driver: readers run beside the one writer, and write transactions take turns."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import trio
import trio.testing

from fieldhouse.storage import Store, open_database
from tests.storage.conftest import AT, A, B, record


@pytest.fixture
async def lite(tmp_path: Path) -> AsyncIterator[Store]:
    async with open_database(f"sqlite:///{tmp_path}/lite.sqlite3") as db:
        await db.create_account(A, "A", "a", AT)
        await db.create_account(B, "B", "b", AT)
        yield db


async def test_a_read_runs_beside_an_open_write_and_sees_only_commits(lite: Store) -> None:
    async with lite.write(A) as txn:
        await txn.insert_record(record(A, "r01", "new"))
        # the writer holds its transaction open; a reader answers from the last commit
        assert await lite.get_records(A, ["r01"]) == []
    assert [r.record_id for r in await lite.get_records(A, ["r01"])] == ["r01"]


async def test_write_transactions_take_turns(lite: Store) -> None:
    order: list[str] = []
    release = trio.Event()

    async def first() -> None:
        async with lite.write(A) as txn:
            order.append("first in")
            await txn.insert_record(record(A, "r01", "one"))
            await release.wait()
            order.append("first out")

    async def second() -> None:
        async with lite.write(B):
            order.append("second in")

    async with trio.open_nursery() as nursery:
        nursery.start_soon(first)
        await trio.testing.wait_all_tasks_blocked()
        nursery.start_soon(second)
        await trio.testing.wait_all_tasks_blocked()
        assert order == ["first in"]  # one writer: even another workspace waits
        release.set()
    assert order == ["first in", "first out", "second in"]
