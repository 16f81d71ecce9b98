"""Records' vectors in the store, on both backends: a record's write queues it, an embedder
claims it for a while, and its vector is stored only while the text it was made from is the
record's; readers follow the stored rows by number, deletes included."""

from __future__ import annotations

import time
from dataclasses import replace

import pytest
import trio

from fieldhouse.model.records import RecordRow
from fieldhouse.storage import Store, search_index, vectors
from fieldhouse.storage.base import Op, value
from fieldhouse.storage.vectors import Backlog, Queued
from tests.storage.conftest import AT, MOD, A, B, record

MODEL = "test-model"
MOD_A = f"{MOD}-{A}"
LATER = "2026-01-02T00:00:00.000000Z"


@pytest.fixture
def queued(store: Store) -> Store:
    """The store with records waiting for MODEL's vectors."""
    store.vector_model = MODEL
    return store


async def put(store: Store, account: str, *rows: RecordRow) -> None:
    async with store.write(account) as txn:
        for row in rows:
            await txn.insert_record(row)


async def claim_at(store: Store, now: float, until: float, limit: int = 10) -> list[Queued]:
    """A claim at a chosen moment (the store's own claims are at the clock's)."""
    return await store._db.write(vectors.claim(store._db.dialect, limit, now, until))


def keys(claimed: list[Queued]) -> list[tuple[str, str, str]]:
    return [(q.account_id, q.record_id, q.stamp) for q in claimed]


async def stored(store: Store, account: str = A, after: int = 0) -> list[tuple[str, str, bytes]]:
    return [
        (v.record_id, v.stamp, v.vector)
        for v in await store.vectors_since(account, MODEL, after, 100)
    ]


async def test_a_write_queues_its_records_and_a_store_without_a_model_none(store: Store) -> None:
    await put(store, A, record(A, "r01", "One"))
    assert await store.vector_backlog() == Backlog(0, None)
    store.vector_model = MODEL
    await put(store, A, record(A, "r02", "Two"))
    assert keys(await store.claim_embedding(10, 60.0)) == [
        (A, "r02", record(A, "r02", "").updated_at)
    ]


async def test_a_claim_holds_until_its_lease_runs_out(queued: Store) -> None:
    r1, r2, r3 = record(A, "r01", "One"), record(A, "r02", "Two"), record(B, "r03", "Three")
    await put(queued, A, r1)
    await put(queued, B, r3)
    await put(queued, A, r2)
    # the oldest first, across workspaces
    assert keys(await claim_at(queued, 1000.0, 1010.0, limit=2)) == [
        (A, "r01", r1.updated_at),
        (B, "r03", r3.updated_at),
    ]
    assert keys(await claim_at(queued, 1001.0, 1010.0)) == [(A, "r02", r2.updated_at)]
    assert await claim_at(queued, 1005.0, 1020.0) == []  # every one held
    # a record changed meanwhile waits with its new version, claimable at once
    async with queued.write(A) as txn:
        await txn.update_record(replace(r1, updated_at=LATER))
    assert keys(await claim_at(queued, 1006.0, 1020.0)) == [(A, "r01", LATER)]
    # the lease of r02 and r03 (until 1010) ran out: another embedder takes them over
    assert sorted(keys(await claim_at(queued, 1011.0, 1030.0))) == [
        (A, "r02", r2.updated_at),
        (B, "r03", r3.updated_at),
    ]
    # the store's claims are at the clock's time, for the lease they are given
    assert len(await queued.claim_embedding(10, 60.0)) == 3
    assert await queued.claim_embedding(10, 60.0) == []


