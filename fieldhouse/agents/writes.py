"""The agents' writes through the workspace actor: tool objects, approvals and their activity.

Every agent tool that changes the workspace sends one of these messages, so its objects, the
consumption of its approval and its activity entries commit together or not at all. Each
message handles itself (``Message.apply``): the actors know nothing of agents.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from fieldhouse.actors.context import WriteContext
from fieldhouse.actors.messages import Message, R
from fieldhouse.actors.object_ops import ObjectWrite, write_object
from fieldhouse.model.activity import ActivityKind
from fieldhouse.model.agents import NOT_YOURS, Approval, ApprovalStatus, Kind
from fieldhouse.model.errors import Conflict, Forbidden, InternalError, NotFound
from fieldhouse.model.principal import Principal
from fieldhouse.storage.objects import ObjectRow

APPROVAL = Kind.APPROVAL


@dataclass(frozen=True)
class Consume:
    """The approval an external tool call uses up: approved -> executed, exactly once."""

    approval_id: str
    tool: str
    args_hash: str


@dataclass(frozen=True)
class ToolWrites(Message[list[ObjectRow]]):
    """A tool's objects, the approval it uses up and its ``agent_tool_call`` entry, together."""

    writes: tuple[ObjectWrite, ...]
    consume: Consume | None = None
    #: data of an ``agent_tool_call`` activity entry (None: no entry)
    tool_call: Mapping[str, Any] | None = None

    async def apply(self, ctx: WriteContext) -> list[ObjectRow]:
        return await tool_writes(ctx, self)


@dataclass(frozen=True)
class DecideApproval(Message[Approval]):
    """An approver's decision on a pending approval: approve (with the arguments to run, when
    edited) or reject (with a reason the model reads). Who decides is ``by``, with the
    credential they use: a person, never the one who asked for the call."""

    approval_id: str
    approve: bool
    reason: str | None = None
    #: edited arguments (validated and hashed by the caller) and their hash
    arguments: Mapping[str, Any] | None = None
    args_hash: str | None = None
    preview: Mapping[str, Any] | None = None
    #: what the edited call does, in a few words (replaces the model's call's description)
    description: str | None = None

    async def apply(self, ctx: WriteContext) -> Approval:
        return await decide_approval(ctx, self)


@dataclass(frozen=True)
class NoteOutcome(Message[None]):
    """What running an approved call gave, kept on its executed approval so the model reads
    it when the run resumes."""

    approval_id: str
    outcome: Mapping[str, Any]

    async def apply(self, ctx: WriteContext) -> None:
        approval = await _load(ctx, self.approval_id)
        if approval.status == ApprovalStatus.EXECUTED:
            await _store(ctx, approval, approval.but(outcome=dict(self.outcome)))


@dataclass(frozen=True)
class ExpireApproval(Message[bool]):
    """A pending approval whose expiry is at or before ``now`` is stored ``expired`` (the
    scheduler's sweep); False when it was decided or is not due."""

    approval_id: str
    now: str

    async def apply(self, ctx: WriteContext) -> bool:
        approval = await _load(ctx, self.approval_id)
        if approval.status != ApprovalStatus.PENDING or not approval.expired(self.now):
            return False
        await _store(ctx, approval, approval.but(status=ApprovalStatus.EXPIRED))
        return True


@dataclass(frozen=True)
class FailApproval(Message[Approval | None]):
    """An approved call failed when it ran: approved -> failed, never usable again."""

    approval_id: str
    error: str

    async def apply(self, ctx: WriteContext) -> Approval | None:
        return await fail_approval(ctx, self)


@dataclass(frozen=True)
class AgentRecordOp(Message[R]):
    """A record message (CreateRecord, UpdateRecord) run for an agent, logged as its tool call."""

    inner: Message[R]
    tool_call: Mapping[str, Any]
    consume: Consume | None = None

    async def apply(self, ctx: WriteContext) -> R:
        if isinstance(self.inner, AgentRecordOp):
            raise InternalError("an agent record operation cannot wrap another one")
        if self.consume is not None:
            await _consume(ctx, self.consume)
        result = await self.inner.apply(ctx)
        await ctx.activity(
            ActivityKind.AGENT_TOOL_CALL,
            user_id=self.by.user_id,
            module_id=getattr(result, "module_id", None),
            record_id=getattr(result, "record_id", None),
            data=self.tool_call,
        )
        return result


