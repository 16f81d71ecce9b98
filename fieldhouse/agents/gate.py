"""The approval gate: the one path by which any tool runs.

Rules, for every call:

1. An unknown tool, or arguments that fail the tool's model (unknown properties included, so
   ``approved: true`` is refused), is an error; nothing runs.
2. The caller's credential needs the scope the REST endpoint of the same action needs
   (records.search needs records:read, records.create records:write); record tools also obey
   the role's module permissions. Otherwise the call is an error; nothing runs.
3. A tool without external effects runs at once, unless the workspace policy requires an
   approval for it (``requireApproval``: "records.update" or "records.update:deals"), or it
   writes records and the run has already made the policy's ``recordWritesWithoutApproval``
   record writes without one.
4. An external tool runs at once only if the policy auto-approves it, and the policy was set
   by someone other than the requester (nobody approves their own calls); the run shows who
   (``autoApprovedBy``).
5. Otherwise a pending approval for exactly this call of this run is stored (a repeat of the
   same call in the same run reuses it) and the outcome is ``pending_approval``. An approval is
   never found by its arguments: it runs only when an approver approves that one approval,
   and then once (approved -> executed in the same transaction as the tool's writes); a run
   that fails leaves it ``failed``; an undecided one expires.

The context's principal is always the run's requester, with their rights as they are now
(``agents/requester.py``). Approvals are decided by owners and admins over
``/api/approvals/{id}/approve|reject``, never by the person who asked for the call (whatever
key or session they use); approving runs the call, as its requester, through
:func:`run_approved`.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import trio
from pydantic import ValidationError

from fieldhouse.actors.object_ops import ObjectWrite
from fieldhouse.agents.contract import ToolCall, ToolContext, ToolOutcome
from fieldhouse.agents.tools.base import Args, Tool
from fieldhouse.agents.writes import APPROVAL, Consume, FailApproval, NoteOutcome, ToolWrites
from fieldhouse.model.activity import ActivityKind
from fieldhouse.model.agent_policy import RECORD_WRITES
from fieldhouse.model.agents import (
    POLICY_ID,
    Approval,
    ApprovalStatus,
    Kind,
    Policy,
)
from fieldhouse.model.clock import new_id, to_iso
from fieldhouse.model.errors import ApiError
from fieldhouse.storage.store import Store

POLICY = Kind.POLICY
#: how long an approval may wait for its decision and its run
APPROVAL_TTL = timedelta(days=7)


def args_hash(arguments: Mapping[str, Any]) -> str:
    """sha256 of the canonical JSON of the arguments (sorted keys, no spaces, UTF-8)."""
    text = json.dumps(arguments, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def parse(tool: Tool, arguments: Mapping[str, Any]) -> Args:
    return tool.args.model_validate(dict(arguments))


def canonical(args: Args) -> dict[str, Any]:
    """The arguments as stored in an approval and hashed: validated, defaults filled in."""
    return args.model_dump(mode="json")


async def load_policy(store: Store, account_id: str) -> Policy:
    """The workspace's agent policy (the defaults when none was set)."""
    return Policy.from_row(await store.get_object(account_id, POLICY, POLICY_ID))


async def policy(ctx: ToolContext) -> Policy:
    return await load_policy(ctx.store, ctx.principal.account_id)


def _error(exc: ApiError) -> ToolOutcome:
    result: dict[str, Any] = {"code": exc.code}
    if exc.data:
        result |= {k: v for k, v in exc.data.items() if k != "code"}
    if exc.issues:
        result["issues"] = [i.to_json() for i in exc.issues]
    return ToolOutcome("error", result, exc.message)


def _refused(tool: Tool, ctx: ToolContext) -> ToolOutcome | None:
    if ctx.principal.has_scope(tool.scope):
        return None
    message = f"This credential lacks the {tool.scope!r} scope that {tool.spec.name} needs"
    return ToolOutcome("error", {"code": "forbidden", "requiredScope": tool.scope}, message)


async def run_call(tool: Tool | None, call: ToolCall, ctx: ToolContext) -> ToolOutcome:
    """Pass one call of a run through the gate (rules in the module docstring). Never raises
    for a bad call."""
    if tool is None:
        return ToolOutcome("error", summary=f"Unknown tool {call.name!r}")
    try:
        args = parse(tool, call.arguments)
    except ValidationError as exc:
        return ToolOutcome("error", summary=_invalid(call.name, exc))
    refused = _refused(tool, ctx)
    if refused is not None:
        return refused
    try:
        rules = await policy(ctx)
        name = tool.spec.name
        module = getattr(args, "module", None)
        writes = rules.record_writes_without_approval
        past_cap = name in RECORD_WRITES and ctx.record_writes >= writes
        if not tool.spec.external and not rules.requires(name, module) and not past_cap:
            return await tool.run(args, ctx, None)
        if tool.spec.external and rules.auto_approves(name, ctx.principal.user_id):
            return replace(await tool.run(args, ctx, None), auto_approved_by=rules.set_by)
        return await _request(tool, args, call, ctx)
    except ApiError as exc:
        return _error(exc)


