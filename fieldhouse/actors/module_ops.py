"""Custom modules through the workspace actor: create one with its fields, rename, archive.

A schema change is one message like any record write: it runs in the workspace's write
transaction, in order with the record writes around it, writes its activity entry and bumps the
schema version (``WriteContext.schema_edited``). The version bump moves the change epoch of
every process on the database after the commit (``WorkspaceActor``'s ``on_change``), so every
worker and every server reads the new schema before its next request of the workspace.

An archived module keeps its row (``is_active`` false), fields, records and links; it is out of
every schema snapshot, so it is gone from /v1 (404), search, aggregation and the event stream
until it is unarchived.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from fieldhouse.actors.context import WriteContext
from fieldhouse.actors.messages import Message
from fieldhouse.actors.rights import may_administer
from fieldhouse.actors.template_ops import MAX_FIELDS_PER_MODULE, field_references
from fieldhouse.model.activity import ActivityKind
from fieldhouse.model.clock import new_id
from fieldhouse.model.errors import Conflict, Issue, NotFound, ValidationFailed
from fieldhouse.model.field_config import (
    SLUG_PATTERN,
    check_field_config,
    name_from_slug,
    slug_from_label,
)
from fieldhouse.model.fields import DATA_TYPES, type_of
from fieldhouse.model.schema import ArchiveMove, FieldDef, ModuleDef, ModuleSchema
from fieldhouse.model.templates import BUILTIN_TEMPLATES

#: modules a workspace may hold, archived ones included (their slugs stay taken)
MAX_MODULES = 100
MODULE_SLUG_MAX = 64
MODULE_NAME_MAX = 100
#: slugs of the built-in templates' modules: a workspace may install any of them later
RESERVED_SLUGS = frozenset(t.module_slug for t in BUILTIN_TEMPLATES)

_SLUG = re.compile(SLUG_PATTERN)


@dataclass(frozen=True)
class FieldSpec:
    """One field of a module being created: the shape ``POST .../fields`` takes."""

    label: str
    data_type: str
    slug: str | None = None
    config: Mapping[str, Any] | None = None
    is_required: bool = False
    name: str | None = None
    privacy_level: str = "account"
    sort_order: int | None = None


@dataclass(frozen=True)
class CreateModule(Message[ModuleSchema]):
    slug: str
    name: str
    fields: tuple[FieldSpec, ...] = ()

    async def apply(self, ctx: WriteContext) -> ModuleSchema:
        await may_administer(ctx, self.by)
        return await create_module(ctx, self)


@dataclass(frozen=True)
class UpdateModule(Message[ModuleDef]):
    """Rename (``name``), archive (``archived=True``) or bring back (``archived=False``)."""

    module_id: str
    name: str | None = None
    archived: bool | None = None

    async def apply(self, ctx: WriteContext) -> ModuleDef:
        await may_administer(ctx, self.by)
        return await update_module(ctx, self)


def check_module_slug(slug: str, path: tuple[str | int, ...] = ("slug",)) -> list[Issue]:
    """The rules of a custom module's slug (the path segment of its /v1 routes)."""
    if not 1 <= len(slug) <= MODULE_SLUG_MAX or not _SLUG.match(slug):
        return [
            Issue(
                "invalid_string",
                path,
                f"slug {slug!r} must be 1 to {MODULE_SLUG_MAX} characters of kebab-case: "
                "lower-case letters and digits in words joined by single hyphens, starting "
                "with a letter",
                {"validation": "regex", "pattern": SLUG_PATTERN},
            )
        ]
    return []


def _check_name(name: str, path: tuple[str | int, ...] = ("name",)) -> list[Issue]:
    if not name.strip() or len(name) > MODULE_NAME_MAX:
        return [
            Issue(
                "invalid_string",
                path,
                f"name must be 1 to {MODULE_NAME_MAX} characters, not blank",
                {"maximum": MODULE_NAME_MAX},
            )
        ]
    return []


