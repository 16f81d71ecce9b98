"""The Store's list queries, accounts, keys and rate limits, on both backends."""

from __future__ import annotations

from collections.abc import Sequence

from fieldhouse.model.listquery import parse_list_query
from fieldhouse.storage import Store
from fieldhouse.storage.sqlquery import index_keys
from tests.storage.conftest import AT, A, B, record


async def _seed(store: Store) -> None:
    async with store.write(A) as txn:
        for n, (title, amount) in enumerate([("Apple", 5), ("banana", 30), ("Cherry", 7)], 1):
            await txn.insert_record(record(A, f"r0{n}", title, title=title, amount=amount))
        await txn.insert_record(record(A, "r04", "gone", title="Apple", amount=1))
        await txn.soft_delete(f"mod-1-{A}", ["r04"], AT, None)
    async with store.write(B) as txn:
        await txn.insert_record(record(B, "r05", "Apple", title="Apple", amount=5))


async def _ids(
    store: Store, args: dict[str, str], search_ids: Sequence[str] | None = None
) -> tuple[list[str], int]:
    _, schemas = await store.load_schemas(A)
    schema = schemas["deals"]
    query = parse_list_query(args, schema)
    rows, total = await store.list_records(A, schema, query, search_ids=search_ids)
    return [r.record_id for r in rows], total


async def test_list_records_takes_the_parsed_query(store: Store) -> None:
    await _seed(store)
    assert await _ids(store, {}) == (["r03", "r02", "r01"], 3)
    assert await _ids(store, {"sortField": "title"}) == (["r01", "r02", "r03"], 3)
    assert await _ids(store, {"sortField": "amount", "sortDirection": "desc"}) == (
        ["r02", "r03", "r01"],
        3,
    )
    assert await _ids(store, {"filter[title]": "Apple,Cherry"}) == (["r03", "r01"], 2)
    assert await _ids(store, {"search": "an", "pageSize": "1"}) == (["r02"], 1)
    assert await _ids(store, {"pageSize": "2", "page": "2"}) == (["r01"], 3)


async def test_search_ids_restrict_the_search_to_the_index_candidates(store: Store) -> None:
    await _seed(store)
    assert await _ids(store, {"search": "e"}) == (["r03", "r01"], 2)
    assert await _ids(store, {"search": "e"}, search_ids=["r01", "r02"]) == (["r01"], 1)
    assert await _ids(store, {"search": "e"}, search_ids=[]) == ([], 0)


async def test_indexing_a_list_query_keeps_its_answers(store: Store) -> None:
    await _seed(store)
    args = {"filter[title]": "Apple", "sortField": "amount"}
    before = await _ids(store, args)
    _, schemas = await store.load_schemas(A)
    await store.index_list_query(schemas["deals"], parse_list_query(args, schemas["deals"]))
    assert await _ids(store, args) == before == (["r01"], 1)


async def test_a_pinned_filter_and_a_sort_get_one_index_that_serves_both(store: Store) -> None:
    await _seed(store)
    args = {"filter[title]": "Apple", "sortField": "amount", "sortDirection": "desc"}
    _, schemas = await store.load_schemas(A)
    query = parse_list_query(args, schemas["deals"])
    keys = index_keys(query, schemas["deals"], store._db.dialect)
    # each expression alone, and the filter's followed by the sort's in one key
    assert [len(k) for k in keys] == [2, 1, 1]
    assert keys[0] == (keys[1][0], keys[2][0])
    before = await _ids(store, args)
    await store.index_list_query(schemas["deals"], query)
    assert await _ids(store, args) == before == (["r01"], 1)
    # a filter with several values cannot pin the order: no combined key
    several = parse_list_query({**args, "filter[title]": "Apple,Cherry"}, schemas["deals"])
    assert [len(k) for k in index_keys(several, schemas["deals"], store._db.dialect)] == [1, 1]


async def test_a_pinned_filter_in_the_default_order_gets_an_index_ending_in_created_at(
    store: Store,
) -> None:
    await _seed(store)
    args = {"filter[title]": "Apple"}
    _, schemas = await store.load_schemas(A)
    query = parse_list_query(args, schemas["deals"])
    keys = index_keys(query, schemas["deals"], store._db.dialect)
    # the filter followed by the default order (newest first), and the filter alone
    assert keys == [(keys[1][0], "created_at"), (keys[1][0],)]
    before = await _ids(store, args)
    await store.index_list_query(schemas["deals"], query)
    assert await _ids(store, args) == before == (["r01"], 1)
