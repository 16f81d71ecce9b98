from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fieldhouse.model.rollup import (
    AGGREGATIONS,
    compute_rollup,
    rollup_matches,
    validate_rollup_config,
)

DEALS: list[dict[str, Any]] = [
    {
        "amount": {"amount": 100, "currency": "USD"},
        "stage": "won",
        "size": 3,
        "closed": "2024-01-10",
        "tags": ["a", "b"],
        "owner": {"recordId": "u1", "displayName": "Ada"},
        "title": "Big Deal",
    },
    {
        "amount": {"amount": 50.5, "currency": "USD"},
        "stage": "won",
        "size": 2,
        "closed": "2024-03-01",
        "tags": ["b"],
        "owner": {"recordId": "u2", "displayName": "Bob"},
        "title": "small deal",
    },
    {
        "amount": {"amount": 20, "currency": "USD"},
        "stage": "lost",
        "size": None,
        "closed": "2023-12-24",
        "tags": [],
        "owner": {"recordId": "u1", "displayName": "Ada"},
        "title": "Other",
    },
    {"amount": None, "stage": "open", "size": 7, "closed": None, "tags": None, "title": ""},
]


def rollup(aggregation: str, slug: str | None, **extra: Any) -> dict[str, Any]:
    return {
        "rollup": {
            "linkedFieldSlug": "deals",
            "aggregateFieldSlug": slug,
            "aggregation": aggregation,
            **extra,
        }
    }


WON = {"stage": "won"}


# --- aggregations ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("aggregation", "slug", "criteria", "expected"),
    [
        ("COUNT", None, None, 4),
        ("COUNT", "size", None, 3),
        ("COUNT", "closed", None, 3),
        ("COUNT", "title", None, 3),
        ("COUNT", "tags", None, 2),
        ("COUNT", "size", WON, 2),
        ("COUNT", None, WON, 2),
        ("COUNTALL", None, None, 4),
        ("COUNTALL", "size", None, 4),
        ("COUNTALL", None, WON, 2),
        ("COUNTA", "stage", None, 3),
        ("COUNTA", "stage", WON, 1),
        ("COUNTA", "owner", None, 2),
        ("COUNTA", "tags", None, 2),
        ("COUNTA", "size", {"stage": ["won", "open"]}, 3),
        ("SUM", "amount", None, 170.5),
        ("SUM", "size", None, 12),
        ("SUM", "size", WON, 5),
        ("SUM", "size", {"stage": "nothing"}, 0),
        ("AVG", "size", None, 4.0),
        ("AVG", "amount", WON, 75.25),
        ("AVG", "size", {"stage": "nothing"}, None),
        ("MIN", "amount", None, 20),
        ("MIN", "size", WON, 2),
        ("MAX", "size", None, 7),
        ("MAX", "amount", WON, 100),
        ("MIN", "closed", None, "2023-12-24"),
        ("MAX", "closed", None, "2024-03-01"),
        ("MAX", "closed", {"stage": "lost"}, "2023-12-24"),
        ("MIN", "size", {"stage": "nothing"}, None),
        ("MAX", "title", None, None),
    ],
)
def test_aggregations(
    aggregation: str, slug: str | None, criteria: dict[str, Any] | None, expected: Any
) -> None:
    result = compute_rollup(rollup(aggregation, slug, filterCriteria=criteria), DEALS)
    assert result == expected
    if expected is not None:
        assert type(result) is type(expected)


def test_every_aggregation_of_no_records() -> None:
    results = {agg: compute_rollup(rollup(agg, "size"), []) for agg in AGGREGATIONS}
    assert results == {
        "COUNT": 0,
        "COUNTALL": 0,
        "COUNTA": 0,
        "SUM": 0,
        "AVG": None,
        "MIN": None,
        "MAX": None,
    }


