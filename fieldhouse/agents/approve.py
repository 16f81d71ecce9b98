"""Approvals: the use cases behind ``/api/approvals`` (list, read, approve, reject).

An approver is a person: an owner or admin (the route checks the role and an unrestricted
credential first; the actor checks the role again as it decides) who is not the person who
asked for the call, whichever of their keys or sessions either of them uses. Approving decides
that one call, which then runs at once, once, as its requester, with the requester's rights as
they are now (``requester.py``): approving never lends the call the approver's rights, for
calls asked for with a key or in a session alike. A call whose requester can no longer act (key
revoked, user deleted) is not run: 409, and the approval stays pending to be rejected.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import trio
from pydantic import ValidationError

from fieldhouse.agents.contract import ToolContext, ToolOutcome
from fieldhouse.agents.gate import args_hash, canonical, parse
from fieldhouse.agents.registry import GatedExecutor
from fieldhouse.agents.requester import Requester, rights_or_gone
from fieldhouse.agents.run import AgentRuntime
from fieldhouse.agents.writes import APPROVAL, DecideApproval
from fieldhouse.model.agents import NOT_YOURS, Approval, ApprovalStatus
from fieldhouse.model.clock import now_iso
from fieldhouse.model.errors import Forbidden, Issue, NotFound, ValidationFailed
from fieldhouse.model.principal import Principal


@dataclass(frozen=True)
class Edit:
    """Edited arguments, validated by the tool's model."""

    arguments: dict[str, Any]
    digest: str
    preview: dict[str, Any]
    description: str


@dataclass(frozen=True)
class Decided:
    approval: Approval
    #: what running the approved call gave (None for a rejection)
    outcome: ToolOutcome | None


async def load_approval(runtime: AgentRuntime, principal: Principal, approval_id: str) -> Approval:
    """An approval of the principal's workspace (404 otherwise)."""
    row = None
    if 1 <= len(approval_id) <= 64:
        row = await runtime.store.get_object(principal.account_id, APPROVAL, approval_id)
    if row is None:
        raise NotFound(f"Approval {approval_id} not found")
    return Approval.from_row(row)


async def read_approval(runtime: AgentRuntime, principal: Principal, approval_id: str) -> Approval:
    """An approval of the principal's workspace as a reader sees it now (404 otherwise)."""
    return (await load_approval(runtime, principal, approval_id)).as_of(now_iso())


async def list_approvals(
    runtime: AgentRuntime,
    principal: Principal,
    status: ApprovalStatus | None,
    run_id: str | None,
    limit: int,
) -> list[Approval]:
    """Up to ``limit`` approvals of the principal's workspace, newest first, as a reader sees
    them now: a pending approval past its expiry is listed as ``expired``."""
    read = 500 if run_id else limit
    stored = [status]
    if status == ApprovalStatus.EXPIRED:
        stored.append(ApprovalStatus.PENDING)
    rows = [
        row
        for one in stored
        for row in await runtime.store.list_objects(
            principal.account_id, APPROVAL, status=one, limit=read
        )
    ]
    now = now_iso()
    found = [Approval.from_row(r).as_of(now) for r in rows]
    if status is not None:
        found = [a for a in found if a.status == status]
    if run_id:
        found = [a for a in found if a.run_id == run_id]
    found.sort(key=lambda a: (a.requested_at, a.approval_id), reverse=True)
    return found[:limit]


def requester_of(approval: Approval, account_id: str) -> Requester:
    return Requester.stored(
        account_id, approval.requested_by, approval.requested_key, approval.requested_auth
    )


def _not_theirs(approver: Principal, approval: Approval) -> None:
    """Refused before anything else is looked at (the decision checks it again, in its
    transaction)."""
    if not approval.decidable_by(approver):
        raise Forbidden(NOT_YOURS)


async def approve(
    runtime: AgentRuntime,
    tools: GatedExecutor,
    approver: Principal,
    approval_id: str,
    arguments: dict[str, Any] | None,
) -> Decided:
    """Approve one call (optionally with edited arguments) and run it as its requester."""
    asked = await load_approval(runtime, approver, approval_id)
    _not_theirs(approver, asked)
    requester = requester_of(asked, approver.account_id)
    acting = await rights_or_gone(runtime.store, requester, f"Approval {approval_id}")
    edit = await _edited(runtime, tools, acting, asked, arguments)
    decided: Approval = await runtime.actors.ask(
        DecideApproval(
            asked.approval_id,
            True,
            None,
            edit.arguments if edit else None,
            edit.digest if edit else None,
            edit.preview if edit else None,
            edit.description if edit else None,
            by=approver,
        ),
    )
    ctx = ToolContext(
        principal=acting,
        actors=runtime.actors,
        store=runtime.store,
        settings=runtime.settings,
        run_id=decided.run_id or f"approval-{decided.approval_id}",
        agent_id=decided.agent_id,
    )
    # once decided, the call runs to its end even if the approver's client goes away: an
    # approval is never left approved but unrun
    with trio.CancelScope(shield=True):
        outcome = await tools.execute_approved(decided, ctx)
    after = await runtime.store.get_object(approver.account_id, APPROVAL, decided.approval_id)
    return Decided(Approval.from_row(after) if after is not None else decided, outcome)


async def reject(
    runtime: AgentRuntime, approver: Principal, approval_id: str, reason: str | None
) -> Decided:
    """Reject one call, with a reason the model reads when the run resumes; it never runs."""
    asked = await load_approval(runtime, approver, approval_id)
    _not_theirs(approver, asked)
    decided: Approval = await runtime.actors.ask(
        DecideApproval(asked.approval_id, False, reason, by=approver),
    )
    return Decided(decided, None)


async def _edited(
    runtime: AgentRuntime,
    tools: GatedExecutor,
    acting: Principal,
    approval: Approval,
    arguments: dict[str, Any] | None,
) -> Edit | None:
    """Edited arguments, validated by the tool's model, with the preview and description of
    what they do (as the requester would see it)."""
    if arguments is None:
        return None
    tool = tools.tool(approval.tool)
    if tool is None:
        raise NotFound(f"Unknown tool {approval.tool!r}")
    try:
        args = parse(tool, arguments)
    except ValidationError as exc:
        raise ValidationFailed(
            [
                Issue("invalid_argument", ("arguments", *e["loc"]), e["msg"], {})
                for e in exc.errors()[:10]
            ]
        ) from None
    ctx = ToolContext(
        acting, runtime.actors, runtime.store, runtime.settings, "", approval.agent_id
    )
    data = canonical(args)
    return Edit(data, args_hash(data), await tool.preview(args, ctx), tool.describe(args))
