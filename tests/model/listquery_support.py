"""The schema and helpers the list-query tests share."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from fieldhouse.model.errors import Issue, ValidationFailed
from fieldhouse.model.listquery import ListQuery, parse_list_query
from fieldhouse.model.schema import FieldDef, ModuleDef, ModuleSchema

UUID_A = "0a1b2c3d-0000-4000-8000-000000000001"
UUID_B = "0A1B2C3D-0000-4000-8000-000000000002"


def _field(slug: str, data_type: str, config: Mapping[str, Any] | None = None) -> FieldDef:
    return FieldDef(f"f-{slug}", "m1", slug, slug, slug, data_type, config or {})


SCHEMA = ModuleSchema(
    module=ModuleDef("m1", "a1", "Deals", "deals"),
    fields=(
        _field("title", "text"),
        _field("status", "select", {"options": ["open", "won"]}),
        _field("amount", "number"),
        _field("active", "boolean"),
        _field("due", "date"),
        _field("at", "time"),
        _field("price", "currency"),
        _field("tags", "multi_select"),
        _field("company", "reference"),
        _field("score", "formula", {"formula": {"resultType": "number"}}),
        _field("flag", "formula", {"formula": {"resultType": "boolean"}}),
        _field("total", "rollup"),
        _field("addr", "address"),
        _field("deal-number", "autonumber"),
        _field('bad"slug', "text"),
    ),
    views=(),
    references=(),
)

Args = Mapping[str, str] | Sequence[tuple[str, str]]


def parse(args: Args) -> ListQuery:
    return parse_list_query(args, SCHEMA)


def issues_of(args: Args) -> list[Issue]:
    with pytest.raises(ValidationFailed) as info:
        parse(args)
    assert info.value.code == "validation_error" and info.value.status == 400
    return list(info.value.issues)


def one_issue(args: Args) -> Issue:
    issues = issues_of(args)
    assert len(issues) == 1, issues
    return issues[0]


def tree(*conditions: Any, conjunction: str = "AND") -> dict[str, str]:
    root = {"id": "g", "conjunction": conjunction, "conditions": list(conditions)}
    return {"advancedFilter": json.dumps({"root": root})}


def cond(field: str, op: str, **operand: Any) -> dict[str, Any]:
    return {"id": "c", "fieldSlug": field, "operator": op, **operand}


ROOT0 = ("advancedFilter", "root", "conditions", 0)