async def test_concurrent_claims_never_get_the_same_record(queued: Store, backend: str) -> None:
    """PostgreSQL: a claim still open holds its rows; another claim skips them (SKIP LOCKED)
    instead of waiting for it and then finding fewer. SQLite: claims take turns."""
    await put(queued, A, *[record(A, f"r0{n}", f"R{n}") for n in range(1, 5)])
    if backend == "sqlite":
        first = await queued.claim_embedding(2, 60.0)
        second = await queued.claim_embedding(10, 60.0)
    else:
        now = time.time()
        async with queued._db.transaction(B) as txn:
            first = await txn.run(vectors.claim(queued._db.dialect, 2, now, now + 60))
            with trio.fail_after(20):  # it would wait for the open claim's commit
                second = await queued.claim_embedding(10, 60.0)
    assert [q.record_id for q in first] == ["r01", "r02"]
    assert [q.record_id for q in second] == ["r03", "r04"]
    assert await queued.claim_embedding(10, 60.0) == []


async def test_a_vector_is_stored_only_while_its_text_is_the_records(queued: Store) -> None:
    r1, r2, r3 = record(A, "r01", "One"), record(A, "r02", "Two"), record(A, "r03", "Three")
    await put(queued, A, r1, r2, r3)
    claimed = await queued.claim_embedding(10, 60.0)
    assert len(claimed) == 3
    async with queued.write(A) as txn:
        await txn.update_record(replace(r1, display_name="One again", updated_at=LATER))
        await txn.soft_delete(MOD_A, ["r02"], AT, None)
    made = [(q.record_id, MOD_A, q.stamp, q.record_id.encode()) for q in claimed]
    await queued.store_vectors(A, MODEL, made)
    # r01's old text and deleted r02 get none; r02 is known gone (an empty vector)
    assert await stored(queued) == [("r02", "", b""), ("r03", r3.updated_at, b"r03")]
    # r01's new version still waits; r03's entry is done
    assert (await queued.vector_backlog(A)).waiting == 1
    again = await queued.claim_embedding(10, 60.0)
    assert keys(again) == [(A, "r01", LATER)]
    await queued.store_vectors(A, MODEL, [("r01", MOD_A, LATER, b"new")])
    assert await stored(queued) == [
        ("r02", "", b""),
        ("r03", r3.updated_at, b"r03"),
        ("r01", LATER, b"new"),
    ]
    assert await queued.vector_backlog() == Backlog(0, None)
    # another workspace and another model see none of it
    assert await stored(queued, B) == []
    assert await queued.vectors_since(A, "other-model", 0, 100) == []


async def test_dropping_claimed_entries_keeps_a_newer_version_waiting(queued: Store) -> None:
    r1, r2 = record(A, "r01", "One"), record(A, "r02", "Two")
    await put(queued, A, r1, r2)
    claimed = await queued.claim_embedding(10, 60.0)
    async with queued.write(A) as txn:
        await txn.update_record(replace(r1, updated_at=LATER))
    await queued.drop_queued(claimed)
    assert (await queued.vector_backlog(A)).waiting == 1
    assert keys(await queued.claim_embedding(10, 60.0)) == [(A, "r01", LATER)]


async def test_readers_follow_the_rows_by_number_deletes_included(queued: Store) -> None:
    r1, r2 = record(A, "r01", "One"), record(A, "r02", "Two")
    await put(queued, A, r1, r2)
    await queued.store_vectors(
        A, MODEL, [("r01", MOD_A, r1.updated_at, b"1"), ("r02", MOD_A, r2.updated_at, b"2")]
    )
    rows = await queued.vectors_since(A, MODEL, 0, 100)
    assert [(v.record_id, v.module_id, v.vector) for v in rows] == [
        ("r01", MOD_A, b"1"),
        ("r02", MOD_A, b"2"),
    ]
    assert rows[0].n < rows[1].n
    assert [v.record_id for v in await queued.vectors_since(A, MODEL, 0, 1)] == ["r01"]
    seen = rows[-1].n
    assert await queued.vectors_since(A, MODEL, seen, 100) == []
    # a new version's vector replaces the old row under a higher number
    async with queued.write(A) as txn:
        await txn.update_record(replace(r1, updated_at=LATER))
    await queued.store_vectors(A, MODEL, [("r01", MOD_A, LATER, b"1b")])
    assert await stored(queued, after=seen) == [("r01", LATER, b"1b")]
    seen = (await queued.vectors_since(A, MODEL, seen, 100))[-1].n
    async with queued.write(A) as txn:
        await txn.soft_delete(MOD_A, ["r02"], AT, None)
    after_delete = await queued.vectors_since(A, MODEL, seen, 100)
    assert [(v.record_id, v.module_id, v.vector) for v in after_delete] == [("r02", MOD_A, b"")]
    # from the start: each record once, in the order of its last change
    assert await stored(queued) == [("r01", LATER, b"1b"), ("r02", "", b"")]