@pytest.mark.parametrize(
    ("aggregation", "places", "expected"),
    [
        ("AVG", 2, 56.83),
        ("AVG", 0, 57),
        ("SUM", 0, 171),
        ("SUM", 3, 170.5),
        ("MIN", 1, 20.0),
        ("COUNTALL", 2, 4),
    ],
)
def test_decimal_places(aggregation: str, places: int, expected: int | float) -> None:
    result = compute_rollup(rollup(aggregation, "amount", decimalPlaces=places), DEALS)
    assert result == expected
    assert type(result) is type(expected)


def test_float_noise_is_trimmed_without_decimal_places() -> None:
    linked = [{"x": 0.1}, {"x": 0.2}]
    assert compute_rollup(rollup("SUM", "x"), linked) == 0.3


def test_bad_config_computes_nothing() -> None:
    assert compute_rollup({}, DEALS) is None
    assert compute_rollup(rollup("MEDIAN", "size"), DEALS) is None
    assert compute_rollup(rollup("SUM", None), DEALS) is None


# --- filterCriteria ----------------------------------------------------------------------------


def conditions(*conds: dict[str, Any], conjunction: str = "AND") -> dict[str, Any]:
    return {"conditions": list(conds), "conjunction": conjunction}


def matching(criteria: dict[str, Any] | None) -> list[str]:
    return [d["title"] for d in DEALS if rollup_matches(criteria, d)]


ALL = ["Big Deal", "small deal", "Other", ""]


@pytest.mark.parametrize(
    ("criteria", "expected"),
    [
        (None, ALL),
        ({}, ALL),
        ({"stage": "won"}, ["Big Deal", "small deal"]),
        ({"stage": ["lost", "open"]}, ["Other", ""]),
        ({"stage": "won", "size": 3}, ["Big Deal"]),
        ({"owner": "u1"}, ["Big Deal", "Other"]),
        ({"owner": "Bob"}, ["small deal"]),
        ({"tags": "b"}, ["Big Deal", "small deal"]),
        ({"amount": 20}, ["Other"]),
        ({"size": None}, ["Other"]),
        ({"ghost": "x"}, []),
    ],
)
def test_simple_criteria(criteria: dict[str, Any] | None, expected: list[str]) -> None:
    assert matching(criteria) == expected


@pytest.mark.parametrize(
    ("condition", "expected"),
    [
        ({"operator": "eq", "fieldSlug": "stage", "value": "lost"}, ["Other"]),
        ({"operator": "neq", "fieldSlug": "stage", "value": "won"}, ["Other", ""]),
        ({"operator": "gt", "fieldSlug": "size", "value": 2}, ["Big Deal", ""]),
        ({"operator": "gte", "fieldSlug": "size", "value": 3}, ["Big Deal", ""]),
        ({"operator": "lt", "fieldSlug": "amount", "value": 60}, ["small deal", "Other"]),
        ({"operator": "lte", "fieldSlug": "amount", "value": "50.5"}, ["small deal", "Other"]),
        (
            {"operator": "gt", "fieldSlug": "closed", "value": "2024-01-01"},
            ["Big Deal", "small deal"],
        ),
        (
            {"operator": "contains", "fieldSlug": "title", "value": "deal"},
            ["Big Deal", "small deal"],
        ),
        ({"operator": "contains", "fieldSlug": "tags", "value": "a"}, ["Big Deal"]),
        ({"operator": "notContains", "fieldSlug": "title", "value": "deal"}, ["Other", ""]),
        ({"operator": "startsWith", "fieldSlug": "title", "value": "big"}, ["Big Deal"]),
        ({"operator": "endsWith", "fieldSlug": "title", "value": "ER"}, ["Other"]),
        ({"operator": "in", "fieldSlug": "stage", "values": ["lost", "open"]}, ["Other", ""]),
        ({"operator": "notIn", "fieldSlug": "stage", "values": ["won"]}, ["Other", ""]),
        ({"operator": "isNull", "fieldSlug": "closed"}, [""]),
        ({"operator": "isNull", "fieldSlug": "tags"}, ["Other", ""]),
        ({"operator": "isNotNull", "fieldSlug": "size"}, ["Big Deal", "small deal", ""]),
        (
            {"operator": "between", "fieldSlug": "size", "values": [2, 3]},
            ["Big Deal", "small deal"],
        ),
        ({"operator": "before", "fieldSlug": "closed", "value": "2024-01-01"}, ["Other"]),
        (
            {"operator": "after", "fieldSlug": "closed", "value": "2024-02-01T00:00:00Z"},
            ["small deal"],
        ),
        ({"operator": "bogus", "fieldSlug": "stage", "value": "won"}, []),
    ],
)
def test_condition_operators(condition: dict[str, Any], expected: list[str]) -> None:
    assert matching(conditions(condition)) == expected


