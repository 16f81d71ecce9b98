"""The approval gate: the one path by which any tool runs.

Rules, for every call:

1. An unknown tool, or arguments that fail the tool's model (unknown properties included, so
   ``approved: true`` is refused), is an error; nothing runs.
2. A tool without external effects runs at once, with the caller's permissions.
3. An external tool runs only if the workspace policy auto-approves it, or an approval object
   for this workspace, this tool and the sha256 of exactly these (validated, canonical)
   arguments is ``approved``. Running uses it up (approved -> executed) in the same transaction
   as the tool's writes, so one approval runs one call, once.
4. Otherwise a pending approval is stored (or the pending one for the same call is reused) and
   the outcome is ``pending_approval``: the run says what awaits approval.

Approvals are decided only by owners and admins over ``/api/approvals/{id}/approve|reject``;
approving runs the call through this same function.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from fieldhouse.actors.agent_ops import APPROVAL, ApplyObjects, Consume, ObjectWrite
from fieldhouse.agents.contract import ToolCall, ToolContext, ToolOutcome
from fieldhouse.agents.tools.base import Args, Tool
from fieldhouse.model.clock import new_id, now_iso
from fieldhouse.model.errors import ApiError
from fieldhouse.storage.objects import ObjectRow

POLICY = "policy"
POLICY_ID = "agents"


def args_hash(arguments: Mapping[str, Any]) -> str:
    """sha256 of the canonical JSON of the arguments (sorted keys, no spaces, UTF-8)."""
    text = json.dumps(arguments, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def parse(tool: Tool, arguments: Mapping[str, Any]) -> Args:
    return tool.args.model_validate(dict(arguments))


def canonical(args: Args) -> dict[str, Any]:
    """The arguments as stored in an approval and hashed: validated, defaults filled in."""
    return args.model_dump(mode="json")


async def auto_approved(ctx: ToolContext) -> frozenset[str]:
    row = await ctx.store.get_object(ctx.principal.account_id, POLICY, POLICY_ID)
    names = row.data.get("autoApprove", []) if row is not None else []
    return frozenset(str(n) for n in names)


async def run_call(
    tool: Tool | None, call: ToolCall, ctx: ToolContext, *, approval_id: str | None = None
) -> ToolOutcome:
    """Pass one call through the gate (rules in the module docstring). Never raises for a bad
    call; ``approval_id`` names the approval to use first (the approve endpoint's)."""
    if tool is None:
        return ToolOutcome("error", summary=f"Unknown tool {call.name!r}")
    try:
        args = parse(tool, call.arguments)
    except ValidationError as exc:
        return ToolOutcome("error", summary=_invalid(call.name, exc))
    try:
        if not tool.spec.external:
            return await tool.run(args, ctx, None)
        if tool.spec.name in await auto_approved(ctx):
            return await tool.run(args, ctx, None)
        arguments = canonical(args)
        digest = args_hash(arguments)
        approved = await _find(ctx, tool.spec.name, digest, "approved", prefer=approval_id)
        if approved is not None:
            return await tool.run(args, ctx, Consume(approved.object_id, tool.spec.name, digest))
        return await _request(tool, args, arguments, digest, ctx)
    except ApiError as exc:
        result: dict[str, Any] = {"code": exc.code}
        if exc.issues:
            result["issues"] = [i.to_json() for i in exc.issues]
        return ToolOutcome("error", result, exc.message)


async def _find(
    ctx: ToolContext, tool: str, digest: str, status: str, *, prefer: str | None = None
) -> ObjectRow | None:
    account = ctx.principal.account_id

    def matches(row: ObjectRow | None) -> bool:
        return (
            row is not None
            and row.status == status
            and row.data.get("tool") == tool
            and row.data.get("argsHash") == digest
        )

    if prefer is not None:
        row = await ctx.store.get_object(account, APPROVAL, prefer)
        if row is not None and matches(row):
            return row
    rows = await ctx.store.list_objects(account, APPROVAL, status=status, limit=500)
    found = [r for r in rows if matches(r)]
    return found[-1] if found else None  # the oldest


async def _request(
    tool: Tool, args: Args, arguments: dict[str, Any], digest: str, ctx: ToolContext
) -> ToolOutcome:
    what = tool.describe(args)
    pending = await _find(ctx, tool.spec.name, digest, "pending")
    if pending is None:
        approval_id = new_id()
        data = {
            "tool": tool.spec.name,
            "arguments": arguments,
            "argsHash": digest,
            "description": what,
            "requestedBy": ctx.principal.user_id,
            "runId": ctx.run_id,
            "agentId": ctx.agent_id,
            "requestedAt": now_iso(),
        }
        write = ObjectWrite(
            APPROVAL,
            approval_id,
            data,
            "pending",
            activity="approval_requested",
            activity_data={
                "approvalId": approval_id,
                "tool": tool.spec.name,
                "description": what,
                "runId": ctx.run_id,
                "agentId": ctx.agent_id,
            },
        )
        await ctx.actors.ask(
            ctx.principal.account_id, ApplyObjects((write,), actor_user_id=ctx.principal.user_id)
        )
    else:
        approval_id = pending.object_id
    return ToolOutcome(
        "pending_approval",
        {"approvalId": approval_id, "tool": tool.spec.name, "status": "pending"},
        f"{what} awaits approval (id {approval_id}).",
        approval_id,
    )


def _invalid(name: str, exc: ValidationError) -> str:
    problems = []
    for error in exc.errors()[:5]:
        where = ".".join(str(p) for p in error["loc"]) or "arguments"
        problems.append(f"{where}: {error['msg']}")
    return f"Invalid arguments for {name}: " + "; ".join(problems)
