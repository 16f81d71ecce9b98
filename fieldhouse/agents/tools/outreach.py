"""Outreach tools: draft a sequence of e-mails, schedule it (external).

A sequence (kind ``outreach_sequence``, draft -> scheduled) holds recipients and steps; when
scheduled, every step for every recipient becomes a queued e-mail in the outbox, due at
``startAt`` plus the step's ``delayDays``, delivered like any other queued e-mail.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from pydantic import Field

from fieldhouse.actors.object_ops import ObjectWrite
from fieldhouse.agents.contract import ToolContext, ToolOutcome
from fieldhouse.agents.tools.base import (
    Args,
    Email,
    Moment,
    Tool,
    apply,
    make_tool,
    object_json,
    ok,
    requested,
    short,
    stored_preview,
)
from fieldhouse.agents.writes import Consume
from fieldhouse.model.activity import ActivityKind
from fieldhouse.model.agents import EMAIL, EmailStatus, SequenceStatus
from fieldhouse.model.clock import new_id, to_iso
from fieldhouse.model.errors import NotFound

SEQUENCE = "outreach_sequence"


class Step(Args):
    subject: str = Field(min_length=1, max_length=300)
    body: str = Field(min_length=1, max_length=50_000)
    delayDays: int = Field(default=0, ge=0, le=365, description="days after startAt")


class DraftArgs(Args):
    name: str = Field(min_length=1, max_length=200)
    recipients: list[Email] = Field(min_length=1, max_length=50)
    steps: list[Step] = Field(min_length=1, max_length=10)


class ScheduleArgs(Args):
    sequenceId: str = Field(min_length=1, max_length=64)
    startAt: Moment = Field(description="ISO 8601 date-time of the first step")


async def draft(args: DraftArgs, ctx: ToolContext, consume: Consume | None) -> ToolOutcome:
    summary = (
        f"Drafted the outreach sequence {short(args.name)!r}: {len(args.steps)} step(s) "
        f"to {len(args.recipients)} recipient(s)."
    )
    data = args.model_dump(mode="json") | requested(ctx)
    write = ObjectWrite(
        SEQUENCE,
        new_id(),
        data,
        SequenceStatus.DRAFT,
        activity=ActivityKind.OUTREACH_DRAFTED,
        activity_data={},
    )
    (row,) = await apply(ctx, "outreach.draft", summary, (write,), consume)
    return ok(summary, sequence=object_json(row))


async def schedule(args: ScheduleArgs, ctx: ToolContext, consume: Consume | None) -> ToolOutcome:
    seq = await ctx.store.get_object(ctx.principal.account_id, SEQUENCE, args.sequenceId)
    if seq is None:
        raise NotFound(f"Outreach sequence {args.sequenceId} not found")
    start = datetime.fromisoformat(args.startAt.replace("Z", "+00:00"))
    emails: list[ObjectWrite] = []
    for index, step in enumerate(seq.data.get("steps", [])):
        due = to_iso(start + timedelta(days=int(step.get("delayDays", 0))))
        for recipient in seq.data.get("recipients", []):
            content = {
                "to": [recipient],
                "cc": [],
                "subject": step["subject"],
                "body": step["body"],
            }
            emails.append(
                ObjectWrite(
                    EMAIL,
                    new_id(),
                    {**content, **requested(ctx), "sequenceId": seq.object_id, "step": index},
                    EmailStatus.QUEUED,
                    due_at=due,
                )
            )
    summary = f"Scheduled the outreach sequence {args.sequenceId}: {len(emails)} e-mail(s)."
    # the sequence goes first and must still be a draft, so a sequence is scheduled only once
    mark = ObjectWrite(
        SEQUENCE,
        seq.object_id,
        {"startAt": args.startAt, "emailCount": len(emails)},
        SequenceStatus.SCHEDULED,
        mode="update",
        expect=(SequenceStatus.DRAFT,),
        activity=ActivityKind.OUTREACH_SCHEDULED,
        activity_data={"startAt": args.startAt, "emailCount": len(emails)},
    )
    rows = await apply(ctx, "outreach.schedule", summary, (mark, *emails), consume)
    return ok(summary, sequence=object_json(rows[0]), emailIds=[r.object_id for r in rows[1:]])


TOOLS: tuple[Tool, ...] = (
    make_tool(
        "outreach.draft",
        "Draft an outreach sequence: e-mail steps sent to each recipient (nothing is sent).",
        DraftArgs,
        draft,
        lambda a: f"Drafting the outreach sequence {short(a.name)!r}",
    ),
    make_tool(
        "outreach.schedule",
        "Schedule a drafted outreach sequence from startAt. Needs an approval.",
        ScheduleArgs,
        schedule,
        lambda a: f"Scheduling the outreach sequence {a.sequenceId} from {a.startAt}",
        external=True,
        preview=lambda a, ctx: stored_preview(
            ctx, SEQUENCE, a.sequenceId, ("name", "recipients", "steps"), startAt=a.startAt
        ),
    ),
)