async def tool_writes(ctx: WriteContext, msg: ToolWrites) -> list[ObjectRow]:
    if msg.consume is not None:
        await _consume(ctx, msg.consume)
    rows = [await write_object(ctx, w, msg.by.user_id) for w in msg.writes]
    if msg.tool_call is not None:
        await ctx.activity(ActivityKind.AGENT_TOOL_CALL, user_id=msg.by.user_id, data=msg.tool_call)
    return rows


async def _load(ctx: WriteContext, approval_id: str) -> Approval:
    row = await ctx.txn.get_object(APPROVAL, approval_id)
    if row is None:
        raise NotFound(f"Approval {approval_id} not found")
    return Approval.from_row(row)


async def _store(ctx: WriteContext, old: Approval, new: Approval) -> Approval:
    """Move an approval to its new state; 409 if someone moved it first."""
    if not await ctx.txn.transition_object(
        APPROVAL, old.approval_id, old.status, new.status, ctx.now
    ):  # pragma: no cover - the workspace actor orders every write of a workspace
        raise Conflict(f"Approval {old.approval_id} changed meanwhile")
    row = await ctx.txn.get_object(APPROVAL, old.approval_id)
    assert row is not None
    await ctx.txn.put_object(
        ObjectRow(
            ctx.account_id,
            APPROVAL,
            new.approval_id,
            new.data(),
            new.status,
            None,
            row.created_at,
            ctx.now,
        )
    )
    return replace(new, updated_at=ctx.now)


async def _consume(ctx: WriteContext, consume: Consume) -> None:
    approval = await _load(ctx, consume.approval_id)
    usable = (
        approval.status == ApprovalStatus.APPROVED
        and approval.tool == consume.tool
        and approval.args_hash == consume.args_hash
        and not approval.expired(ctx.now)
    )
    if not usable:
        raise Conflict(f"Approval {consume.approval_id} is not approved for this call")
    await _store(ctx, approval, approval.but(status=ApprovalStatus.EXECUTED, executed_at=ctx.now))


async def decide_approval(ctx: WriteContext, msg: DecideApproval) -> Approval:
    approval = await _load(ctx, msg.approval_id)
    if approval.status == ApprovalStatus.PENDING and approval.expired(ctx.now):
        approval = await _store(ctx, approval, approval.but(status=ApprovalStatus.EXPIRED))
    if approval.status != ApprovalStatus.PENDING:
        raise Conflict(
            f"Approval {msg.approval_id} was already decided ({approval.status})",
            data={"status": str(approval.status)},
        )
    decider = msg.by
    if not isinstance(decider, Principal) or not approval.decidable_by(decider):
        raise Forbidden(NOT_YOURS)
    decider.check_admin()  # an approver is an owner or admin, whoever sends the decision
    status = ApprovalStatus.APPROVED if msg.approve else ApprovalStatus.REJECTED
    changes: dict[str, Any] = {
        "status": status,
        "decided_by": decider.user_id,
        "decided_at": ctx.now,
        "reason": msg.reason,
    }
    if msg.approve and msg.arguments is not None and msg.args_hash != approval.args_hash:
        changes |= {
            "arguments": dict(msg.arguments),
            "args_hash": msg.args_hash,
            "original_arguments": dict(approval.arguments),
            "preview": dict(msg.preview or {}),
        }
        if msg.description is not None:
            changes["description"] = msg.description
    decided = await _store(ctx, approval, approval.but(**changes))
    await ctx.activity(
        ActivityKind.APPROVAL_DECIDED,
        user_id=decider.user_id,
        data={
            "approvalId": approval.approval_id,
            "tool": approval.tool,
            "decision": str(status),
            "runId": approval.run_id,
            "edited": decided.original_arguments is not None,
            "reason": msg.reason,
        },
    )
    return decided


async def fail_approval(ctx: WriteContext, msg: FailApproval) -> Approval | None:
    approval = await _load(ctx, msg.approval_id)
    if approval.status != ApprovalStatus.APPROVED:
        return None  # it ran (executed) or was never approved: nothing to fail
    return await _store(
        ctx, approval, approval.but(status=ApprovalStatus.FAILED, error=msg.error[:500])
    )
