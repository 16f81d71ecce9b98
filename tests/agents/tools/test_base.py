"""What every tool is made of: strict argument models with e-mail and date-time values, a
flat spec, and the writes a tool makes with its activity entry (the store-backed ones on both
backends)."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from fieldhouse.actors.object_ops import ApplyObjects, ObjectWrite
from fieldhouse.agents.contract import ToolContext, ToolOutcome
from fieldhouse.agents.tools.base import (
    Args,
    Email,
    Moment,
    apply,
    log_read,
    make_tool,
    object_json,
    short,
    stored_preview,
)
from fieldhouse.agents.writes import Consume
from fieldhouse.model.agents import Approval, ApprovalStatus
from fieldhouse.runtime import Runtime
from tests.agents.toolkit import context, objects
from tests.conftest import Workspace


class Recipient(BaseModel):
    address: Email
    name: str | None = None


class SendArgs(Args):
    to: list[Recipient]
    at: Moment


async def run(args: Any, ctx: ToolContext, consume: Consume | None) -> ToolOutcome:
    return ToolOutcome("ok")


def test_arguments_are_strict_and_normalised() -> None:
    args = SendArgs.model_validate(
        {"to": [{"address": "  ada@example.com "}], "at": "2100-01-01T10:00:00+01:00"}
    )
    assert args.to[0].address == "ada@example.com"
    assert args.at == "2100-01-01T09:00:00.000000Z"
    naive = SendArgs.model_validate({"to": [], "at": "2100-01-01T10:00"})
    assert naive.at == "2100-01-01T10:00:00.000000Z"  # no offset means UTC
    for bad, problem in (
        ({"to": [], "at": "2100-01-01", "approved": True}, "Extra inputs are not permitted"),
        ({"to": [{"address": "ada"}], "at": "2100-01-01"}, "'ada' is not an e-mail address"),
        ({"to": [{"address": "a@b"}], "at": "2100-01-01"}, "'a@b' is not an e-mail address"),
        ({"to": [], "at": "next tuesday"}, "'next tuesday' is not an ISO 8601 date-time"),
    ):
        with pytest.raises(ValidationError, match=problem):
            SendArgs.model_validate(bad)
    long = "a" * 310 + "@example.com"
    with pytest.raises(ValidationError, match="is not an e-mail address"):
        SendArgs.model_validate({"to": [{"address": long}], "at": "2100-01-01"})
    with pytest.raises(ValidationError):
        naive.at = "2000-01-01"


def test_a_tools_spec_is_flat() -> None:
    tool = make_tool("mail.send", "Send mail", SendArgs, run, lambda a: "Sending", external=True)
    params = tool.spec.parameters
    assert (tool.spec.name, tool.spec.description, tool.spec.external) == (
        "mail.send",
        "Send mail",
        True,
    )
    assert "$defs" not in str(params) and "title" not in params
    recipient = params["properties"]["to"]["items"]
    assert recipient["properties"]["address"] == {"title": "Address", "type": "string"}
    assert recipient["required"] == ["address"]
    assert params["additionalProperties"] is False
    assert tool.scope == "agents:write"


async def test_a_tools_writes_and_its_entry_commit_together(
    runtime: Runtime, ws: Workspace
) -> None:
    ctx = await context(runtime, ws, "run-7")
    draft = ObjectWrite("email", "e1", {"subject": "Hi"}, "draft")
    (row,) = await apply(ctx, "email.draft", "Drafted 'Hi'.", (draft,), None)
    assert object_json(row) == {
        "id": "e1",
        "kind": "email",
        "status": "draft",
        "dueAt": None,
        "createdDateTime": row.created_at,
        "updatedDateTime": row.updated_at,
        "subject": "Hi",
    }
    await log_read(ctx, "reminders.list", "Listed 0 reminders.")
    approval = Approval(
        approval_id="ap-1",
        tool="email.send",
        arguments={},
        args_hash="h",
        status=ApprovalStatus.APPROVED,
        description="",
        preview={},
        run_id="run-7",
        call_id=None,
        agent_id=None,
        requested_by=None,
        requested_key=None,
        requested_at="2026-01-01T00:00:00.000000Z",
        expires_at="2100-01-01T00:00:00.000000Z",
    )
    write = ObjectWrite("approval", "ap-1", approval.data(), approval.status)
    await runtime.actors.ask(ApplyObjects((write,), by=ws.system))
    sent = ObjectWrite("email", "e1", {}, "queued", "update", ("draft",))
    await apply(ctx, "email.send", "Sent 'Hi'.", (sent,), Consume("ap-1", "email.send", "h"))
    entries = await runtime.store.list_activity(
        ws.account_id, module_ids=None, record_id=None, types=("agent_tool_call",), limit=10
    )
    base = {"runId": "run-7", "agentId": None}
    assert [(e["userId"], e["data"]) for e in reversed(entries)] == [
        (ws.owner_id, {"tool": "email.draft", "summary": "Drafted 'Hi'.", **base}),
        (ws.owner_id, {"tool": "reminders.list", "summary": "Listed 0 reminders.", **base}),
        (
            ws.owner_id,
            {"tool": "email.send", "summary": "Sent 'Hi'.", "approvalId": "ap-1", **base},
        ),
    ]
    (email,) = await objects(runtime, ws, "email")
    assert email.status == "queued"


async def test_an_approver_sees_the_stored_content(runtime: Runtime, ws: Workspace) -> None:
    ctx = await context(runtime, ws)
    assert await stored_preview(ctx, "email", "e1", ("subject",), network=None) == {
        "found": False,
        "network": None,
    }
    data = {"subject": "Hi", "body": "Hello", "cc": None, "secret": "x"}
    await apply(ctx, "email.draft", "Drafted.", (ObjectWrite("email", "e1", data, "draft"),), None)
    shown = await stored_preview(ctx, "email", "e1", ("subject", "body", "cc"), to=["a@b.io"])
    assert shown == {
        "found": True,
        "status": "draft",
        "subject": "Hi",
        "body": "Hello",
        "to": ["a@b.io"],
    }


def test_short_text_is_cut_with_an_ellipsis() -> None:
    assert short("x" * 60) == "x" * 60
    assert short("x" * 61) == "x" * 59 + "…"
    assert short("abcdef", 4) == "abc…"
