"""Record operations through the Store and its write transactions, on both backends."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pytest
import trio

from fieldhouse.storage import Store, records
from fieldhouse.storage.base import Op
from fieldhouse.storage.sqldialect import SQLITE as SQLITE_DIALECT
from tests.storage.conftest import AT, MOD, A, B, record, sqlite_plan


class Boom(Exception):
    pass


async def test_written_records_read_back_by_id_within_their_workspace(store: Store) -> None:
    async with store.write(A) as txn:
        for rid in ("r03", "r01", "r02"):
            await txn.insert_record(record(A, rid, rid.upper(), title=rid))
        await txn.update_record(replace(record(A, "r02", "Two", title="two"), updated_at=AT))
        assert await txn.soft_delete(f"{MOD}-{A}", ["r03", "nope"], AT, None) == ["r03"]
    got = await store.get_records(A, ["r03", "r02", "r01", "unknown"])
    assert [(r.record_id, r.display_name, r.fields) for r in got] == [
        ("r01", "R01", {"title": "r01"}),
        ("r02", "Two", {"title": "two"}),
    ]
    assert await store.get_records(B, ["r01", "r02"]) == []
    assert await store.get_record(A, f"{MOD}-{A}", "r01") is not None
    assert await store.get_record(A, "another-module", "r01") is None


async def test_records_after_pages_every_live_record_by_id(store: Store) -> None:
    async with store.write(A) as txn:
        for n in range(1, 8):
            await txn.insert_record(record(A, f"r{n:02}", f"n{n}"))
        await txn.soft_delete(f"{MOD}-{A}", ["r04"], AT, None)
    async with store.write(B) as txn:
        await txn.insert_record(record(B, "r00", "other"))
    seen, last = [], ""
    while page := await store.records_after(A, last, 2):
        seen += [r.record_id for r in page]
        last = page[-1].record_id
    assert seen == ["r01", "r02", "r03", "r05", "r06", "r07"]


async def test_a_failed_transaction_writes_nothing_and_a_savepoint_only_its_part(
    store: Store,
) -> None:
    with pytest.raises(Boom):
        async with store.write(A) as txn:
            await txn.insert_record(record(A, "r01", "lost"))
            raise Boom
    async with store.write(A) as txn:
        await txn.insert_record(record(A, "r02", "kept"))
        with pytest.raises(Boom):
            async with txn.savepoint():
                await txn.insert_record(record(A, "r03", "undone"))
                raise Boom
        await txn.append_activity({"id": "e1", "activityType": "x", "createdDateTime": AT})
    assert [r.record_id for r in await store.get_records(A, ["r01", "r02", "r03"])] == ["r02"]


async def test_activity_is_numbered_per_workspace(store: Store) -> None:
    async with store.write(A) as txn:
        for n in (1, 2, 3):
            entry = {"id": f"e{n}", "activityType": "t", "createdDateTime": AT, "recordId": "r"}
            assert await txn.append_activity({**entry, "moduleId": f"m{n % 2}"}) == n
    async with store.write(B) as txn:
        assert (
            await txn.append_activity({"id": "b1", "activityType": "t", "createdDateTime": AT}) == 1
        )
    since = await store.activity_since(A, 1, 10)
    assert [e["id"] for e in since] == ["e2", "e3"]
    listed = await store.list_activity(A, module_ids=["m1"], record_id=None, types=(), limit=10)
    assert [e["id"] for e in listed] == ["e3", "e1"]
    none = await store.list_activity(A, module_ids=[], record_id=None, types=(), limit=10)
    assert none == []
    typed = await store.list_activity(A, module_ids=None, record_id="r", types=["t"], limit=2)
    assert [e["seq"] for e in typed] == [3, 2]


async def test_a_cancelled_transaction_rolls_back_and_frees_the_workspace(store: Store) -> None:
    with trio.CancelScope() as scope:
        async with store.write(A) as txn:
            await txn.insert_record(record(A, "r01", "cancelled"))
            scope.cancel()
            await trio.lowlevel.checkpoint()
    assert scope.cancelled_caught
    async with store.write(A) as txn:
        await txn.insert_record(record(A, "r02", "kept"))
    assert [r.record_id for r in await store.get_records(A, ["r01", "r02"])] == ["r02"]


@pytest.mark.parametrize(
    "op",
    [
        lambda ids: records.get_records(SQLITE_DIALECT, A, ids),
        lambda ids: records.get_records(SQLITE_DIALECT, A, ids, "m"),
        lambda ids: records.soft_delete(SQLITE_DIALECT, A, "m", ids, AT, None),
        lambda ids: records.record_modules(SQLITE_DIALECT, A, ids),
        lambda ids: records.records_after(SQLITE_DIALECT, A, ids[0], 500),
    ],
    ids=["get_records", "get_records_of_module", "soft_delete", "record_modules", "after"],
)
def test_records_looked_up_by_id_are_read_by_their_key_not_the_whole_workspace(
    op: Callable[[list[str]], Op[object]],
) -> None:
    # with more than ~10 ids SQLite chose records_by_module (account_id = ?) and read every
    # record of the workspace for each lookup: the indexer's read-back of 14 records cost
    # 2.3 ms at 7,000 records and grew with the workspace
    plan = sqlite_plan(op([f"r{n:03}" for n in range(500)]))
    assert "sqlite_autoindex_records_1 (id" in plan
    assert "records_by_module" not in plan
