"""Template maintenance through the workspace actor: custom fields and reset-to-template.

Every handler reads the module from the transaction (not the actor's cached snapshot): the
auto-number counters live in field configs and move on every record create without a schema
edit, so only a fresh read carries the current ``nextValue``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from fieldhouse.actors.context import WriteContext
from fieldhouse.actors.messages import Message
from fieldhouse.actors.record_logic import assign_autonumbers, compute_derived
from fieldhouse.actors.rights import may_administer
from fieldhouse.actors.template_reset import ResetSteps, revive_vendor_fields, template_of
from fieldhouse.model.activity import ActivityKind
from fieldhouse.model.clock import new_id
from fieldhouse.model.errors import Conflict, Issue, NotFound, ValidationFailed
from fieldhouse.model.field_config import (
    check_field_config,
    dependent_fields,
    formula_refs,
    name_from_slug,
    slug_from_label,
)
from fieldhouse.model.fields import AutonumberType, FormulaType, type_of
from fieldhouse.model.schema import (
    ArchiveMove,
    FieldDef,
    ModuleSchema,
    ReferenceDef,
)
from fieldhouse.model.template_diff import plan_reset, schema_from_template

#: fields a module may hold, archived ones included (a module's records carry them all)
MAX_FIELDS_PER_MODULE = 200


@dataclass(frozen=True)
class ResetOutcome:
    """Counts of a reset. ``fields_removed`` counts the user modifications to template fields
    that were undone: vendor-managed fields deleted because the template has no such field, plus
    vendor-managed fields updated back to the template (label, name, required flag, config)."""

    fields_removed: int
    fields_added: int
    views_added: int
    references_added: int
    skipped_slugs: tuple[str, ...]


@dataclass(frozen=True)
class ResetToTemplate(Message[ResetOutcome]):
    module_id: str

    async def apply(self, ctx: WriteContext) -> ResetOutcome:
        await may_administer(ctx, self.by)
        return await reset_to_template(ctx, self)


@dataclass(frozen=True)
class CreateField(Message[FieldDef]):
    module_id: str
    label: str
    slug: str | None
    data_type: str
    config: Mapping[str, Any]
    is_required: bool = False
    #: the API name (PascalCase); None: derived from the slug
    name: str | None = None
    privacy_level: str = "account"
    #: None: after the module's last field
    sort_order: int | None = None

    async def apply(self, ctx: WriteContext) -> FieldDef:
        await may_administer(ctx, self.by)
        return await create_field(ctx, self)


@dataclass(frozen=True)
class UpdateField(Message[tuple[FieldDef, int]]):
    module_id: str
    field_id: str
    label: str | None = None
    config: Mapping[str, Any] | None = None
    is_required: bool | None = None
    backfill_existing: bool = False
    #: the API name (PascalCase); the slug never changes
    name: str | None = None
    #: True archives the field (hidden, refused on writes, values kept), False brings it back
    archived: bool | None = None

    async def apply(self, ctx: WriteContext) -> tuple[FieldDef, int]:
        await may_administer(ctx, self.by)
        return await update_field(ctx, self)


@dataclass(frozen=True)
class DeleteField(Message[None]):
    module_id: str
    field_id: str

    async def apply(self, ctx: WriteContext) -> None:
        await may_administer(ctx, self.by)
        return await delete_field(ctx, self)


async def _module(
    ctx: WriteContext, module_id: str
) -> tuple[ModuleSchema, dict[str, ModuleSchema]]:
    schemas = await ctx.txn.module_schemas()
    for schema in schemas.values():
        if schema.module.module_id == module_id:
            return schema, schemas
    raise NotFound(f"Module {module_id} not found")


def _field(schema: ModuleSchema, field_id: str) -> FieldDef:
    """A field of the module by id, archived or not."""
    for f in (*schema.fields, *schema.archived_fields):
        if f.field_id == field_id:
            return f
    raise NotFound(f"Field {field_id} not found in module {schema.module.slug!r}")


async def _fresh_field(ctx: WriteContext, module_slug: str, field_id: str) -> FieldDef:
    await ctx.schema_edited()
    return _field(ctx.schemas[module_slug], field_id)


async def reset_to_template(ctx: WriteContext, msg: ResetToTemplate) -> ResetOutcome:
    """Make the vendor-managed items equal the template (SPEC "States and transitions").

    Deletes vendor items the template lacks, updates vendor items back (field configs merged so
    existing values such as ``nextValue`` win), inserts template items that were removed. Items
    created by users are untouched; a template item whose slug a user item holds is skipped.
    """
    schema, _ = await _module(ctx, msg.module_id)
    template = template_of(schema.module)
    revived = await revive_vendor_fields(ctx, schema)
    if revived:
        schema, _ = await _module(ctx, msg.module_id)
    # an archived user field still holds its slug: a template field of that slug is skipped
    # (so does the reference of an archived user reference field)
    held = replace(
        schema,
        fields=(*schema.fields, *schema.archived_fields),
        references=(*schema.references, *schema.hidden_references),
    )
    plan = plan_reset(template, held)
    pristine = schema_from_template(template, schema.module.module_id, now=ctx.now)
    steps = ResetSteps(schema, template, plan, pristine)
    await steps.fields(ctx)
    await steps.views(ctx)
    after, _ = await _module(ctx, msg.module_id)
    await steps.references(ctx, after)
    await ctx.schema_edited()
    outcome = ResetOutcome(
        fields_removed=len(plan.delete_field_ids) + len(plan.update_fields) + len(revived),
        fields_added=len(plan.insert_fields),
        views_added=len(plan.insert_views),
        references_added=len(plan.insert_references),
        skipped_slugs=plan.skipped_slugs,
    )
    await ctx.activity(
        ActivityKind.TEMPLATE_RESET,
        user_id=msg.by.user_id,
        module_id=schema.module.module_id,
        data={
            "templateSlug": template.slug,
            "templateVersion": template.version,
            "fieldsRemoved": outcome.fields_removed,
            "fieldsAdded": outcome.fields_added,
            "viewsAdded": outcome.views_added,
            "referencesAdded": outcome.references_added,
            "skippedSlugs": list(plan.skipped_slugs),
        },
    )
    return outcome


async def create_field(ctx: WriteContext, msg: CreateField) -> FieldDef:
    """A user-created (not vendor-managed) field; formulas and rollups get computed values
    for the module's existing records straight away."""
    schema, _ = await _module(ctx, msg.module_id)
    slug = msg.slug or slug_from_label(msg.label)
    if schema.field(slug) is not None or schema.archived_field(slug) is not None:
        raise Conflict(
            f"Module {schema.module.slug!r} already has a field with slug {slug!r}"
            + (
                " (archived: PATCH it with archived false to bring it back)"
                if schema.field(slug) is None
                else ""
            )
            + ("" if msg.slug else "; send a different slug"),
            data={"slug": slug},
        )
    held = len(schema.fields) + len(schema.archived_fields)
    if held >= MAX_FIELDS_PER_MODULE:
        raise Conflict(
            f"Module {schema.module.slug!r} has {held} fields (archived ones count), the "
            f"most a module may have is {MAX_FIELDS_PER_MODULE}; delete a field first",
            data={"limit": MAX_FIELDS_PER_MODULE},
        )
    config, issues = check_field_config(msg.data_type, msg.config, schema, self_slug=slug)
    if issues:
        raise ValidationFailed(issues)
    field = FieldDef(
        field_id=new_id(),
        module_id=schema.module.module_id,
        name=msg.name or name_from_slug(slug),
        slug=slug,
        label=msg.label,
        data_type=msg.data_type,
        config=config,
        is_required=msg.is_required,
        privacy_level=msg.privacy_level,
        sort_order=(
            msg.sort_order
            if msg.sort_order is not None
            else max((f.sort_order for f in schema.fields), default=-1) + 1
        ),
        vendor_managed=False,
        created_at=ctx.now,
        updated_at=ctx.now,
    )
    await ctx.txn.upsert_fields([field])
    await ctx.txn.upsert_references(field_references(schema.module.slug, field))
    if _derived(field):
        await _recompute(ctx, replace(schema, fields=(*schema.fields, field)))
    await ctx.activity(
        ActivityKind.FIELD_CREATED,
        user_id=msg.by.user_id,
        module_id=schema.module.module_id,
        data={"fieldId": field.field_id, "slug": slug, "dataType": field.data_type},
    )
    return await _fresh_field(ctx, schema.module.slug, field.field_id)


