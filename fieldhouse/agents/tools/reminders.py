"""Reminder tools: create one (it fires into the activity feed at its time), list them.

Reminders are objects of kind ``reminder``, status scheduled -> fired, with ``due_at``; the
scheduler (``agents/scheduler.py``) fires them. A reminder is its requester's: its id starts
with their user id, and the list shows only theirs. The record a reminder is about must be one
of the workspace's that the requester may see.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from fieldhouse.actors.object_ops import ObjectWrite
from fieldhouse.agents.contract import ToolContext, ToolOutcome
from fieldhouse.agents.tools.base import (
    Args,
    Moment,
    Tool,
    apply,
    log_read,
    make_tool,
    object_json,
    ok,
    requested,
    short,
)
from fieldhouse.agents.writes import Consume
from fieldhouse.model.activity import ActivityKind
from fieldhouse.model.clock import is_uuid, new_id
from fieldhouse.model.errors import NotFound
from fieldhouse.model.reminders import REMINDER as REMINDER
from fieldhouse.model.reminders import Reminder, Requested
from fieldhouse.storage.objects import ObjectRow


class CreateArgs(Args):
    text: str = Field(min_length=1, max_length=1000)
    dueAt: Moment = Field(description="ISO 8601 date-time; without a zone it is UTC")
    recordId: str | None = Field(
        default=None, max_length=64, description="a record of the workspace it is about"
    )


class ListArgs(Args):
    status: Literal["scheduled", "fired"] | None = None
    limit: int = Field(default=20, ge=1, le=100)


#: reminders stored before their ids named their user are looked for among this many
LEGACY_SCAN = 200


def _prefix(ctx: ToolContext) -> str:
    return f"{ctx.principal.user_id}-"


async def _record(ctx: ToolContext, record_id: str) -> str:
    """The id of a live record of this workspace that the requester may see (404 otherwise,
    the same answer for another workspace's record as for none)."""
    principal = ctx.principal
    wanted = record_id.lower()
    found = await ctx.store.get_records(principal.account_id, [wanted]) if is_uuid(wanted) else []
    for row in found:
        schemas = await ctx.actors.schemas.get(principal.account_id)
        schema = schemas.by_id(row.module_id)
        if schema is not None and principal.can_view(schema.module.slug):
            return row.record_id
    raise NotFound(f"Record {record_id} not found", data={"recordId": record_id})


async def create(args: CreateArgs, ctx: ToolContext, consume: Consume | None) -> ToolOutcome:
    record_id = await _record(ctx, args.recordId) if args.recordId is not None else None
    summary = f"Set a reminder {short(args.text)!r} for {args.dueAt}."
    who = Requested.from_data(requested(ctx))
    reminder = Reminder(_prefix(ctx) + new_id(), args.text, record_id, who, args.dueAt)
    write = ObjectWrite.of(
        reminder,
        activity=ActivityKind.REMINDER_CREATED,
        activity_data={"text": args.text, "dueAt": args.dueAt},
        record_id=record_id,
    )
    (row,) = await apply(ctx, "reminders.create", summary, (write,), consume)
    return ok(summary, reminder=object_json(row))


async def list_reminders(args: ListArgs, ctx: ToolContext, consume: Consume | None) -> ToolOutcome:
    account, user = ctx.principal.account_id, ctx.principal.user_id
    rows = await ctx.store.list_objects(
        account, REMINDER, status=args.status, limit=args.limit, id_prefix=_prefix(ctx)
    )
    older = await ctx.store.list_objects(account, REMINDER, status=args.status, limit=LEGACY_SCAN)
    rows += [r for r in older if is_uuid(r.object_id) and r.data.get("createdBy") == user]
    rows = sorted(rows, key=_newest, reverse=True)[: args.limit]
    summary = f"Found {len(rows)} reminder(s)."
    await log_read(ctx, "reminders.list", summary)
    return ok(summary, reminders=[object_json(r) for r in rows])


def _newest(row: ObjectRow) -> tuple[str, str]:
    return row.created_at, row.object_id


TOOLS: tuple[Tool, ...] = (
    make_tool(
        "reminders.create",
        "Set a reminder that appears in the workspace's activity feed at dueAt.",
        CreateArgs,
        create,
        lambda a: f"Setting a reminder {short(a.text)!r} for {a.dueAt}",
    ),
    make_tool(
        "reminders.list",
        "List your reminders, newest first.",
        ListArgs,
        list_reminders,
        lambda a: "Listing reminders",
    ),
)