async def run_approved(tool: Tool | None, approval: Approval, ctx: ToolContext) -> ToolOutcome:
    """Run the call an approver just approved, using that approval up. A call that fails leaves
    the approval ``failed``: it is never used again."""
    if tool is None:
        outcome = ToolOutcome("error", summary=f"Unknown tool {approval.tool!r}")
    else:
        outcome = await _run_approved(tool, approval, ctx)
    with trio.CancelScope(shield=True):
        if outcome.status == "error":
            await ctx.actors.ask(
                FailApproval(approval.approval_id, outcome.summary, by=ctx.principal)
            )
        else:  # what it gave, for the model to read when its run resumes
            noted = {"status": outcome.status, "summary": outcome.summary, "result": outcome.result}
            await ctx.actors.ask(NoteOutcome(approval.approval_id, noted, by=ctx.principal))
    return outcome


async def _run_approved(tool: Tool, approval: Approval, ctx: ToolContext) -> ToolOutcome:
    try:
        args = parse(tool, approval.arguments)
    except ValidationError as exc:
        return ToolOutcome("error", summary=_invalid(tool.spec.name, exc))
    refused = _refused(tool, ctx)
    if refused is not None:
        return refused
    # the hash of what will run, checked against the stored one when the approval is used up
    consume = Consume(approval.approval_id, tool.spec.name, args_hash(canonical(args)))
    try:
        return await tool.run(args, ctx, consume)
    except ApiError as exc:
        return _error(exc)


async def _pending(ctx: ToolContext, tool: str, digest: str) -> Approval | None:
    """This run's pending approval of the same call (a model repeating itself), if any."""
    rows = await ctx.store.list_objects(
        ctx.principal.account_id, APPROVAL, status=ApprovalStatus.PENDING, limit=500
    )
    for row in rows:
        found = Approval.from_row(row)
        if found.run_id == ctx.run_id and found.tool == tool and found.args_hash == digest:
            return found
    return None


async def _request(tool: Tool, args: Args, call: ToolCall, ctx: ToolContext) -> ToolOutcome:
    await tool.check(args, ctx)  # a call the caller may not make is refused, not queued
    what = tool.describe(args)
    arguments = canonical(args)
    digest = args_hash(arguments)
    pending = await _pending(ctx, tool.spec.name, digest)
    if pending is None:
        now = datetime.now(UTC)
        preview = await tool.preview(args, ctx)
        pending = Approval(
            approval_id=new_id(),
            tool=tool.spec.name,
            arguments=arguments,
            args_hash=digest,
            status=ApprovalStatus.PENDING,
            description=what,
            preview=preview,
            run_id=ctx.run_id,
            call_id=call.call_id,
            agent_id=ctx.agent_id,
            requested_by=ctx.principal.user_id,
            requested_key=ctx.principal.api_key_id,
            requested_at=to_iso(now),
            expires_at=to_iso(now + APPROVAL_TTL),
            requested_auth=ctx.principal.auth_method,
        )
        write = ObjectWrite.of(
            pending,
            activity=ActivityKind.APPROVAL_REQUESTED,
            activity_data={
                "approvalId": pending.approval_id,
                "tool": tool.spec.name,
                "description": what,
                "runId": ctx.run_id,
                "agentId": ctx.agent_id,
            },
        )
        await ctx.actors.ask(ToolWrites((write,), by=ctx.principal))
    return ToolOutcome(
        "pending_approval",
        {
            "approvalId": pending.approval_id,
            "tool": tool.spec.name,
            "status": "pending",
            "preview": dict(pending.preview),
        },
        f"{what} awaits approval (id {pending.approval_id}).",
        pending.approval_id,
    )


def _invalid(name: str, exc: ValidationError) -> str:
    problems = []
    for error in exc.errors()[:5]:
        where = ".".join(str(p) for p in error["loc"]) or "arguments"
        problems.append(f"{where}: {error['msg']}")
    return f"Invalid arguments for {name}: " + "; ".join(problems)
