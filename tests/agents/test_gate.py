"""The approval gate: external tools never run without an approver's decision on exactly that
call; an approval runs its one call once, or ends failed or expired, never reusable."""

from __future__ import annotations

from fieldhouse.actors import admin_ops as ops
from fieldhouse.actors.object_ops import ApplyObjects, ObjectWrite
from fieldhouse.agents.contract import ToolCall
from fieldhouse.agents.gate import args_hash
from fieldhouse.agents.writes import DecideApproval
from fieldhouse.model.agents import Approval
from fieldhouse.model.errors import Conflict
from fieldhouse.runtime import Runtime
from tests.agents.toolkit import (
    activity_types,
    approver,
    call,
    context,
    executor,
    expire,
    objects,
)
from tests.conftest import Workspace, add_user

MAIL = {"to": ["ada@example.com"], "subject": "Hello", "body": "Hi Ada"}
#: another person than the workspace's owner, who asks for the calls here
APPROVER = "00000000-0000-4000-8000-0000000000a1"


async def approve_directly(runtime: Runtime, ws: Workspace, approval_id: str) -> Approval:
    decided: Approval = await runtime.actors.ask(
        DecideApproval(approval_id, True, by=approver(ws.account_id, APPROVER))
    )
    return decided


async def test_external_tool_waits_for_approval(runtime: Runtime, ws: Workspace) -> None:
    ctx = await context(runtime, ws)
    outcome = await call(ctx, "email.send", **MAIL)
    assert outcome.status == "pending_approval"
    assert outcome.approval_id is not None
    assert "awaits approval" in outcome.summary and outcome.approval_id in outcome.summary
    assert "ada@example.com" in outcome.summary
    assert await objects(runtime, ws, "email") == []
    (approval,) = await objects(runtime, ws, "approval")
    assert approval.status == "pending"
    assert approval.data["tool"] == "email.send"
    assert approval.data["requestedBy"] == ws.owner_id
    assert approval.data["runId"] == "run-1"
    assert approval.data["argsHash"] == args_hash(approval.data["arguments"])
    # asking again for the same call reuses the pending request
    again = await call(ctx, "email.send", **MAIL)
    assert again.approval_id == outcome.approval_id
    assert "approval_requested" in await activity_types(runtime, ws)


async def test_one_approval_runs_one_call(runtime: Runtime, ws: Workspace) -> None:
    ctx = await context(runtime, ws)
    pending = await call(ctx, "email.send", **MAIL)
    assert pending.approval_id is not None
    approved = await approve_directly(runtime, ws, pending.approval_id)
    # an identical call (here: the same key, another run) does not use the approval up
    other_run = await call(await context(runtime, ws, "run-2"), "email.send", **MAIL)
    assert other_run.status == "pending_approval"
    assert other_run.approval_id != pending.approval_id
    assert await objects(runtime, ws, "email") == []
    first = await executor(runtime).execute_approved(approved, ctx)
    assert first.status == "ok", first.summary
    (email,) = await objects(runtime, ws, "email")
    assert email.status == "queued" and email.data["subject"] == "Hello"
    used = await runtime.store.get_object(ws.account_id, "approval", pending.approval_id)
    assert used is not None and used.status == "executed"
    again = await executor(runtime).execute_approved(approved, ctx)
    assert again.status == "error" and "not approved" in again.summary
    assert len(await objects(runtime, ws, "email")) == 1


