"""Record mutations through the workspace actor: create, update, delete, bulk changes."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from fieldhouse.actors.context import WriteContext
from fieldhouse.actors.messages import Message
from fieldhouse.actors.record_logic import (
    apply_defaults,
    assign_autonumbers,
    compute_derived,
    links_records,
    module_by_id,
    propagate,
    verify_links,
    write_links,
)
from fieldhouse.actors.rights import may_edit
from fieldhouse.model.activity import ActivityKind
from fieldhouse.model.clock import new_id
from fieldhouse.model.errors import Conflict, Issue, NotFound, ValidationFailed
from fieldhouse.model.fields import is_unique
from fieldhouse.model.records import RecordRow
from fieldhouse.model.schema import ModuleSchema
from fieldhouse.model.values import check_values


@dataclass(frozen=True)
class CreateRecord(Message[RecordRow]):
    module_id: str
    display_name: str
    fields: Mapping[str, Any]
    owner_user_id: str | None = None

    def light(self) -> bool:
        return True

    async def apply(self, ctx: WriteContext) -> RecordRow:
        return await create_record(ctx, self)


@dataclass(frozen=True)
class UpdateRecord(Message[RecordRow]):
    module_id: str
    record_id: str
    display_name: str | None
    fields: Mapping[str, Any] | None

    def light(self) -> bool:
        return True

    async def apply(self, ctx: WriteContext) -> RecordRow:
        return await update_record(ctx, self)


@dataclass(frozen=True)
class DeleteRecords(Message[list[str]]):
    module_id: str
    record_ids: tuple[str, ...]

    async def apply(self, ctx: WriteContext) -> list[str]:
        return await delete_records(ctx, self)


@dataclass(frozen=True)
class Categorise(Message[list[RecordRow]]):
    module_id: str
    record_ids: tuple[str, ...]
    add_labels: tuple[str, ...] = ()
    remove_labels: tuple[str, ...] = ()
    add_types: tuple[str, ...] = ()
    remove_types: tuple[str, ...] = ()

    async def apply(self, ctx: WriteContext) -> list[RecordRow]:
        return await categorise(ctx, self)


async def create_record(ctx: WriteContext, msg: CreateRecord) -> RecordRow:
    schema = module_by_id(ctx, msg.module_id)
    await may_edit(ctx, msg.by, schema.module.slug)
    check = check_values(schema.fields, msg.fields, existing=None, archived=schema.archived_slugs)
    values = dict(check.values)
    issues = list(check.issues)
    issues += await verify_links(ctx, schema, check, values, record_id=None)
    owner = msg.owner_user_id
    if owner is not None and not await ctx.txn.existing_ids("users", [owner]):
        issues.append(
            Issue(
                "invalid_reference",
                ("ownerUserId",),
                f"User {msg.owner_user_id} does not exist",
            )
        )
    if issues:
        raise ValidationFailed(issues)
    values = {k: v for k, v in values.items() if v is not None}
    await check_unique(ctx, schema, values, record_id=None)
    apply_defaults(schema, values)
    await assign_autonumbers(ctx, schema, values)
    await compute_derived(ctx, schema, values)
    row = RecordRow(
        record_id=new_id(),
        account_id=ctx.account_id,
        module_id=schema.module.module_id,
        display_name=msg.display_name,
        fields=values,
        created_at=ctx.now,
        updated_at=ctx.now,
        created_by=msg.by.user_id,
        updated_by=msg.by.user_id,
        created_by_name=msg.by.display_name,
        updated_by_name=msg.by.display_name,
        owner_user_id=msg.owner_user_id,
    )
    await ctx.txn.insert_record(row)
    await write_links(ctx, schema, row.record_id, values)
    await ctx.activity(
        ActivityKind.RECORD_CREATED,
        user_id=msg.by.user_id,
        module_id=row.module_id,
        record_id=row.record_id,
        data={"displayName": row.display_name, "fields": sorted(values)},
    )
    return row


async def update_record(ctx: WriteContext, msg: UpdateRecord) -> RecordRow:
    schema = module_by_id(ctx, msg.module_id)
    await may_edit(ctx, msg.by, schema.module.slug)
    rows = await ctx.txn.get_records([msg.record_id], schema.module.module_id)
    if not rows:
        raise NotFound(f"Record {msg.record_id} not found")
    old = rows[0]
    check = check_values(
        schema.fields, msg.fields or {}, existing=old.fields, archived=schema.archived_slugs
    )
    values = dict(check.values)
    issues = list(check.issues)
    issues += await verify_links(ctx, schema, check, values, record_id=old.record_id)
    if issues:
        raise ValidationFailed(issues)
    merged = dict(old.fields)
    for slug, value in values.items():
        if value is None:
            merged.pop(slug, None)
        else:
            merged[slug] = value
    await check_unique(ctx, schema, values, record_id=old.record_id)
    await compute_derived(ctx, schema, merged)
    display_name = msg.display_name if msg.display_name is not None else old.display_name
    changes = {
        slug: {"before": old.fields.get(slug), "after": merged.get(slug)}
        for slug in sorted(set(old.fields) | set(merged))
        if old.fields.get(slug) != merged.get(slug)
    }
    if display_name != old.display_name:
        changes["displayName"] = {"before": old.display_name, "after": display_name}
    if not changes:
        return old
    row = replace(
        old,
        display_name=display_name,
        fields=merged,
        updated_at=ctx.now,
        updated_by=msg.by.user_id,
        updated_by_name=msg.by.display_name,
    )
    await ctx.txn.update_record(row)
    link_slugs = {f.slug for f in schema.fields if links_records(f) and f.slug in changes}
    if link_slugs:
        await write_links(ctx, schema, row.record_id, merged, only=link_slugs)
    await ctx.activity(
        ActivityKind.RECORD_UPDATED,
        user_id=msg.by.user_id,
        module_id=row.module_id,
        record_id=row.record_id,
        data={"changedFields": sorted(changes), "changes": changes},
    )
    await propagate(ctx, {row.record_id})
    return row


async def check_unique(
    ctx: WriteContext, schema: ModuleSchema, values: Mapping[str, Any], *, record_id: str | None
) -> None:
    """409 uniqueness_violation when a text field declared ``unique`` would hold a value that
    another live record of the module holds."""
    for f in schema.fields:
        value = values.get(f.slug)
        if not is_unique(f) or not isinstance(value, str):
            continue
        holders = await ctx.txn.records_by_value(schema.module.module_id, f.slug, [value])
        other = next((r for r in holders if r.record_id != record_id), None)
        if other is not None:
            raise Conflict(
                f"Another record already has {f.slug} = {value!r}",
                code="uniqueness_violation",
                data={"field": f.slug, "recordId": other.record_id},
            )


async def delete_records(ctx: WriteContext, msg: DeleteRecords) -> list[str]:
    schema = module_by_id(ctx, msg.module_id)
    await may_edit(ctx, msg.by, schema.module.slug)
    unique = list(dict.fromkeys(msg.record_ids))
    live = await ctx.txn.get_records(unique, schema.module.module_id)
    names = {r.record_id: r.display_name for r in live}
    deleted = await ctx.txn.soft_delete(schema.module.module_id, unique, ctx.now, msg.by.user_id)
    for record_id in deleted:
        await ctx.activity(
            ActivityKind.RECORD_DELETED,
            user_id=msg.by.user_id,
            module_id=schema.module.module_id,
            record_id=record_id,
            data={"displayName": names.get(record_id)},
        )
    if deleted:
        await propagate(ctx, set(deleted), deleted=True)
    return deleted


async def categorise(ctx: WriteContext, msg: Categorise) -> list[RecordRow]:
    schema = module_by_id(ctx, msg.module_id)
    await may_edit(ctx, msg.by, schema.module.slug)
    issues: list[Issue] = []
    for table, prop, ids in (
        ("labels", "addLabelIds", msg.add_labels),
        ("labels", "removeLabelIds", msg.remove_labels),
        ("types", "addTypeIds", msg.add_types),
        ("types", "removeTypeIds", msg.remove_types),
    ):
        known = await ctx.txn.existing_ids(table, ids)
        for index, item in enumerate(ids):
            if item not in known:
                issues.append(
                    Issue(
                        "invalid_reference",
                        (prop, index),
                        f"{table[:-1].title()} {item} does not exist",
                        {"id": item},
                    )
                )
    if issues:
        raise ValidationFailed(issues)
    unique = list(dict.fromkeys(msg.record_ids))
    rows = {r.record_id: r for r in await ctx.txn.get_records(unique, schema.module.module_id)}
    missing = [rid for rid in unique if rid not in rows]
    if missing:
        raise NotFound(f"{len(missing)} record(s) not found", data={"missingRecordIds": missing})
    out: list[RecordRow] = []
    for rid in unique:
        old = rows[rid]
        labels = _edit(old.label_ids, msg.add_labels, msg.remove_labels)
        types = _edit(old.type_ids, msg.add_types, msg.remove_types)
        if labels == old.label_ids and types == old.type_ids:
            out.append(old)
            continue
        row = replace(
            old,
            label_ids=labels,
            type_ids=types,
            updated_at=ctx.now,
            updated_by=msg.by.user_id,
            updated_by_name=msg.by.display_name,
        )
        await ctx.txn.update_record(row)
        for kind, before, after in (
            (ActivityKind.RECORD_LABELLED, old.label_ids, labels),
            (ActivityKind.RECORD_TYPED, old.type_ids, types),
        ):
            if before != after:
                await ctx.activity(
                    kind,
                    user_id=msg.by.user_id,
                    module_id=row.module_id,
                    record_id=rid,
                    data={
                        "added": [i for i in after if i not in before],
                        "removed": [i for i in before if i not in after],
                    },
                )
        out.append(row)
    return out


def _edit(current: list[str], add: tuple[str, ...], remove: tuple[str, ...]) -> list[str]:
    kept = [i for i in current if i not in remove]
    return kept + [i for i in dict.fromkeys(add) if i not in kept and i not in remove]
