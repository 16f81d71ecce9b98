"""Agent writes through the workspace actor: tool objects, approvals and their activity.

Every agent tool that changes the workspace sends one of these messages, so its objects, the
consumption of its approval and its activity entries commit together or not at all.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from fieldhouse.actors.context import WriteContext
from fieldhouse.actors.messages import Message, R
from fieldhouse.model.errors import Conflict, InternalError, NotFound
from fieldhouse.storage.objects import ObjectRow

APPROVAL = "approval"


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
    activity: str | None = None
    activity_data: Mapping[str, Any] | None = None
    module_id: str | None = None
    record_id: str | None = None


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
class DecideApproval(Message[ObjectRow]):
    approval_id: str
    approve: bool

    async def apply(self, ctx: WriteContext) -> ObjectRow:
        return await decide_approval(ctx, self)


@dataclass(frozen=True)
class AgentRecordOp(Message[R]):
    """A record message (CreateRecord, UpdateRecord) run for an agent, logged as its tool call."""

    inner: Message[R]
    tool_call: Mapping[str, Any]

    async def apply(self, ctx: WriteContext) -> R:
        if isinstance(self.inner, AgentRecordOp):
            raise InternalError("an agent record operation cannot wrap another one")
        result = await self.inner.apply(ctx)
        await ctx.activity(
            "agent_tool_call",
            user_id=self.actor_user_id,
            module_id=getattr(result, "module_id", None),
            record_id=getattr(result, "record_id", None),
            data=self.tool_call,
        )
        return result


async def apply_objects(ctx: WriteContext, msg: ApplyObjects) -> list[ObjectRow]:
    if msg.consume is not None:
        await _consume(ctx, msg.consume, msg.actor_user_id)
    rows = [await _write(ctx, w, msg.actor_user_id) for w in msg.writes]
    if msg.tool_call is not None:
        await ctx.activity("agent_tool_call", user_id=msg.actor_user_id, data=msg.tool_call)
    return rows


async def _consume(ctx: WriteContext, consume: Consume, user_id: str | None) -> None:
    row = await ctx.txn.get_object(APPROVAL, consume.approval_id)
    usable = (
        row is not None
        and row.status == "approved"
        and row.data.get("tool") == consume.tool
        and row.data.get("argsHash") == consume.args_hash
    )
    if row is None or not usable:
        raise Conflict(f"Approval {consume.approval_id} is not approved for this call")
    if not await ctx.txn.transition_object(
        APPROVAL, row.object_id, "approved", "executed", ctx.now
    ):  # pragma: no cover - the workspace lock makes the check above final
        raise Conflict(f"Approval {consume.approval_id} was already used")
    data = {**row.data, "executedAt": ctx.now, "executedBy": user_id}
    await ctx.txn.put_object(
        ObjectRow(
            ctx.account_id, APPROVAL, row.object_id, data, "executed", None, row.created_at, ctx.now
        )
    )


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


async def decide_approval(ctx: WriteContext, msg: DecideApproval) -> ObjectRow:
    row = await ctx.txn.get_object(APPROVAL, msg.approval_id)
    if row is None:
        raise NotFound(f"Approval {msg.approval_id} not found")
    status = "approved" if msg.approve else "rejected"
    if not await ctx.txn.transition_object(APPROVAL, row.object_id, "pending", status, ctx.now):
        raise Conflict(
            f"Approval {msg.approval_id} was already decided ({row.status})",
            data={"status": row.status},
        )
    data = {**row.data, "decidedBy": msg.actor_user_id, "decidedAt": ctx.now}
    decided = ObjectRow(
        ctx.account_id, APPROVAL, row.object_id, data, status, None, row.created_at, ctx.now
    )
    await ctx.txn.put_object(decided)
    await ctx.activity(
        "approval_decided",
        user_id=msg.actor_user_id,
        data={
            "approvalId": row.object_id,
            "tool": row.data.get("tool"),
            "decision": status,
            "runId": row.data.get("runId"),
        },
    )
    return decided
