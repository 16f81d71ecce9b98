"""The triggers of kept aggregates on both engines: writes of odd values never fail, and a
record's row deleted outright leaves the kept answers."""

from __future__ import annotations

from fieldhouse.model.aggregate import parse_aggregate
from fieldhouse.model.listquery import parse_list_query
from fieldhouse.model.schema import FieldDef
from fieldhouse.storage import Store
from fieldhouse.storage.base import Op, execute
from tests.storage.conftest import MOD, A, record


async def test_odd_values_are_kept_as_the_scan_groups_them(store: Store) -> None:
    async with store.write(A) as txn:
        field = FieldDef(f"f-due-{A}", f"{MOD}-{A}", "D", "due", "D", "date", {})
        await txn.upsert_fields([field])
    _, schemas = await store.load_schemas(A)
    schema = schemas["deals"]
    spec = parse_aggregate("due:week", "count,sum:amount,max:amount", schema)
    query = parse_list_query({}, schema)
    assert (await store.aggregate(A, schema, query, spec))["groups"] == []  # kept from now on
    async with store.write(A) as txn:  # not dates, not numbers: stored as they come
        await txn.insert_record(record(A, "r01", "a", due="soon", amount="12"))
        await txn.insert_record(record(A, "r02", "b", amount=True))
        await txn.insert_record(record(A, "r03", "c", due="2024-01-17", amount=2.5))
    got = await store.aggregate(A, schema, query, spec)
    assert [(g["key"], g["count"], g["metrics"]) for g in got["groups"]] == [
        ("2024-01-15", 1, {"count": 1, "sum:amount": 2.5, "max:amount": 2.5}),
        (None, 2, {"count": 2, "sum:amount": 0, "max:amount": None}),
    ]

    # a row deleted outright (no soft delete) leaves the counts
    def purge() -> Op[None]:
        yield execute("DELETE FROM records WHERE account_id = ? AND id = ?", (A, "r03"))

    async with store.write(A) as txn:
        await txn._run(purge())
    got = await store.aggregate(A, schema, query, spec)
    assert [(g["key"], g["count"]) for g in got["groups"]] == [(None, 2)]
