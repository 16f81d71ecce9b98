"""What the actor does around field values: links, counters and computed fields.

All of it runs inside the actor's transaction, so reads see the batch's earlier writes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from fieldhouse.actors.context import WriteContext
from fieldhouse.model.errors import Issue, NotFound
from fieldhouse.model.fields import FieldType, FormulaType, RollupType, type_of
from fieldhouse.model.formula import compute_formula
from fieldhouse.model.records import RecordRow
from fieldhouse.model.rollup import compute_rollup, rollup_source
from fieldhouse.model.schema import FieldDef, ModuleSchema
from fieldhouse.model.values import ValueCheck

#: plans remembered (a schema is replaced, not changed, so a plan holds as long as it does)
PLANS_REMEMBERED = 512


@dataclass(frozen=True)
class _Plan:
    """A module's fields sorted by what a write does with them (fields of a type this server
    does not know are in none: every step skipped them), worked out once per schema
    rather than by looking up every field's type in every step of every write."""

    typed: tuple[tuple[FieldDef, FieldType], ...]
    #: fields whose type counts (auto-numbers): numbered on create
    autonumbers: tuple[tuple[FieldDef, FieldType], ...]
    rollups: tuple[FieldDef, ...]
    formulas: tuple[FieldDef, ...]
    links: tuple[FieldDef, ...]
    by_slug: Mapping[str, FieldDef]


_plans: dict[int, tuple[ModuleSchema, _Plan]] = {}


def _plan(schema: ModuleSchema) -> _Plan:
    held = _plans.get(id(schema))
    if held is not None and held[0] is schema:  # (held, the schema's id is not reused)
        return held[1]
    typed = tuple((f, kind) for f in schema.fields if (kind := type_of(f)) is not None)
    plan = _Plan(
        typed=typed,
        autonumbers=tuple((f, k) for f, k in typed if k.counts),
        rollups=tuple(f for f, k in typed if isinstance(k, RollupType)),
        formulas=tuple(f for f, k in typed if isinstance(k, FormulaType)),
        links=tuple(f for f, k in typed if k.links_records),
        by_slug={f.slug: f for f in schema.fields},
    )
    if len(_plans) >= PLANS_REMEMBERED:
        _plans.clear()
    _plans[id(schema)] = (schema, plan)
    return plan


def module_by_id(ctx: WriteContext, module_id: str) -> ModuleSchema:
    for schema in ctx.schemas.values():
        if schema.module.module_id == module_id:
            return schema
    raise NotFound("Module not found")


def links_records(field: FieldDef) -> bool:
    """Whether the field's values point at records kept in the links table."""
    kind = type_of(field)
    return kind is not None and kind.links_records


def link_targets(field: FieldDef, value: Any) -> list[str]:
    """Record ids a reference or parent_record value points at."""
    kind = type_of(field)
    return [] if kind is None or value is None else kind.link_targets(field, value)


def apply_defaults(schema: ModuleSchema, values: dict[str, Any]) -> None:
    """Configured defaults for fields a create left out."""
    for f, kind in _plan(schema).typed:
        if f.slug in values:
            continue
        default = kind.default(f)
        if default is not None:
            values[f.slug] = default


async def verify_links(
    ctx: WriteContext,
    schema: ModuleSchema,
    check: ValueCheck,
    values: dict[str, Any],
    *,
    record_id: str | None,
) -> list[Issue]:
    """Check referenced records, parents and users; fill reference display names."""
    issues: list[Issue] = []
    wanted = {rid for c in check.references for rid in c.record_ids}
    wanted |= {p.record_id for p in check.parents}
    found = await ctx.txn.record_modules(wanted) if wanted else {}
    for ref in check.references:
        for rid in ref.record_ids:
            where = found.get(rid)
            if where is None or where[0] not in ctx.schemas:  # (an archived module's: hidden)
                issues.append(_link_issue(ref.field_slug, f"Record {rid} does not exist"))
            elif ref.allowed_module_slugs and where[0] not in ref.allowed_module_slugs:
                allowed = ", ".join(ref.allowed_module_slugs)
                issues.append(
                    _link_issue(
                        ref.field_slug,
                        f"Record {rid} is in module {where[0]!r}; this field links to: {allowed}",
                    )
                )
        _fill_display_names(values, ref.field_slug, found)
    for parent in check.parents:
        issues.extend(
            await _check_parent(
                ctx, schema, parent.field_slug, parent.record_id, parent.max_depth, record_id, found
            )
        )
    for users in check.users:
        known = await ctx.txn.existing_ids("users", users.user_ids)
        for uid in users.user_ids:
            if uid not in known:
                issues.append(_link_issue(users.field_slug, f"User {uid} does not exist"))
            else:
                await _fill_user(ctx, values, users.field_slug, uid)
    return issues


