"""Pure comparisons between a template and an installed module schema.

Used by the template catalog (``hasCustomizations``) and by reset-to-template (``plan_reset``).
Only vendor-managed items (``vendor_managed=True``, i.e. installed from the template) take part;
user-created items are ignored and never appear in a plan. Items are matched by slug.
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from fieldhouse.model.clock import new_id
from fieldhouse.model.schema import (
    FieldDef,
    ModuleDef,
    ModuleSchema,
    ReferenceDef,
    Template,
    TemplateField,
    TemplateReference,
    TemplateView,
    ViewDef,
)

__all__ = [
    "ResetPlan",
    "has_customizations",
    "merge_config",
    "plan_reset",
    "schema_from_template",
]


@dataclass(frozen=True)
class ResetPlan:
    """What reset-to-template has to do to make the vendor-managed items equal the template.

    Apply in order: fields (delete, update, insert), then views, then references. References name
    their source field by ``source_field_slug``; resolve ``source_field_id`` by slug after the
    field changes are applied (an inserted field only gets its id then).
    """

    #: vendor-managed fields whose slug is not in the template
    delete_field_ids: tuple[str, ...] = ()
    #: (field_id, template field, merged config) for vendor-managed fields that differ
    update_fields: tuple[tuple[str, TemplateField, dict[str, Any]], ...] = ()
    #: template fields with no vendor-managed field of that slug in the module
    insert_fields: tuple[TemplateField, ...] = ()
    delete_view_ids: tuple[str, ...] = ()
    update_views: tuple[tuple[str, TemplateView], ...] = ()
    insert_views: tuple[TemplateView, ...] = ()
    delete_reference_ids: tuple[str, ...] = ()
    update_references: tuple[tuple[str, TemplateReference], ...] = ()
    insert_references: tuple[TemplateReference, ...] = ()
    #: template items not inserted because a user-created item holds the slug, as "kind:slug"
    #: (kind is field, view or reference); inserting them would duplicate a slug in the module
    skipped_slugs: tuple[str, ...] = ()

    @property
    def is_empty(self) -> bool:
        """True when the module already equals the template (nothing to delete/update/insert)."""
        return not (
            self.delete_field_ids
            or self.update_fields
            or self.insert_fields
            or self.delete_view_ids
            or self.update_views
            or self.insert_views
            or self.delete_reference_ids
            or self.update_references
            or self.insert_references
        )


def merge_config(
    template_config: Mapping[str, Any], existing_config: Mapping[str, Any]
) -> dict[str, Any]:
    """Deep-merge a template field config with an installed field's config; existing values win.

    The SPEC's reset rule: "the field configuration is merged so that existing values override
    template defaults, which keeps runtime state such as the auto-number nextValue". So:

    - a key in both configs whose values are both mappings is merged recursively;
    - otherwise a key in both keeps the existing value (this is what preserves
      ``config["autonumber"]["nextValue"]``, and any other counter the server keeps in config);
    - a template key missing from the existing config is added (a template default restored);
    - a key only in the existing config is kept.

    Lists and scalars are leaves (never merged element-wise). The result is a fresh deep copy
    sharing nothing with either argument.
    """
    merged: dict[str, Any] = {}
    for key, template_value in template_config.items():
        if key not in existing_config:
            merged[key] = copy.deepcopy(template_value)
            continue
        existing_value = existing_config[key]
        if isinstance(template_value, Mapping) and isinstance(existing_value, Mapping):
            merged[key] = merge_config(template_value, existing_value)
        else:
            merged[key] = copy.deepcopy(existing_value)
    for key, existing_value in existing_config.items():
        if key not in template_config:
            merged[key] = copy.deepcopy(existing_value)
    return merged


def _vendor_fields(schema: ModuleSchema) -> list[FieldDef]:
    return sorted((f for f in schema.fields if f.vendor_managed), key=lambda f: f.sort_order)


def _vendor_views(schema: ModuleSchema) -> list[ViewDef]:
    return sorted((v for v in schema.views if v.vendor_managed), key=lambda v: v.sort_order)


def _vendor_references(schema: ModuleSchema) -> list[ReferenceDef]:
    return [r for r in schema.references if r.vendor_managed]


def has_customizations(template: Template, schema: ModuleSchema) -> bool:
    """True when the module's vendor-managed items no longer match the template's set.

    Per the SPEC this compares the *sets* of vendor-managed fields, views and references by slug
    (an item removed, or an extra vendor-managed item; a duplicated vendor slug counts as extra).
    A vendor-managed field whose data_type differs from the template's also counts. Edits to
    labels or configs do not, and user-created items are ignored.
    """
    fields = _vendor_fields(schema)
    pairs: tuple[tuple[Counter[str], set[str]], ...] = (
        (Counter(f.slug for f in fields), {t.slug for t in template.fields}),
        (Counter(v.slug for v in _vendor_views(schema)), {t.slug for t in template.views}),
        (
            Counter(r.slug for r in _vendor_references(schema)),
            {t.slug for t in template.references},
        ),
    )
    for installed, wanted in pairs:
        if set(installed) != wanted or any(n > 1 for n in installed.values()):
            return True
    template_types = {t.slug: t.data_type for t in template.fields}
    return any(f.data_type != template_types[f.slug] for f in fields)


def _field_update(field: FieldDef, wanted: TemplateField) -> dict[str, Any] | None:
    """The merged config when ``field`` must be updated back to ``wanted``, else None."""
    if field.data_type != wanted.data_type:
        # Config of another type carries nothing worth keeping: restore the template's outright.
        return copy.deepcopy(dict(wanted.config))
    merged = merge_config(wanted.config, field.config)
    if (
        field.label != wanted.label
        or field.name != wanted.name
        or field.is_required != wanted.is_required
        or merged != dict(field.config)
    ):
        return merged
    return None


def _view_differs(view: ViewDef, wanted: TemplateView) -> bool:
    return view.name != wanted.name or dict(view.config) != dict(wanted.config)


def _reference_differs(
    ref: ReferenceDef, wanted: TemplateReference, field_ids: Mapping[str, str]
) -> bool:
    if wanted.source_field_slug is not None and (
        ref.source_field_id is None
        or field_ids.get(wanted.source_field_slug) != ref.source_field_id
    ):
        # The source field was deleted (and will be re-inserted) or the link is stale.
        return True
    return (
        ref.source_field_slug != wanted.source_field_slug
        or ref.relationship_type != wanted.relationship_type
        or ref.target_type != wanted.target_type
        or ref.target_module_slug != wanted.target_module_slug
        or dict(ref.target_filters or {}) != dict(wanted.target_filters or {})
        or ref.is_required != wanted.is_required
        or ref.cascade_delete != wanted.cascade_delete
        or ref.cascade_update != wanted.cascade_update
    )


def plan_reset(template: Template, schema: ModuleSchema) -> ResetPlan:
    """The changes that make the module's vendor-managed items equal ``template``.

    - vendor-managed items whose slug is not in the template (or duplicates of a slug) are deleted;
    - vendor-managed items that differ from their template item are updated (fields get their
      config through :func:`merge_config`, so runtime state like ``nextValue`` survives);
    - template items with no vendor-managed counterpart are inserted, unless a user-created item
      holds the slug (reported in ``skipped_slugs``; user items are never touched).
    """
    skipped: list[str] = []

    # Fields
    t_fields = {t.slug: t for t in template.fields}
    user_field_slugs = {f.slug for f in schema.fields if not f.vendor_managed}
    matched_fields: dict[str, FieldDef] = {}
    delete_field_ids: list[str] = []
    for f in _vendor_fields(schema):
        if f.slug in t_fields and f.slug not in matched_fields:
            matched_fields[f.slug] = f
        else:
            delete_field_ids.append(f.field_id)
    update_fields: list[tuple[str, TemplateField, dict[str, Any]]] = []
    insert_fields: list[TemplateField] = []
    for t in template.fields:
        existing = matched_fields.get(t.slug)
        if existing is None:
            if t.slug in user_field_slugs:
                skipped.append(f"field:{t.slug}")
            else:
                insert_fields.append(t)
            continue
        merged = _field_update(existing, t)
        if merged is not None:
            update_fields.append((existing.field_id, t, merged))

    # Views
    t_views = {t.slug: t for t in template.views}
    user_view_slugs = {v.slug for v in schema.views if not v.vendor_managed}
    matched_views: dict[str, ViewDef] = {}
    delete_view_ids: list[str] = []
    for v in _vendor_views(schema):
        if v.slug in t_views and v.slug not in matched_views:
            matched_views[v.slug] = v
        else:
            delete_view_ids.append(v.view_id)
    update_views: list[tuple[str, TemplateView]] = []
    insert_views: list[TemplateView] = []
    for tv in template.views:
        existing_view = matched_views.get(tv.slug)
        if existing_view is None:
            if tv.slug in user_view_slugs:
                skipped.append(f"view:{tv.slug}")
            else:
                insert_views.append(tv)
        elif _view_differs(existing_view, tv):
            update_views.append((existing_view.view_id, tv))

    # References
    t_refs = {t.slug: t for t in template.references}
    user_ref_slugs = {r.slug for r in schema.references if not r.vendor_managed}
    matched_refs: dict[str, ReferenceDef] = {}
    delete_reference_ids: list[str] = []
    for r in _vendor_references(schema):
        if r.slug in t_refs and r.slug not in matched_refs:
            matched_refs[r.slug] = r
        else:
            delete_reference_ids.append(r.reference_id)
    # Field ids as they stand after the field changes: only kept (matched) vendor fields keep ids.
    kept_field_ids = {slug: f.field_id for slug, f in matched_fields.items()}
    update_references: list[tuple[str, TemplateReference]] = []
    insert_references: list[TemplateReference] = []
    for tr in template.references:
        existing_ref = matched_refs.get(tr.slug)
        if existing_ref is None:
            if tr.slug in user_ref_slugs:
                skipped.append(f"reference:{tr.slug}")
            else:
                insert_references.append(tr)
        elif _reference_differs(existing_ref, tr, kept_field_ids):
            update_references.append((existing_ref.reference_id, tr))

    return ResetPlan(
        delete_field_ids=tuple(delete_field_ids),
        update_fields=tuple(update_fields),
        insert_fields=tuple(insert_fields),
        delete_view_ids=tuple(delete_view_ids),
        update_views=tuple(update_views),
        insert_views=tuple(insert_views),
        delete_reference_ids=tuple(delete_reference_ids),
        update_references=tuple(update_references),
        insert_references=tuple(insert_references),
        skipped_slugs=tuple(skipped),
    )


def schema_from_template(
    template: Template,
    module_id: str,
    *,
    account_id: str = "",
    now: str = "",
    vendor_managed: bool = True,
) -> ModuleSchema:
    """A fresh module schema exactly as installing ``template`` would create it.

    Every field, view and reference gets a new uuid4 id and ``vendor_managed`` (True by default),
    sort orders follow the template order, configs are deep copies (the catalog stays untouched),
    and each reference's ``source_field_id`` points at the new field with its source slug.
    """
    module = ModuleDef(
        module_id=module_id,
        account_id=account_id,
        name=template.module_name,
        slug=template.module_slug,
        template_slug=template.slug,
        template_version=template.version,
        created_at=now,
        updated_at=now,
    )
    fields = tuple(
        FieldDef(
            field_id=new_id(),
            module_id=module_id,
            name=t.name,
            slug=t.slug,
            label=t.label,
            data_type=t.data_type,
            config=copy.deepcopy(dict(t.config)),
            is_required=t.is_required,
            is_system=t.is_system,
            privacy_level=t.privacy_level,
            sort_order=i,
            vendor_managed=vendor_managed,
            created_at=now,
            updated_at=now,
        )
        for i, t in enumerate(template.fields)
    )
    field_ids = {f.slug: f.field_id for f in fields}
    views = tuple(
        ViewDef(
            view_id=new_id(),
            module_id=module_id,
            name=t.name,
            slug=t.slug,
            config=copy.deepcopy(dict(t.config)),
            vendor_managed=vendor_managed,
            sort_order=i,
        )
        for i, t in enumerate(template.views)
    )
    references = tuple(
        ReferenceDef(
            reference_id=new_id(),
            source_module_id=module_id,
            slug=t.slug,
            source_field_id=field_ids.get(t.source_field_slug) if t.source_field_slug else None,
            source_field_slug=t.source_field_slug,
            relationship_type=t.relationship_type,
            target_type=t.target_type,
            target_module_slug=t.target_module_slug,
            target_filters=copy.deepcopy(dict(t.target_filters))
            if t.target_filters is not None
            else None,
            is_required=t.is_required,
            cascade_delete=t.cascade_delete,
            cascade_update=t.cascade_update,
            vendor_managed=vendor_managed,
        )
        for t in template.references
    )
    return ModuleSchema(module=module, fields=fields, views=views, references=references)
