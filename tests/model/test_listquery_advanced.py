"""The advancedFilter tree: its JSON shape, typed operands, limits and zod-style issues."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from fieldhouse.model.errors import Issue, ValidationFailed
from fieldhouse.model.fields import FIELD_TYPES, type_of
from fieldhouse.model.fields.kind import ALLOWED_OPS, Base
from fieldhouse.model.listquery import Condition, Group, parse_list_query
from fieldhouse.model.operators import OPERATORS
from fieldhouse.model.schema import FieldDef
from tests.model.listquery_support import (
    ROOT0,
    SCHEMA,
    cond,
    issues_of,
    one_issue,
    parse,
    tree,
)

# --- advanced filter ---------------------------------------------------------------------------


@pytest.mark.parametrize("raw", ["{", "{'root': 1}", "nope", '{"root": }', "[1,]"])
def test_invalid_json_is_a_validation_error_with_the_exact_message_and_an_issue(raw: str) -> None:
    with pytest.raises(ValidationFailed) as info:
        parse({"advancedFilter": raw, "page": "0"})
    assert info.value.message == "advancedFilter must be valid JSON"
    assert info.value.code == "validation_error" and info.value.status == 400
    error = info.value.to_json()["error"]
    assert error["message"] == "advancedFilter must be valid JSON"
    assert [(i["path"], i["message"]) for i in error["issues"]] == [
        (["advancedFilter"], "advancedFilter must be valid JSON")
    ]


def test_absent_filters() -> None:
    assert parse({"advancedFilter": ""}).advanced is None
    assert parse({"advancedFilter": "null"}).advanced is None


def test_a_valid_tree() -> None:
    inner = {
        "id": "g2",
        "conjunction": "OR",
        "conditions": [cond("status", "eq", value="won"), cond("tags", "isNull", value=1)],
    }
    q = parse(
        tree(
            cond("amount", "between", values=["1", 2.5]),
            inner,
            cond("title", "in", values=["a", 3]),
            cond("active", "eq", value="true"),
            cond("flag", "eq", value=False),
        )
    )
    assert q.advanced == Group(
        "AND",
        (
            Condition("amount", "between", None, (1, 2.5)),
            Group(
                "OR",
                (Condition("status", "eq", "won", None), Condition("tags", "isNull", None, None)),
            ),
            Condition("title", "in", None, ("a", "3")),
            Condition("active", "eq", True, None),
            Condition("flag", "eq", False, None),
        ),
    )


@pytest.mark.parametrize(
    ("condition", "value"),
    [
        (cond("due", "before", value="2026-01-02T23:30:00-05:00"), "2026-01-03"),
        (cond("due", "eq", value="2026-01-02"), "2026-01-02"),
        (
            cond("created_at", "after", value="2026-01-02T03:04:05+01:00"),
            "2026-01-02T02:04:05.000000Z",
        ),
        (cond("createdDateTime", "gte", value="2026-01-02"), "2026-01-02"),
        (cond("updated_at", "lt", value="2026-01-02T03:04:05.5Z"), "2026-01-02T03:04:05.500000Z"),
        (cond("at", "gt", value="09:30"), "09:30"),
        (cond("price", "gte", value="12.50"), 12.5),
        (cond("amount", "eq", value=2**70), float(2**70)),
        (cond("score", "lt", value=3), 3),
        (cond("total", "eq", value=0), 0),
        (cond("company", "eq", value="Some-Id"), "Some-Id"),
        (cond("displayName", "startsWith", value="Ac"), "Ac"),
        (cond("addr", "contains", value="Paris"), "Paris"),
    ],
)
def test_operands_are_typed(condition: dict[str, Any], value: Any) -> None:
    q = parse(tree(condition))
    assert q.advanced is not None
    leaf = q.advanced.items[0]
    assert isinstance(leaf, Condition) and leaf.value == value
    assert type(leaf.value) is type(value)


def test_top_level_shape() -> None:
    issue = one_issue({"advancedFilter": "[]"})
    assert issue.code == "invalid_type" and issue.path == ("advancedFilter",)
    issue = one_issue({"advancedFilter": "{}"})
    assert issue.code == "invalid_type" and issue.path == ("advancedFilter", "root")
    issue = one_issue({"advancedFilter": '{"root": {"conjunction": "AND"}}'})
    assert issue.path == ("advancedFilter", "root", "conditions")
    issue = one_issue({"advancedFilter": '{"root": {"conjunction": "AND", "conditions": [1]}}'})
    assert issue.code == "invalid_type" and issue.path == ROOT0


@pytest.mark.parametrize(
    ("condition", "path", "code", "extra"),
    [
        (cond("nope", "eq", value=1), ("fieldSlug",), "custom", {}),
        (cond('bad"slug', "eq", value=1), ("fieldSlug",), "custom", {}),
        ({"operator": "eq", "value": 1}, ("fieldSlug",), "invalid_type", {}),
        (cond("title", "like", value="x"), ("operator",), "invalid_enum_value", {}),
        (cond("title", "eq"), ("value",), "invalid_type", {"received": "undefined"}),
        (cond("title", "eq", value=None), ("value",), "invalid_type", {}),
        (cond("title", "eq", value={"a": 1}), ("value",), "invalid_type", {}),
        (cond("amount", "gt", value="abc"), ("value",), "invalid_type", {}),
        (cond("amount", "gt", value=True), ("value",), "invalid_type", {}),
        (cond("active", "eq", value="yes"), ("value",), "invalid_type", {}),
        (cond("due", "after", value="2026-13-01"), ("value",), "invalid_type", {}),
        (cond("due", "after", value="soon"), ("value",), "invalid_type", {}),
        (cond("created_at", "after", value="2026-01-01T25:00"), ("value",), "invalid_type", {}),
        (cond("at", "gt", value="9am"), ("value",), "invalid_type", {}),
        (cond("title", "eq", value="\ud800"), ("value",), "invalid_type", {}),
        (cond("active", "gt", value=True), ("operator",), "custom", {}),
        (cond("amount", "before", value="2026-01-01"), ("operator",), "custom", {}),
        (cond("title", "after", value="2026-01-01"), ("operator",), "custom", {}),
        (cond("amount", "contains", value="1"), ("operator",), "custom", {}),
        (cond("title", "gt", value="a"), ("operator",), "custom", {}),
        (cond("addr", "eq", value="a"), ("operator",), "custom", {}),
        (cond("flag", "lt", value=1), ("operator",), "custom", {}),
        (cond("amount", "between", values=[1]), ("values",), "too_small", {"minimum": 2}),
        (cond("amount", "between", values=[1, 2, 3]), ("values",), "too_big", {"maximum": 2}),
        (cond("amount", "between", value=1), ("values",), "invalid_type", {}),
        (cond("amount", "between", values=[1, "x"]), ("values", 1), "invalid_type", {}),
        (cond("title", "in", values=[]), ("values",), "too_small", {"minimum": 1}),
        (cond("title", "in", values=list(range(101))), ("values",), "too_big", {"maximum": 100}),
        (cond("title", "notIn", value="a"), ("values",), "invalid_type", {}),
        (cond("title", "notIn", values="a"), ("values",), "invalid_type", {}),
    ],
)
def test_bad_conditions(
    condition: dict[str, Any], path: tuple[str | int, ...], code: str, extra: dict[str, Any]
) -> None:
    issue = one_issue(tree(condition))
    assert issue.path == (*ROOT0, *path) and issue.code == code, issue
    for key, value in extra.items():
        assert issue.extra[key] == value


#: one field of every registered type (default config), beside the shared schema's variants
_EVERY_TYPE = replace(
    SCHEMA,
    fields=(
        *(f for f in SCHEMA.fields if f.slug != 'bad"slug'),
        *(
            FieldDef(
                f"t-{name}", "m1", name, slug=f"t-{name}", label=name, data_type=name, config={}
            )
            for name in FIELD_TYPES
        ),
    ),
)


def _operator_issue(slug: str, op: str) -> Issue | None:
    """The refusal of ``op`` on ``slug``, or None when the parser takes the operator."""
    try:
        parse_list_query(tree(cond(slug, op, value="x", values=["x", "y"])), _EVERY_TYPE)
    except ValidationFailed as exc:
        found = [i for i in exc.issues if i.path == (*ROOT0, "operator")]
        return found[0] if found else None
    return None


@pytest.mark.parametrize("field", _EVERY_TYPE.fields, ids=lambda f: f.slug)
def test_a_fields_type_decides_its_operators(field: FieldDef) -> None:
    """The parser takes exactly the operators the field's type lists, and a refusal names
    them: a type narrows or widens its operators in its own module."""
    ftype = type_of(field)
    assert ftype is not None
    allowed = ftype.operators(field)
    for op in OPERATORS:
        issue = _operator_issue(field.slug, op)
        if op in allowed:
            assert issue is None, (op, issue)
            continue
        assert issue is not None, op
        base = ftype.filter_kind(field).base
        assert issue.message == (
            f"Operator {op!r} is not supported for field {field.slug!r} ({base})"
        )
        assert issue.extra == {"allowed": sorted(allowed)}


@pytest.mark.parametrize(("key", "base"), [("displayName", "text"), ("created_at", "datetime")])
def test_a_system_key_takes_its_kinds_operators(key: str, base: Base) -> None:
    for op in OPERATORS:
        issue = _operator_issue(key, op)
        assert (issue is None) == (op in ALLOWED_OPS[base]), (op, issue)
        if issue is not None:
            assert issue.extra == {"allowed": sorted(ALLOWED_OPS[base])}


def test_between_accepts_a_two_item_value() -> None:
    q = parse(tree(cond("amount", "between", value=[1, 2])))
    assert q.advanced is not None and q.advanced.items == (
        Condition("amount", "between", None, (1, 2)),
    )


def test_null_operators_need_no_operand() -> None:
    q = parse(tree(cond("title", "isNull"), cond("addr", "isNotNull", value="ignored")))
    assert q.advanced is not None
    assert q.advanced.items == (
        Condition("title", "isNull", None, None),
        Condition("addr", "isNotNull", None, None),
    )


def test_bad_conjunctions() -> None:
    issue = one_issue(tree(conjunction="XOR"))
    assert issue.code == "invalid_enum_value" and issue.path == (
        "advancedFilter",
        "root",
        "conjunction",
    )
    assert issue.extra["options"] == ["AND", "OR"]
    nested = {"conjunction": "and", "conditions": []}
    issue = one_issue(tree(nested))
    assert issue.path == (*ROOT0, "conjunction")


def test_issues_in_several_conditions_are_all_reported() -> None:
    nested = {"conjunction": "OR", "conditions": [cond("ok", "eq", value=1)]}
    issues = issues_of(tree(cond("nope", "eq", value=1), cond("amount", "gt", value="x"), nested))
    assert [i.path for i in issues] == [
        (*ROOT0, "fieldSlug"),
        ("advancedFilter", "root", "conditions", 1, "value"),
        ("advancedFilter", "root", "conditions", 2, "conditions", 0, "fieldSlug"),
    ]


def _nest(levels: int) -> dict[str, Any]:
    group: dict[str, Any] = {"conjunction": "AND", "conditions": [cond("title", "isNull")]}
    for _ in range(levels - 1):
        group = {"conjunction": "OR", "conditions": [group]}
    return group


def test_nesting_depth() -> None:
    q = parse({"advancedFilter": json.dumps({"root": _nest(5)})})
    assert q.advanced is not None
    issue = one_issue({"advancedFilter": json.dumps({"root": _nest(6)})})
    assert issue.code == "too_big" and issue.extra["maximum"] == 5
    assert issue.path == ("advancedFilter", "root", *(("conditions", 0) * 5))


def test_absurd_json_nesting_is_a_validation_issue() -> None:
    issue = one_issue({"advancedFilter": "[" * 100_000 + "]" * 100_000})
    assert issue.code == "too_big" and issue.path == ("advancedFilter",)


def test_condition_count() -> None:
    fifty = [cond("title", "isNull") for _ in range(50)]
    assert parse(tree(*fifty[:25], {"conjunction": "OR", "conditions": fifty[25:]})).advanced
    issue = one_issue(tree(*fifty, cond("title", "isNull")))
    assert issue.code == "too_big" and issue.extra["maximum"] == 50
    assert issue.path == ("advancedFilter", "root")
    nested = {"conjunction": "OR", "conditions": fifty[:26]}
    assert one_issue(tree(*fifty[:25], nested)).extra["maximum"] == 50


def test_validation_error_renders_zod_style() -> None:
    with pytest.raises(ValidationFailed) as info:
        parse({"pageSize": "0"})
    body = info.value.to_json()["error"]
    assert body["code"] == "validation_error" and body["statusCode"] == 400
    assert body["issues"] == [
        {
            "code": "too_small",
            "path": ["pageSize"],
            "message": "Number must be greater than or equal to 1",
            "minimum": 1,
            "inclusive": True,
            "type": "number",
        }
    ]