async def update_field(ctx: WriteContext, msg: UpdateField) -> tuple[FieldDef, int]:
    """Change label, config or required flag; optionally backfill an auto-number field.

    Backfill gives every live record of the module lacking a value the next number of the
    field's sequence (starting at ``nextValue``), oldest record first, and advances the counter.
    """
    schema, schemas = await _module(ctx, msg.module_id)
    old = _field(schema, msg.field_id)
    move = ArchiveMove.asked(msg.archived, is_archived=old.archived_at is not None)
    _refuse_update(msg, old, move, schemas, schema)
    if move.unarchiving:
        # the field comes back among the live ones: its config is checked against them
        schema = replace(schema, fields=(*schema.fields, old))
    new = _edited_field(msg, old, move, schema, ctx.now)
    changed = _changed_attributes(old, new)
    with_new = replace(
        schema, fields=tuple(new if f.field_id == old.field_id else f for f in schema.fields)
    )
    user_id = msg.by.user_id
    await _store_field_update(ctx, with_new, new, changed, move, user_id)
    backfilled = 0
    if msg.backfill_existing:
        backfilled = await _backfill(ctx, with_new, new)
        await _field_activity(
            ctx, ActivityKind.FIELD_BACKFILLED, new, user_id, {"count": backfilled}
        )
    if not changed and not msg.backfill_existing and not move.moves:
        return old, 0
    return await _fresh_field(ctx, schema.module.slug, old.field_id), backfilled


