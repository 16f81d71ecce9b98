"""Agent writes through the workspace actor (no HTTP, no tools), on both backends: an approval
decided once and used up once, and a tool's writes, approval and activity entry committing
together or not at all."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from fieldhouse.actors.object_ops import ApplyObjects, ObjectWrite
from fieldhouse.actors.record_ops import CreateRecord
from fieldhouse.agents.writes import (
    APPROVAL,
    AgentRecordOp,
    Consume,
    DecideApproval,
    ExpireApproval,
    FailApproval,
    NoteOutcome,
    ToolWrites,
)
from fieldhouse.model.agents import Approval, ApprovalStatus
from fieldhouse.model.errors import (
    Conflict,
    Forbidden,
    InternalError,
    NotFound,
    ValidationFailed,
)
from fieldhouse.model.principal import Role
from fieldhouse.runtime import Runtime
from tests.agents.toolkit import approval, approver
from tests.conftest import Workspace

FUTURE = "2100-01-01T00:00:00.000000Z"
PAST = "2000-01-01T00:00:00.000000Z"
CONSUME = Consume("ap-1", "email.send", "hash-1")


async def put_approval(runtime: Runtime, ws: Workspace, made: Approval) -> None:
    write = ObjectWrite(APPROVAL, made.approval_id, made.data(), made.status)
    await runtime.actors.ask(ApplyObjects((write,), by=ws.system))


async def stored(runtime: Runtime, ws: Workspace, kind: str = APPROVAL, oid: str = "ap-1") -> Any:
    return await runtime.store.get_object(ws.account_id, kind, oid)


async def activity(runtime: Runtime, ws: Workspace, kind: str) -> list[dict[str, Any]]:
    return await runtime.store.list_activity(
        ws.account_id, module_ids=None, record_id=None, types=(kind,), limit=50
    )


async def test_a_tools_writes_and_its_approval_commit_together_or_not_at_all(
    runtime: Runtime, ws: Workspace
) -> None:
    await put_approval(runtime, ws, approval(ApprovalStatus.APPROVED))
    await runtime.actors.ask(ApplyObjects((ObjectWrite("email", "taken", {}, "x"),), by=ws.system))
    writes = (ObjectWrite("email", "new", {}, "queued"), ObjectWrite("email", "taken", {}, "x"))
    failing = ToolWrites(writes, CONSUME, {"tool": "email.send"}, by=ws.system)
    with pytest.raises(Conflict, match="already exists"):
        await runtime.actors.ask(failing)
    assert await stored(runtime, ws, "email", "new") is None
    assert (await stored(runtime, ws)).status == ApprovalStatus.APPROVED
    assert await activity(runtime, ws, "agent_tool_call") == []
    # the same call without the clash: all of it lands, the approval used up with it
    call = ToolWrites(writes[:1], CONSUME, {"tool": "email.send"}, by=ws.as_owner)
    await runtime.actors.ask(call)
    assert (await stored(runtime, ws, "email", "new")).status == "queued"
    used = Approval.from_row(await stored(runtime, ws))
    assert used.status == ApprovalStatus.EXECUTED and used.executed_at is not None
    (entry,) = await activity(runtime, ws, "agent_tool_call")
    assert entry["data"] == {"tool": "email.send"} and entry["userId"] == ws.owner_id
    with pytest.raises(Conflict, match="Approval ap-1 is not approved for this call"):
        await runtime.actors.ask(ToolWrites((), CONSUME, by=ws.system))


@pytest.mark.parametrize(
    ("consume", "expires_at"),
    [
        (Consume("ap-1", "social.post", "hash-1"), FUTURE),  # another tool
        (Consume("ap-1", "email.send", "hash-2"), FUTURE),  # other arguments
        (CONSUME, PAST),  # too late
    ],
)
async def test_an_approval_covers_only_its_own_call_in_time(
    runtime: Runtime, ws: Workspace, consume: Consume, expires_at: str
) -> None:
    await put_approval(runtime, ws, approval(ApprovalStatus.APPROVED, expires_at=expires_at))
    with pytest.raises(Conflict, match="is not approved for this call"):
        await runtime.actors.ask(ToolWrites((), consume, by=ws.system))
    assert (await stored(runtime, ws)).status == ApprovalStatus.APPROVED
    with pytest.raises(NotFound, match="Approval ap-9 not found"):
        await runtime.actors.ask(ToolWrites((), Consume("ap-9", "t", "h"), by=ws.system))


async def test_an_approval_is_decided_once_with_the_edited_arguments(
    runtime: Runtime, ws: Workspace
) -> None:
    await put_approval(runtime, ws, approval(ApprovalStatus.PENDING))
    edited = {"to": ["bob@example.com"]}
    decide = DecideApproval(
        "ap-1",
        True,
        arguments=edited,
        args_hash="hash-2",
        by=approver(ws.account_id, ws.owner_id),
    )
    decided = await runtime.actors.ask(decide)
    assert decided == Approval.from_row(await stored(runtime, ws))
    assert (decided.status, decided.decided_by) == (ApprovalStatus.APPROVED, ws.owner_id)
    assert (decided.arguments, decided.args_hash) == (edited, "hash-2")
    assert decided.original_arguments == {"to": ["ada@example.com"]}
    (entry,) = await activity(runtime, ws, "approval_decided")
    assert entry["data"]["decision"] == "approved" and entry["data"]["edited"] is True
    with pytest.raises(Conflict) as again:
        await runtime.actors.ask(
            DecideApproval("ap-1", False, reason="no", by=approver(ws.account_id))
        )
    assert again.value.data == {"status": "approved"}
    assert (await stored(runtime, ws)).status == ApprovalStatus.APPROVED


async def test_only_another_person_decides_and_not_after_expiry(
    runtime: Runtime, ws: Workspace
) -> None:
    """The person who asked decides with no credential of theirs: neither the asking key nor
    another key or session of the same user (issue 32 item 3)."""
    await put_approval(runtime, ws, approval(ApprovalStatus.PENDING).but(requested_by="asker"))
    for decide in (
        DecideApproval("ap-1", True, by=approver(ws.account_id, key="key-asking")),
        DecideApproval("ap-1", True, by=approver(ws.account_id, "asker", key="key-other")),
        DecideApproval("ap-1", False, by=approver(ws.account_id, "asker")),
    ):
        with pytest.raises(Forbidden, match="The person who asked for this call may not decide"):
            await runtime.actors.ask(decide)
    reject = DecideApproval(
        "ap-1",
        False,
        reason="Wrong recipient",
        by=approver(ws.account_id, key="key-other"),
    )
    rejected = await runtime.actors.ask(reject)
    assert (rejected.status, rejected.reason) == (ApprovalStatus.REJECTED, "Wrong recipient")
    assert rejected.arguments == {"to": ["ada@example.com"]}  # nothing edited
    await put_approval(
        runtime, ws, approval(ApprovalStatus.PENDING, expires_at=PAST, approval_id="ap-2")
    )
    with pytest.raises(Conflict, match=r"Approval ap-2 was already decided \(expired\)"):
        await runtime.actors.ask(DecideApproval("ap-2", True, by=approver(ws.account_id)))


async def test_a_member_cannot_decide_whatever_route_sends_it(
    runtime: Runtime, ws: Workspace
) -> None:
    """An approver is an owner or admin: the actor says so too, not only the HTTP route."""
    await put_approval(runtime, ws, approval(ApprovalStatus.PENDING))
    member = replace(approver(ws.account_id, "someone"), role=Role("member", None, None))
    with pytest.raises(Forbidden, match="Only workspace owners and admins may do this"):
        await runtime.actors.ask(DecideApproval("ap-1", True, by=member))
    assert (await stored(runtime, ws)).status == ApprovalStatus.PENDING


async def test_only_an_approved_call_can_fail(runtime: Runtime, ws: Workspace) -> None:
    await put_approval(runtime, ws, approval(ApprovalStatus.PENDING))
    assert await runtime.actors.ask(FailApproval("ap-1", "smtp down", by=ws.system)) is None
    assert (await stored(runtime, ws)).status == ApprovalStatus.PENDING
    await runtime.actors.ask(DecideApproval("ap-1", True, by=approver(ws.account_id)))
    failed = await runtime.actors.ask(FailApproval("ap-1", "x" * 600, by=ws.system))
    assert failed is not None and failed.status == ApprovalStatus.FAILED
    assert failed.error == "x" * 500
    with pytest.raises(Conflict, match="not approved for this call"):
        await runtime.actors.ask(ToolWrites((), CONSUME, by=ws.system))


async def test_an_agent_record_write_is_logged_with_its_record(
    runtime: Runtime, ws: Workspace
) -> None:
    schema = (await runtime.actors.schemas.get(ws.account_id)).get("deals")
    assert schema is not None
    module_id = schema.module.module_id
    await put_approval(runtime, ws, approval(ApprovalStatus.APPROVED))
    invalid = CreateRecord(module_id, "Big", {"name": "Big", "stage": "nope"}, by=ws.system)
    with pytest.raises(ValidationFailed):
        await runtime.actors.ask(AgentRecordOp(invalid, {"tool": "x"}, CONSUME, by=ws.system))
    assert (await stored(runtime, ws)).status == ApprovalStatus.APPROVED  # not used up
    create = CreateRecord(module_id, "Big", {"name": "Big", "stage": "lead"}, by=ws.system)
    op = AgentRecordOp(create, {"tool": "records.create"}, CONSUME, by=ws.as_owner)
    row = await runtime.actors.ask(op)
    (entry,) = await activity(runtime, ws, "agent_tool_call")
    assert (entry["recordId"], entry["moduleId"], entry["userId"]) == (
        row.record_id,
        module_id,
        ws.owner_id,
    )
    assert (await stored(runtime, ws)).status == ApprovalStatus.EXECUTED
    with pytest.raises(InternalError):
        await runtime.actors.ask(AgentRecordOp(op, {"tool": "records.create"}, by=ws.system))


async def test_an_outcome_is_kept_on_an_executed_approval_and_an_expiry_written_down(
    runtime: Runtime, ws: Workspace
) -> None:
    await put_approval(runtime, ws, approval(ApprovalStatus.EXECUTED))
    await runtime.actors.ask(NoteOutcome("ap-1", {"status": "ok", "summary": "S"}, by=ws.system))
    assert Approval.from_row(await stored(runtime, ws)).outcome == {"status": "ok", "summary": "S"}
    await put_approval(
        runtime, ws, approval(ApprovalStatus.PENDING, expires_at=PAST, approval_id="ap-2")
    )
    await put_approval(runtime, ws, approval(ApprovalStatus.PENDING).but(approval_id="ap-3"))
    assert await runtime.actors.ask(ExpireApproval("ap-2", FUTURE, by=ws.system)) is True
    assert await runtime.actors.ask(ExpireApproval("ap-3", PAST, by=ws.system)) is False
    assert (await stored(runtime, ws, oid="ap-2")).status == ApprovalStatus.EXPIRED
    assert (await stored(runtime, ws, oid="ap-3")).status == ApprovalStatus.PENDING
