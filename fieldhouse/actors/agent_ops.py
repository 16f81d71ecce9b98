"""Agent writes through the workspace actor: tool objects, approvals and their activity.

Every agent tool that changes the workspace sends one of these messages, so its objects, the
consumption of its approval and its activity entries commit together or not at all.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal

from fieldhouse.actors.context import WriteContext
from fieldhouse.actors.messages import Message, R
from fieldhouse.model.activity import ActivityKind
from fieldhouse.model.agents import NOT_YOURS, Approval, ApprovalStatus, Kind, StoredObject
from fieldhouse.model.errors import Conflict, Forbidden, InternalError, NotFound
from fieldhouse.model.principal import Principal
from fieldhouse.storage.objects import ObjectRow

APPROVAL = Kind.APPROVAL


@dataclass(frozen=True)
class ObjectWrite:
    """One workspace object to write.

    ``create`` inserts a new object (409 if the id is taken); ``update`` merges ``data`` into an
    existing object whose status is one of ``expect`` (409 otherwise: someone got there first);
    ``upsert`` replaces or inserts.
    """

    kind: str
    object_id: str
    data: Mapping[str, Any]
    status: str
    mode: Literal["create", "update", "upsert"] = "create"
    expect: tuple[str, ...] = ()
    due_at: str | None = None
    #: the activity entry written with it (None: none)
    activity: ActivityKind | None = None
    activity_data: Mapping[str, Any] | None = None
    module_id: str | None = None
    record_id: str | None = None

    @classmethod
    def of(
        cls,
        obj: StoredObject,
        mode: Literal["create", "update", "upsert"] = "create",
        expect: tuple[str, ...] = (),
        **options: Any,
    ) -> ObjectWrite:
        """The write of a typed object, whole: its data, status and due time as they are (an
        update clears a due time the object no longer has). The one place a typed object
        becomes a row; ``options`` are the activity and its record."""
        due = obj.due_at if obj.due_at is not None or mode != "update" else ""
        return cls(obj.kind, obj.object_id, obj.data(), obj.status, mode, expect, due, **options)


@dataclass(frozen=True)
class Consume:
    """The approval an external tool call uses up: approved -> executed, exactly once."""

    approval_id: str
    tool: str
    args_hash: str


@dataclass(frozen=True)
class ApplyObjects(Message[list[ObjectRow]]):
    writes: tuple[ObjectWrite, ...]
    consume: Consume | None = None
    #: data of an ``agent_tool_call`` activity entry (None: no entry)
    tool_call: Mapping[str, Any] | None = None

    async def apply(self, ctx: WriteContext) -> list[ObjectRow]:
        return await apply_objects(ctx, self)


@dataclass(frozen=True)
class DecideApproval(Message[Approval]):
    """An approver's decision on a pending approval: approve (with the arguments to run, when
    edited) or reject (with a reason the model reads)."""

    approval_id: str
    approve: bool
    #: who decides (with the credential they use): never the person who asked for the call
    decider: Principal
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
            await _consume(ctx, self.consume, self.by.user_id)
        result = await self.inner.apply(ctx)
        await ctx.activity(
            ActivityKind.AGENT_TOOL_CALL,
            user_id=self.by.user_id,
            module_id=getattr(result, "module_id", None),
            record_id=getattr(result, "record_id", None),
            data=self.tool_call,
        )
        return result


async def apply_objects(ctx: WriteContext, msg: ApplyObjects) -> list[ObjectRow]:
    if msg.consume is not None:
        await _consume(ctx, msg.consume, msg.by.user_id)
    rows = [await _write(ctx, w, msg.by.user_id) for w in msg.writes]
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


async def _consume(ctx: WriteContext, consume: Consume, user_id: str | None) -> None:
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


async def _write(ctx: WriteContext, w: ObjectWrite, user_id: str | None) -> ObjectRow:
    old = await ctx.txn.get_object(w.kind, w.object_id)
    if w.mode == "create" and old is not None:
        raise Conflict(f"A {w.kind.replace('_', ' ')} {w.object_id!r} already exists")
    if w.mode == "update":
        if old is None:
            raise NotFound(f"No {w.kind.replace('_', ' ')} {w.object_id!r}")
        if old.status not in w.expect:
            raise Conflict(
                f"The {w.kind.replace('_', ' ')} {w.object_id!r} is {old.status}, "
                f"not {' or '.join(w.expect)}"
            )
    merged = {**old.data, **w.data} if (old is not None and w.mode == "update") else dict(w.data)
    row = ObjectRow(
        account_id=ctx.account_id,
        kind=w.kind,
        object_id=w.object_id,
        data=merged,
        status=w.status,
        due_at=w.due_at if w.due_at is not None else (old.due_at if old else None),
        created_at=old.created_at if old is not None else ctx.now,
        updated_at=ctx.now,
    )
    await ctx.txn.put_object(row)
    if w.activity is not None:
        await ctx.activity(
            w.activity,
            user_id=user_id,
            module_id=w.module_id,
            record_id=w.record_id,
            data={"kind": w.kind, "objectId": w.object_id, **(w.activity_data or {})},
        )
    return row


async def decide_approval(ctx: WriteContext, msg: DecideApproval) -> Approval:
    approval = await _load(ctx, msg.approval_id)
    if approval.status == ApprovalStatus.PENDING and approval.expired(ctx.now):
        approval = await _store(ctx, approval, approval.but(status=ApprovalStatus.EXPIRED))
    if approval.status != ApprovalStatus.PENDING:
        raise Conflict(
            f"Approval {msg.approval_id} was already decided ({approval.status})",
            data={"status": str(approval.status)},
        )
    if not approval.decidable_by(msg.decider):
        raise Forbidden(NOT_YOURS)
    status = ApprovalStatus.APPROVED if msg.approve else ApprovalStatus.REJECTED
    changes: dict[str, Any] = {
        "status": status,
        "decided_by": msg.decider.user_id,
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
        user_id=msg.decider.user_id,
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
