"""formula, rollup and autonumber definitions: never set by a client, configs checked against
the module, filter kinds by result type, and auto-numbers rendered with their affixes."""

from __future__ import annotations

from typing import Any

import pytest

from fieldhouse.model.fields.base import ConfigContext
from fieldhouse.model.fields.computed import AutonumberType, FormulaType, RollupType
from fieldhouse.model.schema import ModuleDef, ModuleSchema
from tests.model.fields.support import fd

SCHEMA = ModuleSchema(
    ModuleDef("module-1", "acct", "Invoices", "invoices"),
    (fd("number", "amount"), fd("select", "kind"), fd("reference", "deals")),
    (),
    (),
)


def ctx(slug: str, stored: dict[str, Any] | None = None) -> ConfigContext:
    return ConfigContext(SCHEMA, slug, stored, frozenset({"deals"}))


def issues_of(found: list[Any]) -> list[tuple[str, tuple[str | int, ...], str]]:
    return [(i.code, i.path, i.message) for i in found]


@pytest.mark.parametrize("kind", [FormulaType(), RollupType(), AutonumberType()])
def test_a_client_never_sets_a_computed_value(kind: Any) -> None:
    value, issues = kind.normalise(fd(kind.data_type, "total"), 42)
    assert value is None
    assert issues_of(issues) == [("read_only", (), "Field 'total' is computed and cannot be set")]


def test_formula_config_is_checked_against_the_other_fields() -> None:
    config, issues = FormulaType().check_config(
        {"formula": {"expression": "{amount} * 2", "resultType": "number"}}, ctx("total")
    )
    assert issues == [] and config["formula"]["referencedFields"] == ["amount"]
    _, unknown = FormulaType().check_config(
        {"formula": {"expression": "{nope} + 1", "resultType": "number"}}, ctx("total")
    )
    assert issues_of(unknown) == [
        ("unknown_field", ("config", "formula", "expression"), "unknown field {nope}")
    ]
    _, itself = FormulaType().check_config(
        {"formula": {"expression": "{total} + 1", "resultType": "number"}}, ctx("total")
    )
    assert issues_of(itself) == [
        (
            "self_reference",
            ("config", "formula", "expression"),
            "a formula cannot reference its own field {total}",
        )
    ]


@pytest.mark.parametrize(
    ("result_type", "base"),
    [
        ("number", "number"),
        ("date", "date"),
        ("boolean", "boolean"),
        ("text", "text"),
        (None, "text"),
    ],
)
def test_formula_filters_by_its_result_type(result_type: str | None, base: str) -> None:
    config: dict[str, Any] = {} if result_type is None else {"formula": {"resultType": result_type}}
    kind = FormulaType().filter_kind(fd("formula", "total", **config))
    assert (kind.base, kind.slug) == (base, "total")
    assert RollupType().filter_kind(fd("rollup", "sum")).base == "number"


def test_rollup_must_follow_a_linking_field() -> None:
    good = {
        "rollup": {"linkedFieldSlug": "deals", "aggregation": "SUM", "aggregateFieldSlug": "amount"}
    }
    assert RollupType().check_config(good, ctx("sum")) == (good, [])
    bad = {"rollup": {"linkedFieldSlug": "amount", "aggregation": "COUNT"}}
    assert issues_of(RollupType().check_config(bad, ctx("sum"))[1]) == [
        (
            "unknown_field",
            ("config", "rollup", "linkedFieldSlug"),
            "linkedFieldSlug 'amount' is not a reference field of this module",
        )
    ]