async def create_module(ctx: WriteContext, msg: CreateModule) -> ModuleSchema:
    """A user-created module (no template) with its fields, each config checked by its field
    type against the whole new module (a formula may name a field listed after it)."""
    issues = check_module_slug(msg.slug) + _check_name(msg.name)
    if len(msg.fields) > MAX_FIELDS_PER_MODULE:
        issues.append(
            Issue(
                "too_big",
                ("fields",),
                f"a module holds at most {MAX_FIELDS_PER_MODULE} fields",
                {"maximum": MAX_FIELDS_PER_MODULE, "inclusive": True, "type": "array"},
            )
        )
    if issues:
        raise ValidationFailed(issues)
    if msg.slug in RESERVED_SLUGS:
        raise Conflict(
            f"Module slug {msg.slug!r} belongs to a built-in template (install it with POST "
            f"/api/templates/<slug>/install); choose another slug",
            data={"slug": msg.slug, "reserved": sorted(RESERVED_SLUGS)},
        )
    modules = await ctx.txn.all_modules()
    taken = next((m for m in modules if m.slug == msg.slug), None)
    if taken is not None:
        state = "" if taken.is_active else " (archived: PATCH it with archived false)"
        raise Conflict(
            f"The workspace already has a module with slug {msg.slug!r}{state}",
            data={"slug": msg.slug, "moduleId": taken.module_id, "archived": not taken.is_active},
        )
    if len(modules) >= MAX_MODULES:
        raise Conflict(
            f"The workspace has {len(modules)} modules (archived ones count), the most it may "
            f"have is {MAX_MODULES}",
            data={"limit": MAX_MODULES},
        )
    module = ModuleDef(
        module_id=new_id(),
        account_id=ctx.account_id,
        name=msg.name.strip(),
        slug=msg.slug,
        created_at=ctx.now,
        updated_at=ctx.now,
    )
    fields = _fields(module, msg.fields, ctx.now, set(ctx.schemas) | {module.slug})
    await ctx.txn.insert_module(module)
    await ctx.txn.upsert_fields(fields)
    await ctx.txn.upsert_references([r for f in fields for r in field_references(module.slug, f)])
    await ctx.schema_edited()
    await ctx.activity(
        ActivityKind.MODULE_CREATED,
        user_id=msg.by.user_id,
        module_id=module.module_id,
        data={
            "slug": module.slug,
            "name": module.name,
            "fields": [{"slug": f.slug, "dataType": f.data_type} for f in fields],
        },
    )
    return ctx.schemas[module.slug]


def _fields(
    module: ModuleDef, specs: Sequence[FieldSpec], now: str, module_slugs: set[str]
) -> list[FieldDef]:
    """The field definitions of a new module, or ValidationFailed naming ``fields[i]``."""
    issues: list[Issue] = []
    drafts: list[FieldDef] = []
    seen: dict[str, int] = {}
    for i, spec in enumerate(specs):
        slug = spec.slug or slug_from_label(spec.label)
        if spec.data_type not in DATA_TYPES:
            issues.append(
                Issue(
                    "invalid_enum_value",
                    ("fields", i, "dataType"),
                    f"dataType {spec.data_type!r} is not a field type; one of: "
                    + ", ".join(DATA_TYPES),
                    {"options": list(DATA_TYPES)},
                )
            )
        if slug in seen:
            issues.append(
                Issue(
                    "duplicate",
                    ("fields", i, "slug"),
                    f"slug {slug!r} is also the slug of fields[{seen[slug]}]; each field of a "
                    "module needs its own",
                )
            )
        seen.setdefault(slug, i)
        drafts.append(
            FieldDef(
                field_id=new_id(),
                module_id=module.module_id,
                name=spec.name or name_from_slug(slug),
                slug=slug,
                label=spec.label.strip(),
                data_type=spec.data_type,
                config=dict(spec.config or {}),
                is_required=spec.is_required,
                privacy_level=spec.privacy_level,
                sort_order=spec.sort_order if spec.sort_order is not None else i,
                vendor_managed=False,
                created_at=now,
                updated_at=now,
            )
        )
    if issues:
        raise ValidationFailed(issues)
    whole = ModuleSchema(module, tuple(drafts), (), ())
    out: list[FieldDef] = []
    for i, draft in enumerate(drafts):
        config, found = check_field_config(
            draft.data_type, draft.config, whole, self_slug=draft.slug
        )
        found += _unknown_targets(draft, config, module_slugs)
        issues.extend(issue.prefixed("fields", i) for issue in found)
        out.append(replace(draft, config=config))
    if issues:
        raise ValidationFailed(issues)
    return out