def test_conjunctions_and_nested_groups() -> None:
    won = {"fieldSlug": "stage", "operator": "eq", "value": "won"}
    big = {"fieldSlug": "size", "operator": "gte", "value": 3}
    assert matching(conditions(won, big)) == ["Big Deal"]
    assert matching(conditions(won, big, conjunction="OR")) == ["Big Deal", "small deal", ""]
    lost = {"fieldSlug": "stage", "operator": "eq", "value": "lost"}
    nested = conditions(big, conditions(won, lost, conjunction="OR"))
    assert matching(nested) == ["Big Deal"]
    assert matching(conditions()) == ALL
    assert matching(conditions(conjunction="OR")) == ALL


def test_conditions_filter_aggregations() -> None:
    criteria = conditions({"fieldSlug": "owner", "operator": "eq", "value": "u1"})
    assert compute_rollup(rollup("SUM", "amount", filterCriteria=criteria), DEALS) == 120
    assert compute_rollup(rollup("COUNT", None, filterCriteria=criteria), DEALS) == 2


# --- validation ---------------------------------------------------------------------------------


def issues_of(settings: dict[str, Any]) -> list[tuple[str, tuple[str | int, ...]]]:
    config = {"rollup": {"linkedFieldSlug": "deals", "aggregation": "SUM", **settings}}
    found = validate_rollup_config(config, linked_field_slugs=["deals", "people"])
    return [(i.code, i.path) for i in found]


R = ("config", "rollup")


@pytest.mark.parametrize(
    "settings",
    [
        {"aggregateFieldSlug": "amount"},
        {"aggregation": "COUNT", "aggregateFieldSlug": None},
        {"aggregation": "COUNTALL"},
        {"aggregation": "AVG", "aggregateFieldSlug": "size", "decimalPlaces": 2, "format": "0.00"},
        {"aggregateFieldSlug": "amount", "filterCriteria": {"stage": ["won", "lost"]}},
        {
            "aggregateFieldSlug": "amount",
            "filterCriteria": conditions(
                {"fieldSlug": "stage", "operator": "in", "values": ["won"]},
                conditions({"fieldSlug": "size", "operator": "isNull"}),
                conjunction="OR",
            ),
        },
    ],
)
def test_valid_configs(settings: dict[str, Any]) -> None:
    assert issues_of(settings) == []


