"""Many records in one message: batch create, upsert by a unique field, and import.

One message is one transaction. ``all_or_nothing`` (the batch endpoint) fails the whole message
with every item's issues when any item is invalid; otherwise (imports) each item runs in its own
savepoint and the invalid ones are reported and skipped. The items' savepoints are lax (see
:meth:`~fieldhouse.storage.writebehind.WriteBehind.savepoint`): their rows reach the database
in a few statements per message, not several per item.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from fieldhouse.actors.context import WriteContext
from fieldhouse.actors.messages import Message
from fieldhouse.actors.record_logic import module_by_id
from fieldhouse.actors.record_ops import CreateRecord, UpdateRecord, create_record, update_record
from fieldhouse.actors.rights import may_edit
from fieldhouse.model.errors import ApiError, BadRequest, Issue, ValidationFailed
from fieldhouse.model.fields import is_unique
from fieldhouse.model.records import RecordRow
from fieldhouse.model.schema import ModuleSchema


@dataclass(frozen=True)
class BatchItem:
    display_name: str
    fields: Mapping[str, Any]
    owner_user_id: str | None = None


@dataclass(frozen=True)
class BatchOutcome:
    """What happened to each item: (index, record, created?) and the rejected (index, issues)."""

    written: list[tuple[int, RecordRow, bool]] = field(default_factory=list)
    rejected: list[tuple[int, tuple[Issue, ...]]] = field(default_factory=list)


@dataclass(frozen=True)
class BatchWrite(Message[BatchOutcome]):
    module_id: str
    items: tuple[BatchItem, ...]
    #: a unique text field: an item whose value matches a live record updates it
    upsert_by: str | None = None
    all_or_nothing: bool = True

    async def apply(self, ctx: WriteContext) -> BatchOutcome:
        return await batch_write(ctx, self)


def check_upsert_field(schema: ModuleSchema, slug: str) -> None:
    """Refuse an upsertBy that names no field, or a field that is not declared unique."""
    found = next((f for f in schema.fields if f.slug == slug), None)
    if found is None:
        raise BadRequest(f"upsertBy: module {schema.module.slug!r} has no field {slug!r}")
    if not is_unique(found):
        raise BadRequest(
            f"upsertBy: field {slug!r} is not unique; upsert needs a text field whose config "
            'has "unique": true'
        )


async def batch_write(ctx: WriteContext, msg: BatchWrite) -> BatchOutcome:
    schema = module_by_id(ctx, msg.module_id)
    await may_edit(ctx, msg.by, schema.module.slug)
    if msg.upsert_by is not None:
        check_upsert_field(schema, msg.upsert_by)
    outcome = BatchOutcome()
    for index, item in enumerate(msg.items):
        try:
            # lax: the items' writes stay queued and run together (one executemany for the
            # records, one for their activity entries); an item that fails drops its own
            async with ctx.txn.savepoint(strict=False):
                row, created = await _write_one(ctx, msg, item)
        except ValidationFailed as exc:
            outcome.rejected.append(
                (index, tuple(i.prefixed("records", index) for i in exc.issues))
            )
            continue
        except ApiError as exc:
            issue = Issue(exc.code, ("records", index), exc.message)
            outcome.rejected.append((index, (issue,)))
            continue
        outcome.written.append((index, row, created))
    if outcome.rejected and msg.all_or_nothing:
        issues = [i for _, each in outcome.rejected for i in each]
        raise ValidationFailed(
            issues,
            f"{len(outcome.rejected)} of {len(msg.items)} records are invalid; none was written",
            data={"invalidIndexes": [index for index, _ in outcome.rejected]},
        )
    return outcome


async def _write_one(ctx: WriteContext, msg: BatchWrite, item: BatchItem) -> tuple[RecordRow, bool]:
    if msg.upsert_by is not None:
        value = item.fields.get(msg.upsert_by)
        if not isinstance(value, str) or not value:
            raise ValidationFailed(
                [
                    Issue(
                        "required",
                        ("fields", msg.upsert_by),
                        f"{msg.upsert_by} is required to upsert by it",
                    )
                ]
            )
        found = await ctx.txn.records_by_value(msg.module_id, msg.upsert_by, [value])
        if found:
            update = UpdateRecord(
                msg.module_id,
                found[0].record_id,
                item.display_name,
                item.fields,
                by=msg.by,
            )
            return await update_record(ctx, update), False
    create = CreateRecord(
        msg.module_id,
        item.display_name,
        item.fields,
        item.owner_user_id,
        by=msg.by,
    )
    return await create_record(ctx, create), True