def _unknown_targets(
    field: FieldDef, config: Mapping[str, Any], module_slugs: set[str]
) -> list[Issue]:
    """A reference field of a new module may only link to modules that exist (or itself)."""
    allowed = _allowed_modules(replace(field, config=config))
    unknown = [s for s in allowed if s not in module_slugs]
    if not unknown:
        return []
    return [
        Issue(
            "invalid_reference",
            ("config", "reference", "allowedModuleSlugs"),
            f"no module {', '.join(map(repr, unknown))} in the workspace",
        )
    ]


def _allowed_modules(field: FieldDef) -> tuple[str, ...]:
    """The modules a field's config names as link targets (a reference field's)."""
    kind = type_of(field)
    return kind.allowed_modules(field) if kind is not None else ()


async def update_module(ctx: WriteContext, msg: UpdateModule) -> ModuleDef:
    """Rename, archive or unarchive a module; an unchanged module is answered as it is."""
    if msg.name is not None and (issues := _check_name(msg.name)):
        raise ValidationFailed(issues)
    module = await _stored_module(ctx, msg.module_id)
    move = ArchiveMove.asked(msg.archived, is_archived=not module.is_active)
    name = module.name if msg.name is None else msg.name.strip()
    if move.archiving:
        _check_unreferenced(ctx, module)
    if move.unarchiving:
        await _check_targets(ctx, module)
    if name == module.name and not move.moves:
        return module
    await _store_module_update(ctx, module, name, move, msg.by.user_id)
    return replace(
        module,
        name=name,
        is_active=module.is_active if not move.moves else move.unarchiving,
        updated_at=ctx.now,
    )


async def _stored_module(ctx: WriteContext, module_id: str) -> ModuleDef:
    """The module, archived or not; 404 when the workspace has none of that id."""
    module = next((m for m in await ctx.txn.all_modules() if m.module_id == module_id), None)
    if module is None:
        raise NotFound(f"Module {module_id} not found")
    return module


async def _store_module_update(
    ctx: WriteContext, module: ModuleDef, name: str, move: ArchiveMove, user_id: str | None
) -> None:
    """Write the new name and archived state of ``module``, and their activity entries."""
    if name != module.name:
        await ctx.txn.rename_module(module.module_id, name, ctx.now)
    if move.moves:
        await ctx.txn.set_module_active(module.module_id, move.unarchiving, ctx.now)
    await ctx.schema_edited()
    if name != module.name:
        await ctx.activity(
            ActivityKind.MODULE_UPDATED,
            user_id=user_id,
            module_id=module.module_id,
            data={"slug": module.slug, "changed": ["name"], "name": name},
        )
    if move.moves:
        await ctx.activity(
            ActivityKind.MODULE_ARCHIVED if move.archiving else ActivityKind.MODULE_UNARCHIVED,
            user_id=user_id,
            module_id=module.module_id,
            data={"slug": module.slug, "name": name},
        )


def _check_unreferenced(ctx: WriteContext, module: ModuleDef) -> None:
    """409 while live fields of other modules link to this one by name (their links would
    point into a module nobody can read)."""
    linking = sorted(
        {
            f"{schema.module.slug}.{f.slug}"
            for schema in ctx.schemas.values()
            if schema.module.module_id != module.module_id
            for f in schema.fields
            if module.slug in _allowed_modules(f)
        }
        | {
            f"{schema.module.slug}.{r.source_field_slug or r.slug}"
            for schema in ctx.schemas.values()
            if schema.module.module_id != module.module_id
            for r in schema.references
            if r.target_type == "module" and r.target_module_slug == module.slug
        }
    )
    if linking:
        raise Conflict(
            f"Module {module.slug!r} is linked to by {', '.join(linking)}; archive or change "
            "those fields first",
            data={"referencingFields": linking},
        )


async def _check_targets(ctx: WriteContext, module: ModuleDef) -> None:
    """409 while live reference fields of the module coming back link to archived modules
    (archived while this one was: bring those back first)."""
    linking = sorted(
        f"{module.slug}.{f.slug} -> {target}"
        for f in await ctx.txn.module_fields(module.module_id)
        if f.archived_at is None
        for target in _allowed_modules(f)
        if target != module.slug and target not in ctx.schemas
    )
    if linking:
        raise Conflict(
            f"Module {module.slug!r} links to modules that are archived or gone "
            f"({', '.join(linking)}); bring those back first",
            data={"archivedTargets": linking},
        )
