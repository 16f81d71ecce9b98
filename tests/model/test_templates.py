"""The built-in template catalog: coverage of every field type and internal consistency."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from typing import Any

import pytest

from fieldhouse.model.fields import DATA_TYPES
from fieldhouse.model.schema import Template, TemplateField
from fieldhouse.model.templates import BUILTIN_TEMPLATES, get_template

KEBAB = re.compile(r"^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$")
PASCAL = re.compile(r"^[A-Z][A-Za-z0-9]*$")
FORMULA_REF = re.compile(r"\{([^{}]+)\}")
FORMULA_CALL = re.compile(r"\b([A-Z][A-Z0-9]*)\s*\(")
FORMULA_FUNCTIONS = {
    *("CONCAT", "UPPER", "LOWER", "LEFT", "RIGHT", "TRIM", "LEN"),
    *("SUM", "ROUND", "ABS", "FLOOR", "CEIL", "MIN", "MAX"),
    *("DATEDIFF", "DATEADD", "TODAY", "NOW", "YEAR", "MONTH", "DAY"),
    *("IF", "AND", "OR", "NOT", "ISBLANK"),
}

#: The SPEC's config keys per dataType ("isDisplayField" marks a module's display field).
ALLOWED_CONFIG_KEYS: dict[str, set[str]] = {
    "text": {"maxLength", "pattern", "prefix", "suffix"},
    "textarea": {"maxLength", "rows"},
    "rich_text": {"richText"},
    "email": {"email", "emailConfig"},
    "url": {"url"},
    "phone": {"phone", "phoneConfig"},
    "address": {"address"},
    "number": {"decimals", "min", "max", "prefix", "suffix", "allowNegative"},
    "currency": {"currency"},
    "date": {"format", "minDate", "maxDate"},
    "time": {"time"},
    "date_range": {"dateRange"},
    "duration": {"duration"},
    "select": {"options", "select"},
    "multi_select": {"options", "multiSelect"},
    "boolean": {"default", "label"},
    "reference": {"reference"},
    "person": {"person"},
    "parent_record": {"parentRecord"},
    "formula": {"formula"},
    "rollup": {"rollup"},
    "autonumber": {"autonumber"},
    "image": {"image"},
    "rating": {"rating"},
    "progress": {"progress"},
    "social_profile": {"platforms", "allowMultiple"},
}

#: Shape the brief asks for: (module slug, field slug) -> dataType.
REQUIRED_FIELDS: dict[str, dict[str, str]] = {
    "contacts": {
        "first-name": "text",
        "last-name": "text",
        "emails": "email",
        "phones": "phone",
        "address": "address",
        "company": "reference",
        "linkedin": "social_profile",
        "avatar": "image",
        "birthday": "date",
        "lifecycle": "select",
        "tags": "multi_select",
        "do-not-contact": "boolean",
        "owner": "person",
        "notes": "rich_text",
    },
    "companies": {
        "website": "url",
        "industry": "select",
        "employees": "number",
        "annual-revenue": "currency",
        "parent-company": "parent_record",
        "deals": "reference",
        "total-won-deal-value": "rollup",
        "health": "rating",
    },
    "deals": {
        "company": "reference",
        "contacts": "reference",
        "stage": "select",
        "amount": "currency",
        "probability": "progress",
        "close-date": "date",
        "deal-number": "autonumber",
        "sales-cycle": "duration",
        "contract-period": "date_range",
    },
    "tasks": {
        "title": "text",
        "due-date": "date",
        "due-time": "time",
        "status": "select",
        "priority": "select",
        "assignee": "person",
        "related-deal": "reference",
        "estimate": "duration",
        "done": "boolean",
        "task-number": "autonumber",
        "description": "textarea",
        "parent-task": "parent_record",
    },
}

TEMPLATE_IDS = [t.slug for t in BUILTIN_TEMPLATES]


def by_module(module_slug: str) -> Template:
    for t in BUILTIN_TEMPLATES:
        if t.module_slug == module_slug:
            return t
    raise AssertionError(f"no template for module {module_slug}")


def fields_of(template: Template, data_type: str) -> Iterator[TemplateField]:
    return (f for f in template.fields if f.data_type == data_type)


def field_map(template: Template) -> dict[str, TemplateField]:
    return {f.slug: f for f in template.fields}


def option_values(config: Mapping[str, Any]) -> list[str]:
    out: list[str] = []
    for opt in config["options"]:
        out.append(opt if isinstance(opt, str) else opt["value"])
    return out


# --- catalog as a whole ---


def test_templates_use_registered_data_types() -> None:
    used = {f.data_type for t in BUILTIN_TEMPLATES for f in t.fields}
    assert used <= set(DATA_TYPES)


def test_catalog_has_the_four_modules() -> None:
    assert {t.module_slug for t in BUILTIN_TEMPLATES} >= {"contacts", "companies", "deals", "tasks"}
    assert len({t.slug for t in BUILTIN_TEMPLATES}) == len(BUILTIN_TEMPLATES)
    assert len({t.module_slug for t in BUILTIN_TEMPLATES}) == len(BUILTIN_TEMPLATES)
    for t in BUILTIN_TEMPLATES:
        assert t.version == "1.0.0"
        assert KEBAB.match(t.slug) and KEBAB.match(t.module_slug)
        assert t.name and t.description and t.module_name


def test_get_template() -> None:
    for t in BUILTIN_TEMPLATES:
        assert get_template(t.slug) is t
    assert get_template("contacts") is by_module("contacts")
    assert get_template("no-such-template") is None
    assert get_template("") is None


def test_catalog_is_json_serialisable() -> None:
    for t in BUILTIN_TEMPLATES:
        for f in t.fields:
            json.dumps(f.config)
        for v in t.views:
            json.dumps(v.config)


@pytest.mark.parametrize("module_slug", sorted(REQUIRED_FIELDS))
def test_required_shape(module_slug: str) -> None:
    fields = field_map(by_module(module_slug))
    for slug, data_type in REQUIRED_FIELDS[module_slug].items():
        assert slug in fields, slug
        assert fields[slug].data_type == data_type, slug


# --- per template ---


@pytest.mark.parametrize("template", BUILTIN_TEMPLATES, ids=TEMPLATE_IDS)
def test_field_identity_rules(template: Template) -> None:
    slugs = [f.slug for f in template.fields]
    names = [f.name for f in template.fields]
    assert len(slugs) == len(set(slugs))
    assert len(names) == len(set(names))
    for f in template.fields:
        assert KEBAB.match(f.slug), f.slug
        assert PASCAL.match(f.name), f.name
        assert f.label.strip() and f.label[0].isupper(), f.label
        assert f.data_type in DATA_TYPES
        assert f.privacy_level == "account"


@pytest.mark.parametrize("template", BUILTIN_TEMPLATES, ids=TEMPLATE_IDS)
def test_config_keys_follow_the_spec(template: Template) -> None:
    for f in template.fields:
        keys = set(f.config) - {"isDisplayField"}
        assert keys <= ALLOWED_CONFIG_KEYS[f.data_type], (f.slug, keys)
        assert keys, f"{f.slug} has no type config"


@pytest.mark.parametrize("template", BUILTIN_TEMPLATES, ids=TEMPLATE_IDS)
def test_exactly_one_display_field(template: Template) -> None:
    display = [f for f in template.fields if f.config.get("isDisplayField")]
    assert len(display) == 1
    assert display[0].data_type == "text"
    assert display[0].is_required


@pytest.mark.parametrize("template", BUILTIN_TEMPLATES, ids=TEMPLATE_IDS)
def test_every_reference_field_has_a_template_reference(template: Template) -> None:
    refs = {r.slug: r for r in template.references}
    linked = [f for f in template.fields if f.data_type in ("reference", "parent_record")]
    assert {f.slug for f in linked} == set(refs)
    assert len(refs) == len(template.references)
    module_slugs = {t.module_slug for t in BUILTIN_TEMPLATES}
    for f in linked:
        ref = refs[f.slug]
        assert ref.source_field_slug == f.slug
        assert ref.target_type == "module"
        if f.data_type == "parent_record":
            assert ref.target_module_slug == template.module_slug
            assert ref.relationship_type == "many_to_one"
            parent = f.config["parentRecord"]
            assert 1 <= parent["maxDepth"] <= 10 and parent["preventCycles"] is True
        else:
            cfg = f.config["reference"]
            assert cfg["targetType"] == "module"
            assert cfg["allowedModuleSlugs"] == [ref.target_module_slug]
            expected = "many_to_many" if cfg["selectionMode"] == "multi" else "many_to_one"
            assert cfg["selectionMode"] in ("single", "multi")
            assert ref.relationship_type == expected
        assert ref.target_module_slug in module_slugs


@pytest.mark.parametrize("template", BUILTIN_TEMPLATES, ids=TEMPLATE_IDS)
def test_formulas_reference_existing_fields(template: Template) -> None:
    fields = field_map(template)
    for f in fields_of(template, "formula"):
        formula = f.config["formula"]
        in_expression = list(dict.fromkeys(FORMULA_REF.findall(formula["expression"])))
        assert formula["referencedFields"] == in_expression
        assert set(in_expression) <= set(fields)
        assert f.slug not in in_expression
        assert formula["resultType"] in ("text", "number", "date", "boolean")
        assert set(FORMULA_CALL.findall(formula["expression"])) <= FORMULA_FUNCTIONS


@pytest.mark.parametrize("template", BUILTIN_TEMPLATES, ids=TEMPLATE_IDS)
def test_rollups_follow_a_reference_field(template: Template) -> None:
    fields = field_map(template)
    for f in fields_of(template, "rollup"):
        rollup = f.config["rollup"]
        linked = fields[rollup["linkedFieldSlug"]]
        assert linked.data_type == "reference"
        target = get_template(linked.config["reference"]["allowedModuleSlugs"][0])
        assert target is not None
        target_fields = field_map(target)
        assert rollup["aggregation"] in ("COUNT", "COUNTALL", "COUNTA", "SUM", "AVG", "MIN", "MAX")
        if rollup["aggregateFieldSlug"] is None:
            assert rollup["aggregation"] in ("COUNT", "COUNTALL")
        else:
            assert rollup["aggregateFieldSlug"] in target_fields
        for key, value in rollup["filterCriteria"].items():
            assert key in target_fields
            if target_fields[key].data_type == "select":
                assert value in option_values(target_fields[key].config)


@pytest.mark.parametrize("template", BUILTIN_TEMPLATES, ids=TEMPLATE_IDS)
def test_selects_are_consistent(template: Template) -> None:
    for f in template.fields:
        if f.data_type not in ("select", "multi_select"):
            continue
        values = option_values(f.config)
        assert values and len(values) == len(set(values))
        for opt in f.config["options"]:
            assert KEBAB.match(opt["value"]) and opt["label"]
            assert re.fullmatch(r"#[0-9a-f]{6}", opt["color"])
        if f.data_type == "select":
            assert f.config["select"]["defaultOptionSlug"] in values
        else:
            assert set(f.config["multiSelect"]["defaultOptionSlugs"]) <= set(values)


@pytest.mark.parametrize("template", BUILTIN_TEMPLATES, ids=TEMPLATE_IDS)
def test_autonumbers_are_consistent(template: Template) -> None:
    fields = field_map(template)
    for f in fields_of(template, "autonumber"):
        auto = f.config["autonumber"]
        assert auto["formatType"] in ("none", "prefix", "suffix", "both")
        if auto["formatType"] in ("prefix", "both"):
            assert auto["prefix"]
        if auto["formatType"] in ("suffix", "both"):
            assert auto["suffix"]
        assert auto["nextValue"] == auto["startFrom"] == 1
        if "typeFieldSlug" in auto:
            type_field = fields[auto["typeFieldSlug"]]
            assert type_field.data_type == "select"
            assert set(auto["sequenceByType"]) <= set(option_values(type_field.config))


def test_deals_details() -> None:
    deals = field_map(by_module("deals"))
    assert {"lead", "qualified", "proposal", "won", "lost"} <= set(
        option_values(deals["stage"].config)
    )
    assert deals["deal-number"].config["autonumber"] == {
        "formatType": "prefix",
        "prefix": "DEAL-",
        "padding": 5,
        "startFrom": 1,
        "nextValue": 1,
    }
    formula = deals["weighted-value"].config["formula"]
    assert formula["expression"] == "{amount} * {probability} / 100"
    assert formula["resultType"] == "number" and formula["decimalPlaces"] == 2
    currency = deals["amount"].config["currency"]
    assert currency["defaultCurrency"] in currency["allowedCurrencies"]
    boards = [v for v in by_module("deals").views if v.config["type"] == "board"]
    assert [v.config["groupBy"] for v in boards] == ["stage"]


def test_companies_rollup_over_deals() -> None:
    companies = field_map(by_module("companies"))
    assert companies["deals"].config["reference"]["selectionMode"] == "multi"
    assert companies["total-won-deal-value"].config["rollup"] == {
        "linkedFieldSlug": "deals",
        "aggregateFieldSlug": "amount",
        "aggregation": "SUM",
        "filterCriteria": {"stage": "won"},
        "decimalPlaces": 2,
        "format": "currency",
    }


@pytest.mark.parametrize("template", BUILTIN_TEMPLATES, ids=TEMPLATE_IDS)
def test_views_point_at_existing_fields(template: Template) -> None:
    fields = field_map(template)
    assert 2 <= len(template.views) <= 3
    slugs = [v.slug for v in template.views]
    assert len(slugs) == len(set(slugs))
    for v in template.views:
        assert KEBAB.match(v.slug) and v.name
        cfg = v.config
        assert cfg["type"] in ("table", "board")
        listed = cfg.get("columns", []) + cfg.get("cardFields", [])
        assert listed and set(listed) <= set(fields), v.slug
        assert cfg["sort"]["field"] in fields and cfg["sort"]["direction"] in ("asc", "desc")
        if cfg["type"] == "board":
            assert fields[cfg["groupBy"]].data_type == "select"
        for cond in cfg.get("filter", {}).get("conditions", []):
            assert cond["fieldSlug"] in fields
    assert any(v.slug == "all" and v.config["type"] == "table" for v in template.views)