def _refuse_update(
    msg: UpdateField,
    old: FieldDef,
    move: ArchiveMove,
    schemas: Mapping[str, ModuleSchema],
    schema: ModuleSchema,
) -> None:
    """The refusals of an update, in this order: a config or backfill for a field that stays
    archived (409), archiving a field others compute from (409), backfilling a field that is no
    auto-number (422)."""
    stays_archived = old.archived_at is not None and not move.unarchiving
    if stays_archived and (msg.config is not None or msg.backfill_existing):
        raise Conflict(
            f"Field {old.slug!r} is archived; send archived false (with or before other "
            "changes) to change its config or backfill it",
            data={"fieldId": old.field_id, "slug": old.slug},
        )
    if move.archiving:
        dependents = dependent_fields(schemas, schema, old)
        if dependents:
            raise Conflict(
                f"Field {old.slug!r} is used by {', '.join(dependents)}; change or delete those "
                "before archiving it",
                data={"dependentFields": dependents},
            )
    if msg.backfill_existing and not isinstance(type_of(old), AutonumberType):
        raise ValidationFailed(
            [
                Issue(
                    "invalid_field_type",
                    ("backfillExisting",),
                    f"backfillExisting applies to autonumber fields; {old.slug!r} is "
                    f"{old.data_type}",
                )
            ]
        )


def _edited_field(
    msg: UpdateField, old: FieldDef, move: ArchiveMove, schema: ModuleSchema, now: str
) -> FieldDef:
    """``old`` with what the update sends (the config checked against ``schema``: 422 on an
    issue); what it leaves out stays as it was."""
    config = old.config
    if msg.config is not None:
        config, issues = check_field_config(
            old.data_type, msg.config, schema, self_slug=old.slug, stored=old.config
        )
        if issues:
            raise ValidationFailed(issues)
    archived_at = old.archived_at
    if move.archiving:
        archived_at = now
    elif move.unarchiving:
        archived_at = None
    return replace(
        old,
        label=old.label if msg.label is None else msg.label,
        name=old.name if msg.name is None else msg.name,
        config=config,
        is_required=old.is_required if msg.is_required is None else msg.is_required,
        archived_at=archived_at,
        updated_at=now,
    )


def _changed_attributes(old: FieldDef, new: FieldDef) -> list[str]:
    """The API names of the attributes an update changed (the activity entry lists them)."""
    return sorted(
        name
        for name, before, after in (
            ("label", old.label, new.label),
            ("name", old.name, new.name),
            ("config", dict(old.config), dict(new.config)),
            ("isRequired", old.is_required, new.is_required),
        )
        if before != after
    )


async def _store_field_update(
    ctx: WriteContext,
    schema: ModuleSchema,
    field: FieldDef,
    changed: list[str],
    move: ArchiveMove,
    user_id: str | None,
) -> None:
    """Write the updated ``field`` (in place in ``schema``), what follows from it, and its
    activity entries; an update that changes nothing writes nothing."""
    if changed or move.moves:
        await ctx.txn.upsert_fields([field])
    if move.moves:
        # the records' searchable text follows: an archived value is found no more
        await ctx.schema_edited()
        await ctx.txn.reindex_module(schema.module.module_id)
    if _recomputed(field, changed, move):
        await _recompute(ctx, schema)
    if changed:
        await _field_activity(ctx, ActivityKind.FIELD_UPDATED, field, user_id, {"changed": changed})
    if move.moves:
        await _field_activity(
            ctx,
            ActivityKind.FIELD_ARCHIVED if move.archiving else ActivityKind.FIELD_UNARCHIVED,
            field,
            user_id,
            {"dataType": field.data_type},
        )


