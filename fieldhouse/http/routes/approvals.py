"""Approvals of agent tool calls, and the workspace's agent policy.

Only an approver decides: an owner or admin whose credential is not limited to some scopes,
and never the API key that asked for the call. Approving (optionally with edited arguments)
runs that one call at once, through the same gate as every agent tool call, and uses the
approval up; a call that fails leaves it ``failed``. Rejecting stores a reason the model reads
when the run resumes. A decided approval cannot be decided again (409).
"""

from __future__ import annotations

from typing import Any

import trio
from pydantic import Field, ValidationError

from fieldhouse.actors.agent_ops import APPROVAL, ApplyObjects, DecideApproval, ObjectWrite
from fieldhouse.agents.contract import ToolContext
from fieldhouse.agents.gate import POLICY, args_hash, canonical, parse
from fieldhouse.http.endpoint import Routes
from fieldhouse.http.models import Open, Strict, Timestamp, Uuid
from fieldhouse.model.activity import ActivityKind
from fieldhouse.model.agents import POLICY_ID, ApprovalStatus
from fieldhouse.model.agents import Approval as AgentApproval
from fieldhouse.model.agents import Policy as AgentPolicy
from fieldhouse.model.clock import now_iso
from fieldhouse.model.errors import Conflict, Issue, NotFound, ValidationFailed
from fieldhouse.model.principal import Principal
from fieldhouse.services import Services

routes = Routes()


class ApprovalQuery(Open):
    status: ApprovalStatus | None = None
    runId: str | None = Field(default=None, max_length=64)
    limit: int = Field(default=50, ge=1, le=100)


class Approval(Open):
    id: Uuid
    status: ApprovalStatus
    tool: str
    arguments: dict[str, Any] = Field(description="exactly what runs when approved")
    description: str
    preview: dict[str, Any] = Field(
        description="what the call would send or publish: text, HTML, recipients"
    )
    runId: Uuid | None = None
    callId: str | None = None
    agentId: Uuid | None = None
    requestedBy: str | None = None
    requestedAt: Timestamp
    expiresAt: Timestamp
    decidedBy: str | None = None
    decidedAt: Timestamp | None = None
    reason: str | None = None
    originalArguments: dict[str, Any] | None = Field(
        default=None, description="the model's arguments, when the approver edited them"
    )
    executedAt: Timestamp | None = None
    error: str | None = None


class ApprovalList(Open):
    approvals: list[Approval]


class Outcome(Open):
    status: str
    summary: str
    result: dict[str, Any]


class Decision(Open):
    approval: Approval
    outcome: Outcome | None


class ApproveBody(Strict):
    arguments: dict[str, Any] | None = Field(
        default=None, description="edited arguments to run instead of the requested ones"
    )


class RejectBody(Strict):
    reason: str | None = Field(
        default=None, max_length=1000, description="told to the model when the run resumes"
    )


class PolicyBody(Strict):
    autoApprove: list[str] = Field(max_length=50)
    requireApproval: list[str] = Field(
        default_factory=list,
        max_length=100,
        description='tools (or "tool:moduleSlug") that need an approval although they have '
        "no external effect, e.g. records.update:deals",
    )


class Policy(Open):
    autoApprove: list[str]
    requireApproval: list[str]


@routes.endpoint(
    "GET",
    "/api/approvals",
    summary="Approval requests of agent tool calls, newest first",
    scope="workspace:read",
    tag="agents",
    admin_only=True,
    query=ApprovalQuery,
    responses={200: ApprovalList},
)
async def list_approvals(svc: Services, principal: Principal, query: ApprovalQuery) -> Any:
    limit = 500 if query.runId else query.limit
    # a pending approval past its expiry reads as expired: it is listed under that status
    stored = [query.status]
    if query.status == ApprovalStatus.EXPIRED:
        stored.append(ApprovalStatus.PENDING)
    rows = [
        row
        for status in stored
        for row in await svc.store.list_objects(
            principal.account_id, APPROVAL, status=status, limit=limit
        )
    ]
    now = now_iso()
    found = [AgentApproval.from_row(r).as_of(now) for r in rows]
    if query.status is not None:
        found = [a for a in found if a.status == query.status]
    if query.runId:
        found = [a for a in found if a.run_id == query.runId]
    found.sort(key=lambda a: (a.requested_at, a.approval_id), reverse=True)
    return {"approvals": [a.to_json() for a in found[: query.limit]]}


@routes.endpoint(
    "GET",
    "/api/approvals/{approvalId}",
    summary="One approval request, with its exact arguments and preview",
    scope="workspace:read",
    tag="agents",
    admin_only=True,
    responses={200: Approval, 404: None},
)
async def get_approval(svc: Services, principal: Principal, approvalId: str) -> Any:
    row = await svc.store.get_object(principal.account_id, APPROVAL, approvalId[:64])
    if row is None:
        raise NotFound(f"Approval {approvalId} not found")
    return AgentApproval.from_row(row).as_of(now_iso()).to_json()