async def _fill_user(ctx: WriteContext, values: dict[str, Any], slug: str, user_id: str) -> None:
    """The user's own name (and, for person values, email) in the items naming them."""
    user = await ctx.find_user(user_id) if ctx.find_user is not None else None
    if user is None:
        return
    value = values.get(slug)
    for item in value if isinstance(value, list) else [value]:
        if not isinstance(item, dict):
            continue
        if item.get("userId") == user_id:
            item["displayName"] = user.display_name
            item["email"] = user.email
        elif item.get("recordId") == user_id:  # a reference to a user
            item["displayName"] = user.display_name


def _link_issue(slug: str, message: str) -> Issue:
    return Issue("invalid_reference", ("fields", slug), message)


def _fill_display_names(
    values: dict[str, Any], slug: str, found: Mapping[str, tuple[str, str]]
) -> None:
    value = values.get(slug)
    items = value if isinstance(value, list) else [value]
    for item in items:
        if isinstance(item, dict) and item.get("recordId") in found:
            item["displayName"] = found[item["recordId"]][1]


async def _check_parent(
    ctx: WriteContext,
    schema: ModuleSchema,
    slug: str,
    parent_id: str,
    max_depth: int,
    record_id: str | None,
    found: Mapping[str, tuple[str, str]],
) -> list[Issue]:
    """The parent exists in this module, is not the record or one of its descendants, and the
    record's whole subtree still fits within ``max_depth`` levels under it."""
    if parent_id not in found or found[parent_id][0] != schema.module.slug:
        return [_link_issue(slug, f"Parent record {parent_id} does not exist in this module")]
    if parent_id == record_id:
        return [Issue("cycle", ("fields", slug), "A record cannot be its own parent")]
    chain = [parent_id]  # the new parent and its ancestors, nearest first
    while len(chain) <= _MAX_CHAIN:
        rows = await ctx.txn.get_records([chain[-1]])
        up = rows[0].fields.get(slug) if rows else None
        if not isinstance(up, str) or up in chain:
            break
        if up == record_id:
            return [
                Issue("cycle", ("fields", slug), "This parent would make the hierarchy a cycle")
            ]
        chain.append(up)
    height = 1 if record_id is None else await _subtree_height(ctx, slug, record_id, max_depth)
    if len(chain) + height > max_depth:
        return [
            Issue(
                "too_big",
                ("fields", slug),
                f"Hierarchy would be deeper than maxDepth {max_depth}",
                {"maximum": max_depth, "inclusive": True, "type": "depth"},
            )
        ]
    return []


#: Longest ancestor chain walked when looking for cycles (maxDepth is at most 10).
_MAX_CHAIN = 64


async def _subtree_height(ctx: WriteContext, slug: str, record_id: str, limit: int) -> int:
    """Levels of the hierarchy rooted at ``record_id`` (1 without children), up to limit + 1."""
    height, frontier, seen = 1, {record_id}, {record_id}
    while frontier and height <= limit:
        children = {src for src, field in await ctx.txn.linking_sources(frontier) if field == slug}
        frontier = children - seen
        if not frontier:
            break
        seen |= frontier
        height += 1
    return height


async def assign_autonumbers(
    ctx: WriteContext, schema: ModuleSchema, values: dict[str, Any]
) -> None:
    for f, kind in _plan(schema).autonumbers:
        number = await ctx.txn.take_number(f, kind.sequence(f, values))
        values[f.slug] = kind.render(f, values, number)


