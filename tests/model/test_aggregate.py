"""Parsing groupBy and metrics: what each groups by, and every refusal naming its parameter."""

from __future__ import annotations

import pytest

from fieldhouse.model.aggregate import MAX_METRICS, Metric, parse_aggregate
from fieldhouse.model.errors import ValidationFailed
from tests.model.listquery_support import SCHEMA


def paths(group_by: str | None, metrics: str | None) -> list[tuple[str | int, ...]]:
    with pytest.raises(ValidationFailed) as info:
        parse_aggregate(group_by, metrics, SCHEMA)
    return [i.path for i in info.value.issues]


def test_group_keys_and_metrics() -> None:
    cases = {
        "status": ("choice", None),
        "active": ("boolean", None),
        "company": ("reference", None),
        "due:week": ("date", "week"),
        "created_at:month": ("date", "month"),
        "updatedDateTime:day": ("date", "day"),
    }
    for raw, (grouping, bucket) in cases.items():
        spec = parse_aggregate(raw, None, SCHEMA)
        assert spec.group_by is not None
        assert (spec.group_by.grouping, spec.group_by.bucket) == (grouping, bucket), raw
        assert spec.metrics == (Metric("count"),)
    spec = parse_aggregate(None, "count, sum:amount,avg:price,min:amount,max:price,count", SCHEMA)
    assert spec.group_by is None
    assert [m.name for m in spec.metrics] == [
        "count",
        "sum:amount",
        "avg:price",
        "min:amount",
        "max:price",
    ]
    price = spec.metrics[2].kind
    assert price is not None and price.value_key == ("amount",)  # a currency's amount


def test_refusals_name_the_parameter() -> None:
    assert paths("title", None) == [("groupBy",)]  # text
    assert paths("tags", None) == [("groupBy",)]  # several values
    assert paths("due", None) == [("groupBy",)]  # no bucket
    assert paths("due:year", None) == [("groupBy",)]
    assert paths("status:day", None) == [("groupBy",)]
    assert paths("displayName", None) == [("groupBy",)]
    assert paths('bad"slug', None) == [("groupBy",)]
    assert paths(None, "sum:title,avg:score,count:amount,max:") == [
        ("metrics", 0),
        ("metrics", 1),  # a formula is not a stored number
        ("metrics", 2),
        ("metrics", 3),
    ]
    assert paths("nope", "median:amount") == [("groupBy",), ("metrics", 0)]
    assert paths(None, ",".join(["count"] * (MAX_METRICS + 1))) == [("metrics",)]