@routes.endpoint(
    "POST",
    "/api/approvals/{approvalId}/approve",
    summary="Approve a tool call (optionally with edited arguments) and run it once",
    scope="agents:write",
    tag="agents",
    admin_only=True,
    every_scope=True,
    body=ApproveBody,
    body_optional=True,
    responses={200: Decision, 403: None, 404: None, 409: None},
)
async def approve(svc: Services, principal: Principal, approvalId: str, body: ApproveBody) -> Any:
    asked = await _load(svc, principal, approvalId)
    runner = await _requester(svc, principal, asked)
    edited = await _edited(svc, principal, asked, body.arguments)
    approval = await _decide(svc, principal, approvalId, True, None, edited)
    ctx = ToolContext(
        principal=runner,
        actors=svc.actors,
        store=svc.store,
        settings=svc.settings,
        run_id=approval.run_id or f"approval-{approval.approval_id}",
        agent_id=approval.agent_id,
    )
    # once decided, the call runs to its end even if the approver's client goes away: an
    # approval is never left approved but unrun
    with trio.CancelScope(shield=True):
        outcome = await svc.tools.execute_approved(approval, ctx)
    after = await svc.store.get_object(principal.account_id, APPROVAL, approval.approval_id)
    shown = AgentApproval.from_row(after) if after is not None else approval
    return {
        "approval": shown.to_json(),
        "outcome": {
            "status": outcome.status,
            "summary": outcome.summary,
            "result": dict(outcome.result),
        },
    }


@routes.endpoint(
    "POST",
    "/api/approvals/{approvalId}/reject",
    summary="Reject a tool call, with a reason the model reads; it never runs",
    scope="agents:write",
    tag="agents",
    admin_only=True,
    every_scope=True,
    body=RejectBody,
    body_optional=True,
    responses={200: Decision, 403: None, 404: None, 409: None},
)
async def reject(svc: Services, principal: Principal, approvalId: str, body: RejectBody) -> Any:
    approval = await _decide(svc, principal, approvalId, False, body.reason, None)
    return {"approval": approval.to_json(), "outcome": None}


Edit = tuple[dict[str, Any], str, dict[str, Any]]


async def _load(svc: Services, principal: Principal, approval_id: str) -> AgentApproval:
    row = await svc.store.get_object(principal.account_id, APPROVAL, approval_id[:64])
    if row is None:
        raise NotFound(f"Approval {approval_id} not found")
    return AgentApproval.from_row(row)


async def _requester(svc: Services, principal: Principal, approval: AgentApproval) -> Principal:
    """Whose authority the approved call runs with: the API key that asked for it (its scopes
    and its user's role, as they are now), so approving never lends the call the approver's
    wider rights; a call asked for in a session runs as the approver. A key revoked (or whose
    user was deleted) since it asked cannot have its call run: 409, and the approval stays
    pending for a rejection."""
    key_id = approval.requested_key
    if key_id is None:
        return principal
    requester = await svc.auth.principal_of_key(principal.account_id, key_id)
    if requester is None:
        raise Conflict(
            f"Approval {approval.approval_id} was asked for by an API key that has since been "
            "revoked (or whose user was deleted); its call cannot run: reject it instead"
        )
    return requester


async def _edited(
    svc: Services, principal: Principal, approval: AgentApproval, arguments: dict[str, Any] | None
) -> Edit | None:
    """Edited arguments, validated by the tool's model: (canonical, hash, preview)."""
    if arguments is None:
        return None
    tool = svc.tools.tool(approval.tool)
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
    ctx = ToolContext(principal, svc.actors, svc.store, svc.settings, "", approval.agent_id)
    data = canonical(args)
    return data, args_hash(data), await tool.preview(args, ctx)


async def _decide(
    svc: Services,
    principal: Principal,
    approval_id: str,
    approve: bool,
    reason: str | None,
    edited: Edit | None,
) -> AgentApproval:
    if not 1 <= len(approval_id) <= 64:
        raise NotFound(f"Approval {approval_id} not found")
    arguments, digest, preview = edited if edited is not None else (None, None, None)
    decided: AgentApproval = await svc.actors.ask(
        principal.account_id,
        DecideApproval(
            approval_id,
            approve,
            reason,
            arguments,
            digest,
            preview,
            principal.api_key_id,
            actor_user_id=principal.user_id,
        ),
    )
    return decided


@routes.endpoint(
    "GET",
    "/api/agents/policy",
    summary="The workspace's agent policy",
    scope="workspace:read",
    tag="agents",
    admin_only=True,
    responses={200: Policy},
)
async def get_policy(svc: Services, principal: Principal) -> Any:
    row = await svc.store.get_object(principal.account_id, POLICY, POLICY_ID)
    return AgentPolicy.from_row(row).to_json()


@routes.endpoint(
    "PUT",
    "/api/agents/policy",
    summary="Set which tools run without an approval, and which record writes need one",
    scope="agents:write",
    tag="agents",
    admin_only=True,
    every_scope=True,
    body=PolicyBody,
    responses={200: Policy, 403: None},
)
async def put_policy(svc: Services, principal: Principal, body: PolicyBody) -> Any:
    known = svc.tools.names()
    issues = [
        Issue(
            "invalid_enum_value", ("autoApprove", i), f"Unknown tool {name!r}", {"received": name}
        )
        for i, name in enumerate(body.autoApprove)
        if name not in known
    ]
    issues += [
        Issue(
            "invalid_enum_value",
            ("requireApproval", i),
            f"Unknown tool {name.partition(':')[0]!r}",
            {"received": name},
        )
        for i, name in enumerate(body.requireApproval)
        if name.partition(":")[0] not in known
    ]
    if issues:
        raise ValidationFailed(issues)
    policy = AgentPolicy(
        tuple(sorted(set(body.autoApprove))), tuple(sorted(set(body.requireApproval)))
    )
    write = ObjectWrite(
        POLICY,
        POLICY_ID,
        policy.to_json(),
        "active",
        mode="upsert",
        activity=ActivityKind.AGENT_POLICY_CHANGED,
        activity_data=policy.to_json(),
    )
    await svc.actors.ask(
        principal.account_id, ApplyObjects((write,), actor_user_id=principal.user_id)
    )
    return policy.to_json()
