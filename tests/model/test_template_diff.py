"""Template vs installed module: customisation detection, reset plans and config merging."""

from __future__ import annotations

import copy
import uuid
from dataclasses import replace
from typing import Any

import pytest

from fieldhouse.model.schema import FieldDef, ModuleSchema, ReferenceDef, Template, ViewDef
from fieldhouse.model.template_diff import (
    ResetPlan,
    has_customizations,
    merge_config,
    plan_reset,
    schema_from_template,
)
from fieldhouse.model.templates import BUILTIN_TEMPLATES, get_template

TEMPLATE_IDS = [t.slug for t in BUILTIN_TEMPLATES]
MODULE_ID = "00000000-0000-4000-8000-000000000001"


def template(slug: str) -> Template:
    t = get_template(slug)
    assert t is not None
    return t


def user_field(schema: ModuleSchema, slug: str, data_type: str = "text") -> FieldDef:
    return FieldDef(
        field_id=str(uuid.uuid4()),
        module_id=schema.module.module_id,
        name="".join(p.capitalize() for p in slug.split("-")),
        slug=slug,
        label=slug.replace("-", " ").capitalize(),
        data_type=data_type,
        config={"maxLength": 50},
        sort_order=100,
    )


def without_field(schema: ModuleSchema, slug: str) -> ModuleSchema:
    return replace(schema, fields=tuple(f for f in schema.fields if f.slug != slug))


def with_field(schema: ModuleSchema, f: FieldDef) -> ModuleSchema:
    return replace(schema, fields=(*schema.fields, f))


def changed_field(schema: ModuleSchema, slug: str, **changes: Any) -> ModuleSchema:
    return replace(
        schema,
        fields=tuple(replace(f, **changes) if f.slug == slug else f for f in schema.fields),
    )


def apply_plan(schema: ModuleSchema, plan: ResetPlan) -> ModuleSchema:
    """What a reset implementation does with a plan (fields, then views, then references)."""
    mid = schema.module.module_id
    updates = {fid: (t, cfg) for fid, t, cfg in plan.update_fields}
    fields: list[FieldDef] = []
    for f in schema.fields:
        if f.field_id in plan.delete_field_ids:
            continue
        if f.field_id in updates:
            t, cfg = updates[f.field_id]
            f = replace(
                f,
                name=t.name,
                label=t.label,
                data_type=t.data_type,
                is_required=t.is_required,
                config=cfg,
            )
        fields.append(f)
    for t in plan.insert_fields:
        fields.append(
            FieldDef(
                field_id=str(uuid.uuid4()),
                module_id=mid,
                name=t.name,
                slug=t.slug,
                label=t.label,
                data_type=t.data_type,
                config=dict(t.config),
                is_required=t.is_required,
                vendor_managed=True,
            )
        )
    view_updates = dict(plan.update_views)
    views: list[ViewDef] = []
    for v in schema.views:
        if v.view_id in plan.delete_view_ids:
            continue
        if v.view_id in view_updates:
            tv = view_updates[v.view_id]
            v = replace(v, name=tv.name, config=dict(tv.config))
        views.append(v)
    for tv in plan.insert_views:
        views.append(ViewDef(str(uuid.uuid4()), mid, tv.name, tv.slug, dict(tv.config), True))
    field_ids = {f.slug: f.field_id for f in fields if f.vendor_managed}
    ref_updates = dict(plan.update_references)
    refs: list[ReferenceDef] = []

    def ref_from(ref_id: str, tr_slug: str) -> ReferenceDef:
        tr = next(r for r in plan_template.references if r.slug == tr_slug)
        return ReferenceDef(
            reference_id=ref_id,
            source_module_id=mid,
            slug=tr.slug,
            source_field_id=field_ids.get(tr.source_field_slug or ""),
            source_field_slug=tr.source_field_slug,
            relationship_type=tr.relationship_type,
            target_type=tr.target_type,
            target_module_slug=tr.target_module_slug,
            target_filters=tr.target_filters,
            is_required=tr.is_required,
            cascade_delete=tr.cascade_delete,
            cascade_update=tr.cascade_update,
            vendor_managed=True,
        )

    plan_template = template(schema.module.template_slug or "")
    for r in schema.references:
        if r.reference_id in plan.delete_reference_ids:
            continue
        if r.reference_id in ref_updates:
            r = ref_from(r.reference_id, ref_updates[r.reference_id].slug)
        refs.append(r)
    for tr in plan.insert_references:
        refs.append(ref_from(str(uuid.uuid4()), tr.slug))
    return ModuleSchema(schema.module, tuple(fields), tuple(views), tuple(refs))