def _recomputed(field: FieldDef, changed: list[str], move: ArchiveMove) -> bool:
    """Whether an updated computed field's values are computed again: a live one follows a new
    config; one brought back was computed from nothing while it was hidden."""
    if not _derived(field):
        return False
    return move.unarchiving or ("config" in changed and field.archived_at is None)


async def _field_activity(
    ctx: WriteContext,
    kind: ActivityKind,
    field: FieldDef,
    user_id: str | None,
    data: Mapping[str, Any],
) -> None:
    await ctx.activity(
        kind,
        user_id=user_id,
        module_id=field.module_id,
        data={"fieldId": field.field_id, "slug": field.slug, **data},
    )


async def delete_field(ctx: WriteContext, msg: DeleteField) -> None:
    """Remove a field, its values in live records, and the module references it is the
    source of. Refused (409) while other fields compute from it."""
    schema, schemas = await _module(ctx, msg.module_id)
    field = _field(schema, msg.field_id)
    dependents = dependent_fields(schemas, schema, field)
    if dependents:
        raise Conflict(
            f"Field {field.slug!r} is used by {', '.join(dependents)}; change or delete those "
            "first",
            data={"dependentFields": dependents},
        )
    module_id = schema.module.module_id
    refs = [
        r
        for r in (*schema.references, *schema.hidden_references)
        if r.source_field_id == field.field_id
        or (r.source_field_id is None and r.source_field_slug == field.slug)
    ]
    await ctx.txn.delete_references(module_id, [r.reference_id for r in refs])
    await ctx.txn.delete_fields(module_id, [field.field_id])
    cleared = await ctx.txn.remove_field_values(module_id, field.slug)
    await ctx.schema_edited()
    await ctx.activity(
        ActivityKind.FIELD_DELETED,
        user_id=msg.by.user_id,
        module_id=module_id,
        data={
            "fieldId": field.field_id,
            "slug": field.slug,
            "vendorManaged": field.vendor_managed,
            "referencesRemoved": [r.slug for r in refs],
            "valuesCleared": cleared,
        },
    )


def field_references(module_slug: str, field: FieldDef) -> list[ReferenceDef]:
    """The module reference a user's reference or parent_record field carries, as template
    fields carry theirs (slug: the field's), so the references, picker and ``expand`` routes
    know it: a parent_record links to its own module, a reference to module records to its
    one allowed module (none named or several: any module)."""
    kind = type_of(field)
    link = kind.module_link(field, module_slug) if kind is not None else None
    if link is None:
        return []
    return [
        ReferenceDef(
            reference_id=new_id(),
            source_module_id=field.module_id,
            slug=field.slug,
            source_field_id=field.field_id,
            source_field_slug=field.slug,
            relationship_type="many_to_many" if link.multi else "many_to_one",
            target_type="module",
            target_module_slug=link.target,
        )
    ]


async def _recompute(ctx: WriteContext, schema: ModuleSchema) -> None:
    """Recompute rollups and formulas of the module's live records (after a definition change)."""
    for row in await ctx.txn.records_lacking_field(schema.module.module_id, None):
        values = dict(row.fields)
        await compute_derived(ctx, schema, values)
        if values != row.fields:
            await ctx.txn.update_record(replace(row, fields=values))


def _derived(field: FieldDef) -> bool:
    kind = type_of(field)
    return kind is not None and kind.derived


async def _backfill(ctx: WriteContext, schema: ModuleSchema, field: FieldDef) -> int:
    """Number the live records lacking a value, oldest first. A system change: the records'
    updated* metadata stays as it was (like recomputed formulas)."""
    only = replace(schema, fields=(field,))
    uses = any(
        isinstance(type_of(f), FormulaType) and field.slug in formula_refs(f.config)
        for f in schema.fields
    )
    rows = await ctx.txn.records_lacking_field(schema.module.module_id, field.slug)
    for row in rows:
        values = dict(row.fields)
        await assign_autonumbers(ctx, only, values)
        if uses:
            await compute_derived(ctx, schema, values)
        await ctx.txn.update_record(replace(row, fields=values))
    return len(rows)
