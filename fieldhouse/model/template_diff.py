"""Pure comparisons between a template and an installed module schema.

Used by the template catalog (``hasCustomizations``) and by reset-to-template (``plan_reset``).
Only vendor-managed items (``vendor_managed=True``, i.e. installed from the template) take part;
user-created items are ignored and never appear in a plan. Items are matched by slug.
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

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


class _Item(Protocol):
    """A field, view or reference of a module: matched with the template's by slug."""

    @property
    def slug(self) -> str: ...

    @property
    def vendor_managed(self) -> bool: ...


_Installed = TypeVar("_Installed", FieldDef, ViewDef, ReferenceDef)
_Wanted = TypeVar("_Wanted", TemplateField, TemplateView, TemplateReference)


@dataclass(frozen=True)
class _Matching(Generic[_Installed, _Wanted]):
    """One kind of item (fields, views or references) of a module matched with the template's."""

    #: slug -> the vendor-managed item kept for that template item (the first of its slug)
    kept: dict[str, _Installed]
    #: vendor-managed items the template has no (more) place for: deleted
    extra: list[_Installed]
    #: (kept item, its template item), in the template's order
    pairs: list[tuple[_Installed, _Wanted]]
    #: template items without a vendor-managed item: inserted
    missing: list[_Wanted]
    #: template items not inserted because a user-created item holds the slug, as "kind:slug"
    skipped: list[str]


def _match(
    kind: str,
    vendor: Sequence[_Installed],
    installed: Iterable[_Item],
    wanted: Sequence[_Wanted],
) -> _Matching[_Installed, _Wanted]:
    """Match the vendor-managed items (in their order) with the template's ``wanted`` ones by
    slug; a missing one whose slug a user-created item of ``installed`` holds is skipped."""
    wanted_slugs = {w.slug for w in wanted}
    kept: dict[str, _Installed] = {}
    extra: list[_Installed] = []
    for item in vendor:
        if item.slug in wanted_slugs and item.slug not in kept:
            kept[item.slug] = item
        else:
            extra.append(item)
    user_slugs = {i.slug for i in installed if not i.vendor_managed}
    matching: _Matching[_Installed, _Wanted] = _Matching(kept, extra, [], [], [])
    for w in wanted:
        existing = kept.get(w.slug)
        if existing is not None:
            matching.pairs.append((existing, w))
        elif w.slug in user_slugs:
            matching.skipped.append(f"{kind}:{w.slug}")
        else:
            matching.missing.append(w)
    return matching


def plan_reset(template: Template, schema: ModuleSchema) -> ResetPlan:
    """The changes that make the module's vendor-managed items equal ``template``.

    - vendor-managed items whose slug is not in the template (or duplicates of a slug) are deleted;
    - vendor-managed items that differ from their template item are updated (fields get their
      config through :func:`merge_config`, so runtime state like ``nextValue`` survives);
    - template items with no vendor-managed counterpart are inserted, unless a user-created item
      holds the slug (reported in ``skipped_slugs``; user items are never touched).
    """
    fields = _match("field", _vendor_fields(schema), schema.fields, template.fields)
    views = _match("view", _vendor_views(schema), schema.views, template.views)
    refs = _match("reference", _vendor_references(schema), schema.references, template.references)
    # Field ids as they stand after the field changes: only kept (matched) vendor fields keep ids.
    kept_field_ids = {slug: f.field_id for slug, f in fields.kept.items()}
    return ResetPlan(
        delete_field_ids=tuple(f.field_id for f in fields.extra),
        update_fields=_field_updates(fields.pairs),
        insert_fields=tuple(fields.missing),
        delete_view_ids=tuple(v.view_id for v in views.extra),
        update_views=tuple((v.view_id, t) for v, t in views.pairs if _view_differs(v, t)),
        insert_views=tuple(views.missing),
        delete_reference_ids=tuple(r.reference_id for r in refs.extra),
        update_references=tuple(
            (r.reference_id, t) for r, t in refs.pairs if _reference_differs(r, t, kept_field_ids)
        ),
        insert_references=tuple(refs.missing),
        skipped_slugs=(*fields.skipped, *views.skipped, *refs.skipped),
    )


def _field_updates(
    pairs: Iterable[tuple[FieldDef, TemplateField]],
) -> tuple[tuple[str, TemplateField, dict[str, Any]], ...]:
    """(field id, template field, merged config) of the kept fields that differ from theirs."""
    updates = []
    for field, wanted in pairs:
        merged = _field_update(field, wanted)
        if merged is not None:
            updates.append((field.field_id, wanted, merged))
    return tuple(updates)


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