# --- schema_from_template ---


@pytest.mark.parametrize("tpl", BUILTIN_TEMPLATES, ids=TEMPLATE_IDS)
def test_schema_from_template_mirrors_the_template(tpl: Template) -> None:
    schema = schema_from_template(tpl, MODULE_ID, account_id="acc", now="2024-01-01T00:00:00Z")
    assert schema.module.slug == tpl.module_slug
    assert schema.module.template_slug == tpl.slug
    assert schema.module.template_version == tpl.version
    assert [f.slug for f in schema.fields] == [f.slug for f in tpl.fields]
    assert [f.sort_order for f in schema.fields] == list(range(len(tpl.fields)))
    assert all(f.vendor_managed and f.module_id == MODULE_ID for f in schema.fields)
    assert all(v.vendor_managed for v in schema.views)
    assert all(r.vendor_managed for r in schema.references)
    ids = [f.field_id for f in schema.fields] + [v.view_id for v in schema.views]
    ids += [r.reference_id for r in schema.references]
    assert len(ids) == len(set(ids))
    for i in ids:
        uuid.UUID(i)
    for ref in schema.references:
        source = schema.field(ref.source_field_slug or "")
        assert source is not None and ref.source_field_id == source.field_id


def test_schema_from_template_copies_configs() -> None:
    tpl = template("deals")
    schema = schema_from_template(tpl, MODULE_ID)
    deal_number = schema.field("deal-number")
    assert deal_number is not None
    deal_number.config["autonumber"]["nextValue"] = 99
    original = next(f for f in tpl.fields if f.slug == "deal-number")
    assert original.config["autonumber"]["nextValue"] == 1


# --- has_customizations / plan_reset ---


@pytest.mark.parametrize("tpl", BUILTIN_TEMPLATES, ids=TEMPLATE_IDS)
def test_fresh_install_is_not_customised(tpl: Template) -> None:
    schema = schema_from_template(tpl, MODULE_ID)
    assert not has_customizations(tpl, schema)
    plan = plan_reset(tpl, schema)
    assert plan.is_empty
    assert plan == ResetPlan()


def test_removed_vendor_field() -> None:
    tpl = template("contacts")
    schema = without_field(schema_from_template(tpl, MODULE_ID), "birthday")
    assert has_customizations(tpl, schema)
    plan = plan_reset(tpl, schema)
    assert [t.slug for t in plan.insert_fields] == ["birthday"]
    assert not plan.delete_field_ids and not plan.update_fields
    assert not plan.insert_references and not plan.update_references


def test_removed_reference_field_relinks_its_reference() -> None:
    tpl = template("contacts")
    schema = without_field(schema_from_template(tpl, MODULE_ID), "company")
    plan = plan_reset(tpl, schema)
    assert [t.slug for t in plan.insert_fields] == ["company"]
    assert [t.slug for _, t in plan.update_references] == ["company"]
    healed = apply_plan(schema, plan)
    assert not has_customizations(tpl, healed)
    assert plan_reset(tpl, healed).is_empty


def test_extra_vendor_field() -> None:
    tpl = template("companies")
    base = schema_from_template(tpl, MODULE_ID)
    extra = replace(user_field(base, "legacy-code"), vendor_managed=True)
    schema = with_field(base, extra)
    assert has_customizations(tpl, schema)
    plan = plan_reset(tpl, schema)
    assert plan.delete_field_ids == (extra.field_id,)
    assert not plan.insert_fields and not plan.update_fields


def test_user_field_is_ignored() -> None:
    tpl = template("tasks")
    base = schema_from_template(tpl, MODULE_ID)
    schema = with_field(base, user_field(base, "sprint"))
    assert not has_customizations(tpl, schema)
    assert plan_reset(tpl, schema).is_empty


