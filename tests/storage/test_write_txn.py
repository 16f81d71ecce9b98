"""A workspace's write transaction (fieldhouse/storage/write_txn.py): what it writes reads
back inside it and after its commit, on both backends. Its write-behind (queued statements,
savepoints, counters) is tested in test_writebehind.py."""

from __future__ import annotations

from fieldhouse.storage import Store
from tests.storage.conftest import AT, MOD, A, B, record


async def test_links_keep_their_order_and_follow_deletes(store: Store) -> None:
    async with store.write(A) as txn:
        for rid in ("r01", "r02", "r03", "r04"):
            await txn.insert_record(record(A, rid, rid))
        await txn.set_links("r01", "company", ["r04", "r02", "r03"])
        assert await txn.linked_targets("r01", "company") == ["r04", "r02", "r03"]
        await txn.set_links("r01", "company", ["r03", "r04"])
        assert sorted(await txn.linking_sources(["r04"])) == [("r01", "company")]
        await txn.soft_delete(f"{MOD}-{A}", ["r03"], AT, None)
    assert await store.linked_targets(A, "r01", "company") == ["r04"]
    assert await store.linked_targets(B, "r01", "company") == []


async def test_field_values_are_found_missing_and_removed(store: Store) -> None:
    async with store.write(A) as txn:
        await txn.insert_record(record(A, "r01", "a", title="x", amount=None))
        await txn.insert_record(record(A, "r02", "b", title="y", amount=3))
        await txn.insert_record(record(A, "r03", "c"))
        await txn.set_links("r02", "amount", ["r01"])
        lacking = await txn.records_lacking_field(f"{MOD}-{A}", "amount")
        assert [r.record_id for r in lacking] == ["r01", "r03"]
        assert len(await txn.records_lacking_field(f"{MOD}-{A}", None)) == 3
        # r01 holds the key (with null), r02 a value, r03 nothing
        assert await txn.remove_field_values(f"{MOD}-{A}", "amount") == 2
        assert await txn.linked_targets("r02", "amount") == []
    got = await store.get_records(A, ["r01", "r02"])
    assert [r.fields for r in got] == [{"title": "x"}, {"title": "y"}]


async def test_a_record_created_then_changed_in_one_transaction_is_indexed_as_last_written(
    store: Store,
) -> None:
    """A create's text goes into the keyword index without first deleting an old one (it has
    none); once written, a later change in the same transaction replaces it."""
    async with store.write(A) as txn:
        await txn.insert_record(record(A, "r01", "Paint the fence"))
        await txn.module_schemas()  # a read that writes back what is queued: r01's text
        await txn.update_record(record(A, "r01", "Mend the gate"))
        await txn.insert_record(record(A, "r02", "Paint the gate"))
        await txn.update_record(record(A, "r02", "Oil the gate"))  # before anything ran
    async with store.write(A) as txn:
        await txn.insert_record(record(A, "r03", "Paint the shed"))
    stats = await store.keyword_stats(A)
    assert stats.records == 3

    async def found(word: str) -> list[str]:
        hits = await store.keyword_search(A, [word], stats, None, 10)
        return sorted(rid for rid, _ in hits.ranked)

    assert await found("gate") == ["r01", "r02"]
    assert await found("paint") == ["r03"]
    assert await found("fence") == []
    docs = await store.search_docs(A, ["r01", "r02", "r03"])
    assert {rid: doc["title"] for rid, doc in docs.items()} == {
        "r01": "Mend the gate",
        "r02": "Oil the gate",
        "r03": "Paint the shed",
    }
