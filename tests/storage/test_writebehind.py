"""Write-behind in a write transaction: queued writes still fail where they were written, roll
back with their scope, and keep the activity sequence and auto-numbers gap-free."""

from __future__ import annotations

import pytest

from fieldhouse.model.schema import FieldDef
from fieldhouse.storage import Store
from fieldhouse.storage.base import ConflictError, QueuedWriteFailed, execute
from fieldhouse.storage.write_txn import WriteTxn
from fieldhouse.storage.writebehind import coalesce
from tests.storage.conftest import AT, MOD, A, record

M = f"{MOD}-{A}"


class Boom(Exception):
    pass


def entry(n: str) -> dict[str, object]:
    return {"id": n, "activityType": "t", "createdDateTime": AT, "recordId": n}


async def seqs(store: Store) -> list[tuple[int, str]]:
    return [(e["seq"], e["id"]) for e in await store.activity_since(A, 0, 100)]


async def names(store: Store, *ids: str) -> list[tuple[str, str]]:
    return [(r.record_id, r.display_name) for r in await store.get_records(A, ids)]


async def test_a_strict_savepoint_fails_at_its_own_constraint_and_undoes_only_itself(
    store: Store,
) -> None:
    async with store.write(A) as txn:
        await txn.insert_record(record(A, "r01", "first"))
        assert await txn.append_activity(entry("e1")) == 1
        with pytest.raises(QueuedWriteFailed) as failed:
            async with txn.savepoint():
                await txn.insert_record(record(A, "r02", "undone"))
                assert await txn.append_activity(entry("e2")) == 2
                await txn.insert_record(record(A, "r01", "duplicate"))
                # the duplicate fails before the scope is left, not at some later statement
        assert isinstance(failed.value.__cause__, ConflictError)
        await txn.insert_record(record(A, "r03", "after"))
        assert await txn.append_activity(entry("e3")) == 2
    assert await names(store, "r01", "r02", "r03") == [("r01", "first"), ("r03", "after")]
    assert await seqs(store) == [(1, "e1"), (2, "e3")]


async def test_a_lax_savepoint_rolls_back_queued_and_flushed_writes(store: Store) -> None:
    async with store.write(A) as txn:
        with pytest.raises(Boom):
            async with txn.savepoint(strict=False):
                await txn.insert_record(record(A, "r01", "queued"))
                await txn.append_activity(entry("e1"))
                raise Boom
        with pytest.raises(Boom):
            async with txn.savepoint(strict=False):
                await txn.insert_record(record(A, "r02", "flushed"))
                await txn.append_activity(entry("e2"))
                # a read runs what is queued: the scope's savepoint must be in the database
                assert await names_in(txn, "r02") == ["r02"]
                raise Boom
        for n in (3, 4):
            async with txn.savepoint(strict=False):
                await txn.insert_record(record(A, f"r0{n}", "kept"))
                await txn.append_activity(entry(f"e{n}"))
    assert await names(store, "r01", "r02", "r03", "r04") == [("r03", "kept"), ("r04", "kept")]
    assert await seqs(store) == [(1, "e3"), (2, "e4")]


async def names_in(txn: WriteTxn, *ids: str) -> list[str]:
    return [r.record_id for r in await txn.get_records(ids)]


async def test_a_database_error_of_a_lax_scope_fails_its_strict_parent(store: Store) -> None:
    async with store.write(A) as txn:
        await txn.insert_record(record(A, "r01", "first"))
        with pytest.raises(QueuedWriteFailed):
            async with txn.savepoint():
                for rid in ("r02", "r01", "r03"):
                    async with txn.savepoint(strict=False):
                        await txn.insert_record(record(A, rid, "batch"))
                        await txn.append_activity(entry(rid))
        await txn.insert_record(record(A, "r04", "after"))
        await txn.append_activity(entry("r04"))
    assert await names(store, "r01", "r02", "r03", "r04") == [("r01", "first"), ("r04", "after")]
    assert await seqs(store) == [(1, "r04")]


async def test_counters_stay_gap_free_across_rolled_back_scopes_and_transactions(
    store: Store,
) -> None:
    number = FieldDef("f-no", M, "No", "no", "No", "autonumber", {"autonumber": {"startFrom": 1}})
    async with store.write(A) as txn:
        await txn.upsert_fields([number])
        assert await txn.take_number(number, None) == 1
        await txn.append_activity(entry("e1"))
        with pytest.raises(Boom):
            async with txn.savepoint():
                assert await txn.take_number(number, None) == 2
                await txn.append_activity(entry("lost"))
                await txn.get_records(["r01"])  # flushed, then rolled back
                raise Boom
        assert await txn.take_number(number, None) == 2
    with pytest.raises(Boom):
        async with store.write(A) as txn:
            assert await txn.take_number(number, None) == 3
            await txn.append_activity(entry("lost too"))
            raise Boom
    async with store.write(A) as txn:
        assert await txn.take_number(number, None) == 3
        assert await txn.append_activity(entry("e2")) == 2
    async with store.write(A) as txn:
        assert await txn.take_number(number, None) == 4
    assert await seqs(store) == [(1, "e1"), (2, "e2")]


def test_inserts_join_an_earlier_one_past_inserts_into_other_tables_only() -> None:
    a = "INSERT INTO a (x) VALUES (?)"
    b = "INSERT INTO b (x) VALUES (?)"
    update = "UPDATE a SET x = ?"
    stmts = [execute(a, (1,)), execute(b, (2,)), execute(a, (3,)), execute(update, (4,))]
    others = [execute(f"INSERT INTO t{n} (x) VALUES (?)", (n,)) for n in range(6, 12)]
    stmts += [execute(a, (5,)), *others, execute(a, (12,))]
    got = [(s.sql, s.result, s.params) for s in coalesce(stmts)]
    assert got == [
        (a, "many", [(1,), (3,)]),  # joined across the insert into b
        (b, "none", (2,)),
        (update, "none", (4,)),  # not across an update
        (a, "none", (5,)),
        *[(s.sql, "none", s.params) for s in others],
        (a, "none", (12,)),  # out of reach: an insert looks back a few statements only
    ]