def test_user_item_holding_a_removed_slug_is_left_alone() -> None:
    tpl = template("tasks")
    base = without_field(schema_from_template(tpl, MODULE_ID), "estimate")
    mine = user_field(base, "estimate")
    schema = with_field(base, mine)
    plan = plan_reset(tpl, schema)
    assert plan.skipped_slugs == ("field:estimate",)
    assert not plan.insert_fields and not plan.delete_field_ids
    assert has_customizations(tpl, schema)


def test_duplicate_vendor_slug_is_customised() -> None:
    tpl = template("tasks")
    base = schema_from_template(tpl, MODULE_ID)
    title = base.field("title")
    assert title is not None
    dup = replace(title, field_id=str(uuid.uuid4()), sort_order=50)
    schema = with_field(base, dup)
    assert has_customizations(tpl, schema)
    assert plan_reset(tpl, schema).delete_field_ids == (dup.field_id,)


def test_changed_data_type_is_customised_and_reset() -> None:
    tpl = template("deals")
    schema = changed_field(
        schema_from_template(tpl, MODULE_ID), "amount", data_type="number", config={"decimals": 2}
    )
    assert has_customizations(tpl, schema)
    plan = plan_reset(tpl, schema)
    assert len(plan.update_fields) == 1
    field_id, t, merged = plan.update_fields[0]
    amount = schema.field("amount")
    assert amount is not None and field_id == amount.field_id
    assert t.data_type == "currency"
    assert merged == dict(t.config)


def test_changed_label_is_reset_but_not_a_customisation() -> None:
    tpl = template("contacts")
    schema = changed_field(
        schema_from_template(tpl, MODULE_ID), "lifecycle", label="Stage", is_required=True
    )
    assert not has_customizations(tpl, schema)
    plan = plan_reset(tpl, schema)
    assert [(t.slug, t.label, t.is_required) for _, t, _ in plan.update_fields] == [
        ("lifecycle", "Lifecycle stage", False)
    ]
    assert plan_reset(tpl, apply_plan(schema, plan)).is_empty


def test_runtime_next_value_survives_reset() -> None:
    tpl = template("deals")
    base = schema_from_template(tpl, MODULE_ID)
    deal_number = base.field("deal-number")
    assert deal_number is not None
    advanced = copy.deepcopy(dict(deal_number.config))
    advanced["autonumber"]["nextValue"] = 42
    schema = changed_field(base, "deal-number", config=advanced)
    # Runtime state is not a customisation and needs no update.
    assert not has_customizations(tpl, schema)
    assert plan_reset(tpl, schema).is_empty
    # A lost static setting is restored while nextValue is kept.
    del advanced["autonumber"]["padding"]
    schema = changed_field(base, "deal-number", config=advanced, label="Number")
    plan = plan_reset(tpl, schema)
    assert len(plan.update_fields) == 1
    _, t, merged = plan.update_fields[0]
    assert t.slug == "deal-number"
    assert merged["autonumber"]["nextValue"] == 42
    assert merged["autonumber"]["padding"] == 5
    healed = apply_plan(schema, plan)
    healed_field = healed.field("deal-number")
    assert healed_field is not None and healed_field.label == "Deal number"
    assert plan_reset(tpl, healed).is_empty


def test_views_removed_changed_and_extra() -> None:
    tpl = template("deals")
    base = schema_from_template(tpl, MODULE_ID)
    pipeline = next(v for v in base.views if v.slug == "pipeline")
    all_view = next(v for v in base.views if v.slug == "all")
    extra = ViewDef(str(uuid.uuid4()), MODULE_ID, "Old", "old", {"type": "table"}, True)
    mine = ViewDef(str(uuid.uuid4()), MODULE_ID, "Mine", "mine", {"type": "table"}, False)
    views = tuple(
        replace(v, config={"type": "table", "columns": ["name"]}) if v is all_view else v
        for v in base.views
        if v is not pipeline
    )
    schema = replace(base, views=(*views, extra, mine))
    assert has_customizations(tpl, schema)
    plan = plan_reset(tpl, schema)
    assert [v.slug for v in plan.insert_views] == ["pipeline"]
    assert plan.delete_view_ids == (extra.view_id,)
    assert [(vid, v.slug) for vid, v in plan.update_views] == [(all_view.view_id, "all")]
    healed = apply_plan(schema, plan)
    assert any(v.slug == "mine" for v in healed.views)
    assert not has_customizations(tpl, healed)


