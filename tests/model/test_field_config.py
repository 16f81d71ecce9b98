"""Custom field definitions: slugs and names from labels, config checks, and which fields
depend on a field (so it cannot be deleted or retyped under them)."""

from __future__ import annotations

from typing import Any

from fieldhouse.model.field_config import (
    check_field_config,
    dependent_fields,
    formula_refs,
    name_from_slug,
    slug_from_label,
)
from fieldhouse.model.schema import FieldDef, ModuleDef, ModuleSchema


def field(slug: str, data_type: str, module_id: str = "m-deals", **config: Any) -> FieldDef:
    return FieldDef(f"id-{slug}", module_id, name_from_slug(slug), slug, slug, data_type, config)


def schema(slug: str, *fields: FieldDef) -> ModuleSchema:
    return ModuleSchema(ModuleDef(f"m-{slug}", "acct", slug.title(), slug), fields, (), ())


def test_slugs_and_names_from_labels() -> None:
    assert slug_from_label("Renewal date!") == "renewal-date"
    assert slug_from_label("2nd phone") == "field-2nd-phone"
    assert slug_from_label("???") == "field"
    assert len(slug_from_label("word " * 40)) <= 64
    assert name_from_slug("renewal-date") == "RenewalDate"


def test_formula_references_come_from_the_expression() -> None:
    assert formula_refs({"formula": {"expression": "{amount} * {rate} + {amount}"}}) == [
        "amount",
        "rate",
    ]
    # an expression that does not parse falls back to the stored list
    broken = {"formula": {"expression": "{amount *", "referencedFields": ["amount"]}}
    assert formula_refs(broken) == ["amount"]
    assert formula_refs({}) == []


def test_a_config_is_checked_on_a_copy() -> None:
    config: dict[str, Any] = {"options": ["a", "b"], "nested": {"x": 1}}
    out, issues = check_field_config("no_such_type", config, schema("deals"), self_slug="f")
    assert (out, issues) == (config, [])
    out["nested"]["x"] = 2
    assert config["nested"]["x"] == 1


def test_a_broken_formula_is_an_issue_under_config() -> None:
    deals = schema("deals", field("amount", "number"))
    config = {"formula": {"expression": "{amount} *"}}
    _, issues = check_field_config("formula", config, deals, self_slug="total")
    assert issues and all(i.path[0] == "config" for i in issues)


def test_fields_that_name_a_field_depend_on_it() -> None:
    amount = field("amount", "number")
    total = field("total", "formula", formula={"expression": "{amount} * 2"})
    other = field("notes", "text")
    deals = schema("deals", amount, total, other)
    assert dependent_fields({"deals": deals}, deals, amount) == ["deals.total"]
    assert dependent_fields({"deals": deals}, deals, other) == []
