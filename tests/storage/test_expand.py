"""Linked records of a page in one statement, by link order, within the modules asked."""

from __future__ import annotations

from fieldhouse.storage import Store, expand
from tests.storage.conftest import AT, MOD, A, B, record


async def test_one_statement_reads_every_link_of_a_page(store: Store) -> None:
    async with store.write(A) as txn:
        for rid in ("r01", "r02", "r03", "r04", "r05"):
            await txn.insert_record(record(A, rid, rid.upper()))
        await txn.set_links("r01", "company", ["r04"])
        await txn.set_links("r01", "contacts", ["r05", "r03"])
        await txn.set_links("r02", "contacts", ["r03"])
        await txn.soft_delete(f"{MOD}-{A}", ["r05"], AT, None)
    async with store.write(B) as txn:
        await txn.insert_record(record(B, "r09", "theirs"))
        await txn.set_links("r01", "contacts", ["r09"])  # another workspace's same ids
    op = expand.linked_records(A, ["r01", "r02", "r03"], ["company", "contacts"], ["deals"])
    statement = next(op)
    assert statement.result == "rows"  # a page of any size is this one statement
    got = await store.expand(A, ["r01", "r02", "r03"], ["company", "contacts"], ["deals"])
    assert [(x.source_id, x.field_slug, x.record_id, x.display_name) for x in got] == [
        ("r01", "company", "r04", "R04"),
        ("r01", "contacts", "r03", "R03"),  # r05 is deleted
        ("r02", "contacts", "r03", "R03"),
    ]
    assert got[0].module_slug == "deals" and got[0].fields == {}
    assert await store.expand(A, ["r01"], ["contacts"], ["companies"]) == []
    assert await store.expand(A, ["r01"], [], ["deals"]) == []
    theirs = await store.expand(B, ["r01"], ["contacts"], ["deals"])
    assert [x.record_id for x in theirs] == ["r09"]