def test_references_removed_changed_and_extra() -> None:
    tpl = template("deals")
    base = schema_from_template(tpl, MODULE_ID)
    company = next(r for r in base.references if r.slug == "company")
    contacts = next(r for r in base.references if r.slug == "contacts")
    extra = replace(contacts, reference_id=str(uuid.uuid4()), slug="old-link")
    refs = (replace(contacts, cascade_delete=True), extra)
    schema = replace(base, references=refs)
    assert company not in schema.references
    assert has_customizations(tpl, schema)
    plan = plan_reset(tpl, schema)
    assert [r.slug for r in plan.insert_references] == ["company"]
    assert plan.delete_reference_ids == (extra.reference_id,)
    assert [(rid, r.slug) for rid, r in plan.update_references] == [
        (contacts.reference_id, "contacts")
    ]
    healed = apply_plan(schema, plan)
    assert not has_customizations(tpl, healed)
    assert plan_reset(tpl, healed).is_empty


def test_user_reference_is_ignored() -> None:
    tpl = template("tasks")
    base = schema_from_template(tpl, MODULE_ID)
    mine = ReferenceDef(
        str(uuid.uuid4()), MODULE_ID, "watchers", None, None, "many_to_many", "user", None
    )
    schema = replace(base, references=(*base.references, mine))
    assert not has_customizations(tpl, schema)
    assert plan_reset(tpl, schema).is_empty


@pytest.mark.parametrize("tpl", BUILTIN_TEMPLATES, ids=TEMPLATE_IDS)
def test_reset_heals_a_heavily_customised_module(tpl: Template) -> None:
    base = schema_from_template(tpl, MODULE_ID)
    first = base.fields[0]  # base.fields[1] is dropped below
    fields = [
        replace(first, label="Renamed", config={}),
        *base.fields[2:],
        replace(user_field(base, "vendor-extra"), vendor_managed=True),
        user_field(base, "user-notes"),
    ]
    schema = replace(base, fields=tuple(fields), views=base.views[1:], references=())
    assert has_customizations(tpl, schema)
    plan = plan_reset(tpl, schema)
    assert len(plan.insert_fields) == 1 and len(plan.delete_field_ids) == 1
    assert len(plan.update_fields) == 1
    assert len(plan.insert_views) == 1
    assert len(plan.insert_references) == len(tpl.references)
    healed = apply_plan(schema, plan)
    assert not has_customizations(tpl, healed)
    assert plan_reset(tpl, healed).is_empty
    assert healed.field("user-notes") is not None
    assert healed.field("vendor-extra") is None


# --- merge_config ---


def test_merge_config_keeps_next_value() -> None:
    tpl_cfg = {"autonumber": {"formatType": "prefix", "prefix": "DEAL-", "nextValue": 1}}
    existing = {"autonumber": {"formatType": "prefix", "prefix": "DEAL-", "nextValue": 17}}
    assert merge_config(tpl_cfg, existing)["autonumber"]["nextValue"] == 17


def test_merge_config_rules() -> None:
    tpl_cfg: dict[str, Any] = {
        "currency": {"defaultCurrency": "USD", "precision": 2, "allowedCurrencies": ["USD", "EUR"]},
        "added": {"deep": True},
    }
    existing: dict[str, Any] = {
        "currency": {"defaultCurrency": "EUR", "allowedCurrencies": ["EUR"], "custom": 1},
        "own": "kept",
    }
    merged = merge_config(tpl_cfg, existing)
    assert merged == {
        "currency": {
            "defaultCurrency": "EUR",  # existing wins
            "precision": 2,  # missing template default restored
            "allowedCurrencies": ["EUR"],  # lists are leaves
            "custom": 1,  # existing-only keys stay
        },
        "added": {"deep": True},
        "own": "kept",
    }
    merged["added"]["deep"] = False
    merged["currency"]["allowedCurrencies"].append("GBP")
    assert tpl_cfg["added"] == {"deep": True}
    assert existing["currency"]["allowedCurrencies"] == ["EUR"]


def test_merge_config_with_empty_sides() -> None:
    tpl_cfg = {"a": {"b": 1}}
    assert merge_config(tpl_cfg, {}) == tpl_cfg
    assert merge_config({}, tpl_cfg) == tpl_cfg
    assert merge_config(tpl_cfg, {"a": 5}) == {"a": 5}