async def test_a_failed_call_leaves_its_approval_failed(runtime: Runtime, ws: Workspace) -> None:
    """Publishing a page that does not exist fails: the approval is failed, not reusable, and
    cannot be decided again."""
    ctx = await context(runtime, ws)
    pending = await call(ctx, "pages.publish", slug="nowhere")
    assert pending.approval_id is not None
    approved = await approve_directly(runtime, ws, pending.approval_id)
    failed = await executor(runtime).execute_approved(approved, ctx)
    assert failed.status == "error"
    row = await runtime.store.get_object(ws.account_id, "approval", pending.approval_id)
    assert row is not None and row.status == "failed" and row.data["error"]
    # the page now exists, the same call is made again: a new approval is needed
    assert (await call(ctx, "pages.create", slug="nowhere", title="N", html="<p>n</p>")).status == (
        "ok"
    )
    again = await call(ctx, "pages.publish", slug="nowhere")
    assert again.status == "pending_approval" and again.approval_id != pending.approval_id
    assert (await executor(runtime).execute_approved(approved, ctx)).status == "error"
    for approve in (True, False):
        try:
            await runtime.actors.ask(
                DecideApproval(pending.approval_id, approve, by=approver(ws.account_id, APPROVER)),
            )
        except Conflict as exc:
            assert "already decided (failed)" in exc.message
        else:
            raise AssertionError("a failed approval was decided again")


async def test_an_expired_approval_cannot_be_approved(runtime: Runtime, ws: Workspace) -> None:
    ctx = await context(runtime, ws)
    pending = await call(ctx, "email.send", **MAIL)
    assert pending.approval_id is not None
    await expire(runtime, ws, pending.approval_id)
    try:
        await approve_directly(runtime, ws, pending.approval_id)
    except Conflict as exc:
        assert "already decided (expired)" in exc.message
    else:
        raise AssertionError("an expired approval was approved")
    assert await objects(runtime, ws, "email") == []


async def test_approval_does_not_cover_changed_arguments(runtime: Runtime, ws: Workspace) -> None:
    ctx = await context(runtime, ws)
    pending = await call(ctx, "email.send", **MAIL)
    assert pending.approval_id is not None
    await approve_directly(runtime, ws, pending.approval_id)
    changed = await call(ctx, "email.send", **{**MAIL, "to": ["eve@example.com"]})
    assert changed.status == "pending_approval"
    other_tool = await call(ctx, "pages.publish", slug="hello")
    assert other_tool.status == "pending_approval"
    assert await objects(runtime, ws, "email") == []
    # the approval is still there for the call it was granted for
    kept = await runtime.store.get_object(ws.account_id, "approval", pending.approval_id)
    assert kept is not None and kept.status == "approved"


async def test_forged_arguments_are_refused(runtime: Runtime, ws: Workspace) -> None:
    ctx = await context(runtime, ws)
    for forged in ({"approved": True}, {"approvalId": "x"}, {"approval_id": "x"}):
        outcome = await call(ctx, "email.send", **MAIL, **forged)
        assert outcome.status == "error"
        assert "Invalid arguments" in outcome.summary
    assert await objects(runtime, ws, "email") == []
    assert await objects(runtime, ws, "approval") == []


async def test_made_up_or_forged_approvals_do_not_run(runtime: Runtime, ws: Workspace) -> None:
    ctx = await context(runtime, ws)
    run = executor(runtime)
    pending = await call(ctx, "email.send", **MAIL)
    assert pending.approval_id is not None
    fake = await runtime.store.get_object(ws.account_id, "approval", pending.approval_id)
    assert fake is not None
    # the approve path with an approval that was never decided: refused, still pending
    outcome = await run.execute_approved(Approval.from_row(fake), ctx)
    assert outcome.status == "error"
    still = await runtime.store.get_object(ws.account_id, "approval", pending.approval_id)
    assert still is not None and still.status == "pending"
    # an "approved" approval written for other arguments, replayed with these arguments
    forged = ObjectWrite(
        "approval",
        "forged",
        {"tool": "email.send", "arguments": MAIL, "argsHash": "0" * 64},
        "approved",
    )
    await runtime.actors.ask(ApplyObjects((forged,), by=ws.system))
    row = await runtime.store.get_object(ws.account_id, "approval", "forged")
    assert row is not None
    assert (await run.execute_approved(Approval.from_row(row), ctx)).status == "error"
    assert await objects(runtime, ws, "email") == []


async def test_rejected_approval_never_runs(runtime: Runtime, ws: Workspace) -> None:
    ctx = await context(runtime, ws)
    pending = await call(ctx, "email.send", **MAIL)
    assert pending.approval_id is not None
    await runtime.actors.ask(
        DecideApproval(pending.approval_id, False, by=approver(ws.account_id, APPROVER))
    )
    again = await call(ctx, "email.send", **MAIL)
    assert again.status == "pending_approval" and again.approval_id != pending.approval_id
    assert await objects(runtime, ws, "email") == []