async def compute_derived(ctx: WriteContext, schema: ModuleSchema, values: dict[str, Any]) -> None:
    """Rollups (from linked records), then formulas in field order."""
    plan = _plan(schema)
    for f in plan.rollups:
        linked_field = plan.by_slug.get(rollup_source(f.config).linked_field_slug or "")
        targets = link_targets(linked_field, values.get(linked_field.slug)) if linked_field else []
        linked = await ctx.txn.get_records(targets) if targets else []
        values[f.slug] = compute_rollup(f.config, [r.fields for r in linked])
    if plan.formulas:
        now = datetime.now(UTC)
        for f in plan.formulas:
            values[f.slug] = compute_formula(f.config, values, now=now)


async def write_links(
    ctx: WriteContext,
    schema: ModuleSchema,
    record_id: str,
    values: Mapping[str, Any],
    only: set[str] | None = None,
) -> None:
    for f in _plan(schema).links:
        if only is None or f.slug in only:
            await ctx.txn.set_links(record_id, f.slug, link_targets(f, values.get(f.slug)))


async def propagate(ctx: WriteContext, changed_ids: set[str], *, deleted: bool = False) -> None:
    """Bring live records that link to changed records up to date.

    Reference values carry the target's display name: a renamed target's new name is written
    into them, so no read shows a name that no longer exists. Rollups (and formulas) over the
    links are recomputed. With ``deleted`` the changed records are gone: links to them are also
    dropped from the linking records' reference and parent_record values.
    """
    sources = await ctx.txn.linking_sources(changed_ids)
    by_source: dict[str, set[str]] = {}
    for source_id, slug in sources:
        by_source.setdefault(source_id, set()).add(slug)
    if not by_source:
        return
    names = {} if deleted else await _display_names(ctx, changed_ids)
    for row in await ctx.txn.get_records(list(by_source)):
        schema = module_by_id(ctx, row.module_id)
        slugs = by_source[row.record_id]
        values = dict(row.fields)
        unlinked: set[str] = set()
        for f in schema.fields:
            if f.slug not in slugs:
                continue
            if deleted and _drop_targets(f, values, changed_ids):
                unlinked.add(f.slug)
            elif names:
                _rename_targets(values, f.slug, names)
        uses = {
            f.slug
            for f in _plan(schema).rollups
            if rollup_source(f.config).linked_field_slug in slugs
        }
        if uses or unlinked:
            await compute_derived(ctx, schema, values)
        if values != row.fields:
            await ctx.txn.update_record(_with_fields(row, values))
        if unlinked:
            await write_links(ctx, schema, row.record_id, values, only=unlinked)


async def _display_names(ctx: WriteContext, ids: set[str]) -> dict[str, str]:
    return {r.record_id: r.display_name for r in await ctx.txn.get_records(list(ids))}


def _rename_targets(values: dict[str, Any], slug: str, names: Mapping[str, str]) -> None:
    """Write the current display names of ``names``' records into a reference value."""
    value = values.get(slug)
    items = value if isinstance(value, list) else [value]
    if not any(isinstance(i, Mapping) and i.get("recordId") in names for i in items):
        return
    renamed = [
        {**i, "displayName": names[i["recordId"]]}
        if isinstance(i, Mapping) and i.get("recordId") in names
        else i
        for i in items
    ]
    values[slug] = renamed if isinstance(value, list) else renamed[0]


def _drop_targets(field: FieldDef, values: dict[str, Any], gone: set[str]) -> bool:
    """Remove links to ``gone`` records from a reference or parent_record value in place."""
    kind = type_of(field)
    value = values.get(field.slug)
    if kind is None or value is None:
        return False
    changed, kept = kind.without_targets(field, value, gone)
    if changed:
        if kept is None:
            del values[field.slug]
        else:
            values[field.slug] = kept
    return changed


def _with_fields(row: RecordRow, values: dict[str, Any]) -> RecordRow:
    return replace(row, fields=values)