@pytest.mark.parametrize(
    ("settings", "expected"),
    [
        (
            {"linkedFieldSlug": "nope", "aggregateFieldSlug": "x"},
            [("unknown_field", (*R, "linkedFieldSlug"))],
        ),
        (
            {"linkedFieldSlug": None, "aggregateFieldSlug": "x"},
            [("invalid_type", (*R, "linkedFieldSlug"))],
        ),
        (
            {"aggregation": "MEDIAN", "aggregateFieldSlug": "x"},
            [("invalid_enum_value", (*R, "aggregation"))],
        ),
        (
            {"aggregation": "sum", "aggregateFieldSlug": "x"},
            [("invalid_enum_value", (*R, "aggregation"))],
        ),
        ({"aggregateFieldSlug": None}, [("invalid_type", (*R, "aggregateFieldSlug"))]),
        ({"aggregation": "COUNTA"}, [("invalid_type", (*R, "aggregateFieldSlug"))]),
        ({"aggregateFieldSlug": 3}, [("invalid_type", (*R, "aggregateFieldSlug"))]),
        ({"aggregateFieldSlug": "x", "decimalPlaces": 11}, [("too_big", (*R, "decimalPlaces"))]),
        ({"aggregateFieldSlug": "x", "decimalPlaces": -1}, [("too_small", (*R, "decimalPlaces"))]),
        ({"aggregateFieldSlug": "x", "format": 1}, [("invalid_type", (*R, "format"))]),
        (
            {"aggregateFieldSlug": "x", "filterCriteria": "won"},
            [("invalid_type", (*R, "filterCriteria"))],
        ),
        (
            {"aggregateFieldSlug": "x", "filterCriteria": {"conditions": {}}},
            [("invalid_type", (*R, "filterCriteria", "conditions"))],
        ),
        (
            {"aggregateFieldSlug": "x", "filterCriteria": {"conditions": [], "conjunction": "XOR"}},
            [("invalid_enum_value", (*R, "filterCriteria", "conjunction"))],
        ),
        (
            {
                "aggregateFieldSlug": "x",
                "filterCriteria": conditions({"fieldSlug": "a", "operator": "like"}),
            },
            [("invalid_enum_value", (*R, "filterCriteria", "conditions", 0, "operator"))],
        ),
        (
            {
                "aggregateFieldSlug": "x",
                "filterCriteria": conditions({"operator": "eq", "value": 1}),
            },
            [("invalid_type", (*R, "filterCriteria", "conditions", 0, "fieldSlug"))],
        ),
        (
            {
                "aggregateFieldSlug": "x",
                "filterCriteria": conditions({"fieldSlug": "a", "operator": "in", "value": 1}),
            },
            [("invalid_type", (*R, "filterCriteria", "conditions", 0, "values"))],
        ),
        (
            {"aggregateFieldSlug": "x", "filterCriteria": {"conditions": [7]}},
            [("invalid_type", (*R, "filterCriteria", "conditions", 0))],
        ),
    ],
)
def test_invalid_configs(
    settings: dict[str, Any], expected: list[tuple[str, tuple[str | int, ...]]]
) -> None:
    assert issues_of(settings) == expected


def test_rollup_settings_must_be_an_object() -> None:
    found = validate_rollup_config({"rollup": None}, linked_field_slugs=[])
    assert [(i.code, i.path) for i in found] == [("invalid_type", R)]


# --- properties -------------------------------------------------------------------------------

_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(["amount", "recordId", "displayName", "x"]), inner)
    ),
    max_leaves=5,
)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.dictionaries(st.sampled_from(["a", "b"]), _VALUES), max_size=6),
    st.sampled_from([*AGGREGATIONS, "BOGUS"]),
    st.sampled_from(["a", "b", None]),
    st.one_of(
        st.none(),
        st.dictionaries(st.sampled_from(["a", "b"]), _VALUES, max_size=2),
        st.builds(
            lambda op, v: conditions({"fieldSlug": "a", "operator": op, "value": v, "values": v}),
            st.sampled_from(["eq", "gt", "contains", "in", "between", "isNull", "before", "x"]),
            _VALUES,
        ),
    ),
    st.one_of(st.none(), st.integers(-1, 11)),
)
def test_compute_rollup_never_raises(
    linked: list[dict[str, Any]],
    aggregation: str,
    slug: str | None,
    criteria: dict[str, Any] | None,
    places: int | None,
) -> None:
    config = rollup(aggregation, slug, filterCriteria=criteria, decimalPlaces=places)
    result = compute_rollup(config, linked)
    assert result is None or isinstance(result, int | float | str)
