"""E-mail tools: draft into the outbox, and send (external: queued for SMTP delivery).

Outbox objects are kind ``email`` with status draft -> queued -> sending -> sent | failed. A
queued e-mail carries ``due_at`` (when it may go out); the scheduler delivers it when
FIELDHOUSE_SMTP_URL is set, and otherwise it stays queued.
"""

from __future__ import annotations

from pydantic import Field

from fieldhouse.actors.object_ops import ObjectWrite
from fieldhouse.agents.contract import ToolContext, ToolOutcome
from fieldhouse.agents.tools.base import (
    Args,
    Email,
    Tool,
    apply,
    make_tool,
    object_json,
    ok,
    requested,
    short,
)
from fieldhouse.agents.writes import Consume
from fieldhouse.model.activity import ActivityKind
from fieldhouse.model.agents import EMAIL, EmailStatus
from fieldhouse.model.clock import new_id, now_iso


class DraftArgs(Args):
    to: list[Email] = Field(min_length=1, max_length=50, description="recipient addresses")
    cc: list[Email] = Field(default_factory=list, max_length=50)
    subject: str = Field(min_length=1, max_length=300)
    body: str = Field(min_length=1, max_length=50_000, description="plain text")


class SendArgs(DraftArgs):
    draftId: str | None = Field(
        default=None, description="an e-mail draft to send with exactly this content"
    )


def _content(args: DraftArgs) -> dict[str, object]:
    return {"to": list(args.to), "cc": list(args.cc), "subject": args.subject, "body": args.body}


async def draft(args: DraftArgs, ctx: ToolContext, consume: Consume | None) -> ToolOutcome:
    email_id = new_id()
    summary = f"Drafted the e-mail {short(args.subject)!r} to {', '.join(args.to)}."
    write = ObjectWrite(
        EMAIL,
        email_id,
        {**_content(args), **requested(ctx)},
        EmailStatus.DRAFT,
        activity=ActivityKind.EMAIL_DRAFTED,
        activity_data={"subject": args.subject, "to": list(args.to)},
    )
    (row,) = await apply(ctx, "email.draft", summary, (write,), consume)
    return ok(summary, email=object_json(row))


async def _preview(args: SendArgs, ctx: ToolContext) -> dict[str, object]:
    shown = _content(args)
    if not args.cc:
        del shown["cc"]
    return shown


async def send(args: SendArgs, ctx: ToolContext, consume: Consume | None) -> ToolOutcome:
    now = now_iso()
    data = {**_content(args), **requested(ctx), "queuedAt": now}
    draft_id = args.draftId
    write = ObjectWrite(
        EMAIL,
        draft_id or new_id(),
        data,
        EmailStatus.QUEUED,
        mode="update" if draft_id else "create",
        expect=(EmailStatus.DRAFT,),
        due_at=now,
        activity=ActivityKind.EMAIL_QUEUED,
        activity_data={"subject": args.subject, "to": list(args.to)},
    )
    summary = f"Queued the e-mail {short(args.subject)!r} to {', '.join(args.to)} for delivery."
    (row,) = await apply(ctx, "email.send", summary, (write,), consume)
    return ok(summary, email=object_json(row))


TOOLS: tuple[Tool, ...] = (
    make_tool(
        "email.draft",
        "Write an e-mail draft into the outbox (nothing is sent).",
        DraftArgs,
        draft,
        lambda a: f"Drafting the e-mail {short(a.subject)!r} to {', '.join(a.to)}",
    ),
    make_tool(
        "email.send",
        "Send an e-mail (optionally an existing draft, given by draftId, with this content). "
        "Needs an approval for exactly these arguments.",
        SendArgs,
        send,
        lambda a: f"Sending the e-mail {short(a.subject)!r} to {', '.join(a.to)}",
        external=True,
        preview=_preview,
    ),
)