async def someone_waits_for_a_lock(store: Store) -> None:
    """Until another PostgreSQL session of this database waits for a row or key lock."""
    sql = (
        "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
        " AND wait_event_type = 'Lock'"
    )

    def waiting() -> Op[int]:
        return int((yield value(sql)))

    with trio.fail_after(20):
        while not await store._db.write(waiting()):  # noqa: ASYNC110 (another process)
            await trio.sleep(0.01)


def deleting(store: Store, rid: str) -> Op[None]:
    """What a record's delete writes for search: its text out of the index, its vector
    replaced by an empty one."""
    d = store._db.dialect
    yield from search_index.delete_docs(d, A, [rid])
    yield from vectors.forget(d, A, [(rid, MOD_A)], MODEL)


@pytest.mark.parametrize("backend", ["postgres"])
async def test_a_delete_and_a_vector_of_the_same_record_at_once_both_commit(
    queued: Store,
) -> None:
    """An embedder stores a record's vector while the record's delete runs (PostgreSQL: both
    began while the record was current). Neither write fails, and the record ends with its
    empty row, numbered after anything a reader saw of it."""
    r1, r2 = record(A, "r01", "One"), record(A, "r02", "Two")
    await put(queued, A, r1, r2)
    current = search_index.current(queued._db.dialect, A)
    # the embedder's transaction first: the delete waits for its row, then replaces it
    async with trio.open_nursery() as nursery, queued._db.transaction(B) as embedder:
        await embedder.run(vectors.store(A, MODEL, [("r01", MOD_A, r1.updated_at, b"1")], current))
        nursery.start_soon(queued._db.write, deleting(queued, "r01"))
        await someone_waits_for_a_lock(queued)
    # the delete's transaction first: the embedder's vector waits for it, then stands back
    async with trio.open_nursery() as nursery, queued._db.transaction(A) as delete:
        await delete.run(deleting(queued, "r02"))
        vector = [("r02", MOD_A, r2.updated_at, b"2")]
        nursery.start_soon(queued.store_vectors, A, MODEL, vector)
        await someone_waits_for_a_lock(queued)
    assert await stored(queued) == [("r01", "", b""), ("r02", "", b"")]


async def test_the_backlog_counts_waiting_records_and_the_oldest_ones_age(queued: Store) -> None:
    assert await queued.vector_backlog() == Backlog(0, None)
    before = time.time()
    r1 = record(A, "r01", "One")
    await put(queued, A, r1)
    first = await queued.vector_backlog(A)
    assert first.waiting == 1 and first.oldest is not None
    assert before <= first.oldest <= time.time()
    await put(queued, A, record(A, "r02", "Two"))
    await put(queued, B, record(B, "r03", "Three"))
    # a record changed again keeps its place: it has waited since its first change
    async with queued.write(A) as txn:
        await txn.update_record(replace(r1, updated_at=LATER))
    assert await queued.vector_backlog(A) == Backlog(2, first.oldest)
    assert (await queued.vector_backlog(B)).waiting == 1
    everyone = await queued.vector_backlog()
    assert everyone.waiting == 3 and everyone.oldest == first.oldest
    # a deleted record no longer waits
    async with queued.write(A) as txn:
        await txn.soft_delete(MOD_A, ["r01", "r02"], AT, None)
    assert await queued.vector_backlog(A) == Backlog(0, None)
    assert (await queued.vector_backlog()).waiting == 1
