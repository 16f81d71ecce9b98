"""Reminder tools: create one (it fires into the activity feed at its time), list them.

Reminders are objects of kind ``reminder``, status scheduled -> fired, with ``due_at``; the
scheduler (``agents/scheduler.py``) fires them.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from fieldhouse.actors.agent_ops import Consume, ObjectWrite
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
from fieldhouse.model.activity import ActivityKind
from fieldhouse.model.agents import ReminderStatus
from fieldhouse.model.clock import new_id

REMINDER = "reminder"


class CreateArgs(Args):
    text: str = Field(min_length=1, max_length=1000)
    dueAt: Moment = Field(description="ISO 8601 date-time; without a zone it is UTC")
    recordId: str | None = Field(default=None, description="a record the reminder is about")


class ListArgs(Args):
    status: Literal["scheduled", "fired"] | None = None
    limit: int = Field(default=20, ge=1, le=100)


async def create(args: CreateArgs, ctx: ToolContext, consume: Consume | None) -> ToolOutcome:
    summary = f"Set a reminder {short(args.text)!r} for {args.dueAt}."
    write = ObjectWrite(
        REMINDER,
        new_id(),
        {"text": args.text, "recordId": args.recordId, **requested(ctx)},
        ReminderStatus.SCHEDULED,
        due_at=args.dueAt,
        activity=ActivityKind.REMINDER_CREATED,
        activity_data={"text": args.text, "dueAt": args.dueAt},
        record_id=args.recordId,
    )
    (row,) = await apply(ctx, "reminders.create", summary, (write,), consume)
    return ok(summary, reminder=object_json(row))


async def list_reminders(args: ListArgs, ctx: ToolContext, consume: Consume | None) -> ToolOutcome:
    rows = await ctx.store.list_objects(
        ctx.principal.account_id, REMINDER, status=args.status, limit=args.limit
    )
    summary = f"Found {len(rows)} reminder(s)."
    await log_read(ctx, "reminders.list", summary)
    return ok(summary, reminders=[object_json(r) for r in rows])


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
        "List the workspace's reminders, newest first.",
        ListArgs,
        list_reminders,
        lambda a: "Listing reminders",
    ),
)
