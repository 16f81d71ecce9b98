"""Store.aggregate on both backends: exact sums, the list query's WHERE, kept answers."""

from __future__ import annotations

from decimal import Decimal

from fieldhouse.model.aggregate import parse_aggregate
from fieldhouse.model.listquery import parse_list_query
from fieldhouse.storage import Store
from tests.storage.conftest import MOD, A, B, record

#: amounts whose float sum drifts (0.1 + 0.2 + ... is not what a person adds up)
AMOUNTS = [0.1, 0.2, -0.05, 0.0000000001]


async def test_sums_and_averages_are_exact_decimals(store: Store) -> None:
    async with store.write(A) as txn:
        for n, amount in enumerate(AMOUNTS, 10):
            await txn.insert_record(record(A, f"r{n}", f"deal {n}", amount=amount))
        await txn.insert_record(record(A, "r30", "no amount"))
    async with store.write(B) as txn:
        await txn.insert_record(record(B, "s10", "other", amount=1))
    _, schemas = await store.load_schemas(A)
    schema = schemas["deals"]
    spec = parse_aggregate(None, "count,sum:amount,avg:amount,min:amount,max:amount", schema)
    got = await store.aggregate(A, schema, parse_list_query({}, schema), spec)
    exact = sum(Decimal(repr(a)) for a in AMOUNTS)
    assert float(sum(AMOUNTS)) != float(exact)  # the drift this avoids
    (group,) = got["groups"]
    assert group["count"] == 5
    assert group["metrics"] == {
        "count": 5,
        "sum:amount": float(exact),
        "avg:amount": float(exact / len(AMOUNTS)),
        "min:amount": -0.05,
        "max:amount": 0.2,
    }
    by_day = parse_aggregate("created_at:day", "sum:amount", schema)
    named = parse_list_query({"search": "deal 1"}, schema)  # deal 10 .. deal 13
    got = await store.aggregate(A, schema, named, by_day)
    assert got["groups"] == [
        {"key": "2026-01-01", "count": 4, "metrics": {"sum:amount": float(exact)}}
    ]


async def test_a_kept_answer_follows_every_write(store: Store) -> None:
    _, schemas = await store.load_schemas(A)
    schema = schemas["deals"]
    spec = parse_aggregate(None, "count,sum:amount", schema)
    query = parse_list_query({}, schema)

    async def totals() -> tuple[int, object]:
        (group,) = (await store.aggregate(A, schema, query, spec))["groups"]
        return group["count"], group["metrics"]["sum:amount"]

    assert await totals() == (0, 0)
    async with store.write(A) as txn:  # no activity entry: the store's own count moves
        await txn.insert_record(record(A, "r01", "one", amount=2.5))
    assert await totals() == (1, 2.5)
    assert await totals() == (1, 2.5)
    async with store.write(A) as txn:
        await txn.soft_delete(f"{MOD}-{A}", ["r01"], "2026-01-02T00:00:00.000000Z", None)
    assert await totals() == (0, 0)