def test_autonumber_config_refusals() -> None:
    config = {
        "autonumber": {
            "formatType": "odd",
            "padding": 21,
            "startFrom": -1,
            "prefix": 3,
            "typeFieldSlug": "zz",
            "sequenceByType": [],
        }
    }
    _, issues = AutonumberType().check_config(config, ctx("num"))
    base = ("config", "autonumber")
    assert issues_of(issues) == [
        (
            "invalid_enum_value",
            (*base, "formatType"),
            "formatType must be one of none, prefix, suffix, both",
        ),
        ("too_big", (*base, "padding"), "padding must be at most 20"),
        ("too_small", (*base, "startFrom"), "startFrom must be at least 0"),
        ("invalid_type", (*base, "prefix"), "prefix must be a string"),
        (
            "unknown_field",
            (*base, "typeFieldSlug"),
            "typeFieldSlug 'zz' is not a field of this module",
        ),
        ("invalid_type", (*base, "sequenceByType"), "sequenceByType must be an object"),
    ]
    _, not_int = AutonumberType().check_config({"autonumber": {"padding": True}}, ctx("num"))
    assert issues_of(not_int) == [
        ("invalid_type", (*base, "padding"), "padding must be an integer")
    ]


def test_autonumber_counters_are_the_servers() -> None:
    """A client cannot move the counters: what it sends is dropped, the stored ones kept."""
    sent = {"autonumber": {"nextValue": 1, "sequenceCounters": {"a": 1}}}
    fresh, issues = AutonumberType().check_config(sent, ctx("num"))
    assert issues == [] and fresh == {"autonumber": {"formatType": "none"}}
    stored = {"autonumber": {"nextValue": 7, "sequenceCounters": {"credits": 3}}}
    sent = {"autonumber": {"prefix": "INV-", "nextValue": 1}}
    kept, _ = AutonumberType().check_config(sent, ctx("num", stored))
    assert kept["autonumber"] == {
        "prefix": "INV-",
        "formatType": "none",
        "nextValue": 7,
        "sequenceCounters": {"credits": 3},
    }


def test_autonumber_render_and_sequence() -> None:
    auto = AutonumberType()
    f = fd(
        "autonumber",
        "num",
        autonumber={
            "formatType": "both",
            "prefix": "INV-",
            "suffix": "/26",
            "padding": 4,
            "typeFieldSlug": "kind",
            "sequenceByType": {"credit": {"prefix": "CR-", "sequenceName": "credits"}, "debit": {}},
        },
    )
    assert auto.render(f, {}, 7) == "INV-0007/26"
    assert auto.render(f, {"kind": "credit"}, 12345) == "CR-12345/26"
    assert auto.sequence(f, {"kind": "credit"}) == "credits"
    assert auto.sequence(f, {"kind": "debit"}) == "debit"  # no sequenceName: the type's own
    assert auto.sequence(f, {"kind": "other"}) is None
    # a prefix without a formatType is shown; no config at all is the bare number
    assert auto.render(fd("autonumber", "n", autonumber={"prefix": "T-"}), {}, 3) == "T-3"
    assert auto.render(fd("autonumber", "n"), {}, 3) == "3"


def test_autonumber_counters_advance_from_their_start_in_a_copy() -> None:
    kind = AutonumberType()
    config: dict[str, Any] = {}
    numbers = []
    for _ in range(3):
        number, config = kind.next_number(config, None)
        numbers.append(number)
    assert numbers == [1, 2, 3] and config == {"autonumber": {"nextValue": 4}}
    zero = {"autonumber": {"startFrom": 0}}
    assert kind.next_number(zero, None)[0] == 0  # 0 is a start, not a missing one
    by_type = {"autonumber": {"startFrom": 100, "nextValue": 7}}
    first, advanced = kind.next_number(by_type, "credits")
    second, advanced = kind.next_number(advanced, "credits")
    third, advanced = kind.next_number(advanced, None)
    assert (first, second, third) == (100, 101, 7)
    assert advanced == {
        "autonumber": {"startFrom": 100, "nextValue": 8, "sequenceCounters": {"credits": 102}}
    }
    assert by_type == {"autonumber": {"startFrom": 100, "nextValue": 7}}  # left as it was
    assert kind.counts and not FormulaType().counts