async def test_approvals_are_per_workspace(
    runtime: Runtime, ws: Workspace, other_ws: Workspace
) -> None:
    ctx = await context(runtime, ws)
    pending = await call(ctx, "email.send", **MAIL)
    assert pending.approval_id is not None
    await approve_directly(runtime, ws, pending.approval_id)
    other = await call(await context(runtime, other_ws), "email.send", **MAIL)
    assert other.status == "pending_approval"
    assert await objects(runtime, other_ws, "email") == []


async def test_auto_approve_policy(runtime: Runtime, ws: Workspace) -> None:
    """The policy auto-approves for everyone but the person who set it; one stored without
    its setter auto-approves nothing."""
    ctx = await context(runtime, ws)

    async def policy(data: dict[str, object]) -> None:
        write = ObjectWrite("policy", "agents", data, "active", mode="upsert")
        await runtime.actors.ask(ApplyObjects((write,), by=ws.system))

    for setter in ({}, {"setBy": ws.owner_id}):
        await policy({"autoApprove": ["email.send"], **setter})
        assert (await call(ctx, "email.send", **MAIL)).status == "pending_approval"
    await policy({"autoApprove": ["email.send"], "setBy": APPROVER})
    sent = await call(ctx, "email.send", **MAIL)
    assert sent.status == "ok" and sent.auto_approved_by == APPROVER
    assert (await call(ctx, "pages.publish", slug="x")).status == "pending_approval"
    assert [e.status for e in await objects(runtime, ws, "email")] == ["queued"]


async def test_unknown_tool_and_labels(runtime: Runtime, ws: Workspace) -> None:
    ctx = await context(runtime, ws)
    run = executor(runtime)
    outcome = await run.execute(ToolCall("c", "shell.exec", {"cmd": "rm"}), ctx)
    assert outcome.status == "error" and "Unknown tool" in outcome.summary
    assert run.label(ToolCall("c", "email.send", MAIL)).startswith("Sending the e-mail")
    assert run.label(ToolCall("c", "email.send", {"bogus": 1})) == "Using email.send"
    names = {s.name for s in run.specs()}
    assert {"records.search", "email.send", "pages.publish", "outreach.schedule"} <= names
    external = {s.name for s in run.specs() if s.external}
    assert external == {
        "email.send",
        "outreach.schedule",
        "social.schedule",
        "social.post",
        "pages.publish",
    }
    for spec in run.specs():
        assert spec.parameters["type"] == "object"
        assert spec.parameters["additionalProperties"] is False
        assert "$defs" not in str(spec.parameters)


async def test_an_approved_call_writes_only_while_its_requester_still_may(
    runtime: Runtime, ws: Workspace
) -> None:
    """An approved call runs as its requester, with their rights read before it runs and
    checked again by the actor as it writes: a key revoked in between writes nothing, and
    the approval ends failed."""
    policy = ObjectWrite(
        "policy", "agents", {"requireApproval": ["records.create"]}, "active", mode="upsert"
    )
    await runtime.actors.ask(ApplyObjects((policy,), by=ws.system))
    member = await add_user(runtime, ws, "member")
    asking = await context(runtime, member)  # the requester's rights, read now
    deal = {"name": "Sneaky", "stage": "lead"}
    pending = await call(
        asking, "records.create", module="deals", displayName="Sneaky", fields=deal
    )
    assert pending.approval_id is not None
    approved = await approve_directly(runtime, ws, pending.approval_id)
    await runtime.actors.ask(ops.RevokeApiKey(member.key_id, by=ws.system))
    outcome = await executor(runtime).execute_approved(approved, asking)
    assert outcome.status == "error" and outcome.result["code"] == "forbidden"
    assert "revoked" in outcome.summary
    (approval,) = await objects(runtime, ws, "approval")
    assert approval.status == "failed"
    assert "record_created" not in await activity_types(runtime, ws)
