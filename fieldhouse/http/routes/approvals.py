"""Approvals of agent tool calls, and the workspace's agent policy.

Only an approver decides: an owner or admin whose credential is not limited to some scopes,
and never the person who asked for the call (with any of their keys or sessions). Approving
(optionally with edited arguments) runs that one call at once, as its requester, through the
same gate as every agent tool call, and uses the approval up; a call that fails leaves it
``failed``. Rejecting stores a reason the model reads when the run resumes. A decided approval
cannot be decided again (409). The use cases live in ``agents/approve.py`` and
``agents/policy.py``; this module parses, checks scopes and shapes the answers.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from fieldhouse.http.endpoint import Routes
from fieldhouse.http.models import QUERY_INT, JsonInt, Open, Strict, Timestamp, Uuid
from fieldhouse.model import agent_policy as caps
from fieldhouse.model.agents import ApprovalStatus
from fieldhouse.model.agents import Policy as AgentPolicy
from fieldhouse.model.principal import Principal
from fieldhouse.services import Services

routes = Routes()


class ApprovalQuery(Open):
    status: ApprovalStatus | None = None
    runId: str | None = Field(default=None, max_length=64)
    limit: Annotated[int, Field(ge=1, le=100), QUERY_INT] = 50


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
    requestedAuth: str | None = Field(
        default=None, description="how the requester authenticated: api_key or jwt"
    )
    outcome: dict[str, Any] | None = Field(
        default=None,
        description="what running the approved call gave (status, summary, result); the "
        "model reads it when its run resumes",
    )


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


def _cap(name: str, default: int, description: str) -> Any:
    low, high = caps.BOUNDS[name]
    return Field(default=default, ge=low, le=high, description=f"{description} (default {default})")


class PolicyBody(Strict):
    autoApprove: list[str] = Field(
        max_length=50,
        description="external tools that run without an approval, for every requester but the "
        "owner or admin who sets this policy (nobody approves their own calls)",
    )
    requireApproval: list[str] = Field(
        default_factory=list,
        max_length=100,
        description='tools (or "tool:moduleSlug") that need an approval although they have '
        "no external effect, e.g. records.update:deals",
    )
    maxToolCallsPerStep: JsonInt = _cap(
        "maxToolCallsPerStep",
        caps.MAX_CALLS_PER_STEP,
        "tool calls one model step may make; the calls past it are not run",
    )
    maxToolCallsPerRun: JsonInt = _cap(
        "maxToolCallsPerRun",
        caps.MAX_CALLS_PER_RUN,
        "tool calls one run may make over all its resumes; the run stops there",
    )
    maxArgumentBytes: JsonInt = _cap(
        "maxArgumentBytes",
        caps.MAX_ARGUMENT_BYTES,
        "the size of one call's arguments as UTF-8 JSON; a larger call is neither run nor kept",
    )
    recordWritesWithoutApproval: JsonInt = _cap(
        "recordWritesWithoutApproval",
        caps.RECORD_WRITES_WITHOUT_APPROVAL,
        "record writes (records.create, records.update) a run makes without an approval; "
        "the writes past them wait for one",
    )


class Policy(Open):
    autoApprove: list[str]
    requireApproval: list[str]
    setBy: str | None = Field(
        default=None,
        description="the owner or admin who set the policy; its autoApprove "
        "never applies to their own calls",
    )
    maxToolCallsPerStep: int
    maxToolCallsPerRun: int
    maxArgumentBytes: int
    recordWritesWithoutApproval: int


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
    from fieldhouse.agents import approve as decisions  # (loaded at the first agent request)

    found = await decisions.list_approvals(
        svc.agents, principal, query.status, query.runId, query.limit
    )
    return {"approvals": [a.to_json() for a in found]}


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
    from fieldhouse.agents import approve as decisions  # (loaded at the first agent request)

    return (await decisions.read_approval(svc.agents, principal, approvalId)).to_json()


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
    description=(
        "The call runs at once, once, as the person who asked for it, with their rights as "
        "they are now (never the approver's). 403 when the approver is that person (with any "
        "of their keys or sessions); 409 when it was decided already, or when its requester's "
        "key was revoked or user deleted (it stays pending, to be rejected)."
    ),
)
async def approve(svc: Services, principal: Principal, approvalId: str, body: ApproveBody) -> Any:
    from fieldhouse.agents import approve as decisions  # (loaded at the first agent request)

    decided = await decisions.approve(svc.agents, svc.tools, principal, approvalId, body.arguments)
    outcome = decided.outcome
    assert outcome is not None
    return {
        "approval": decided.approval.to_json(),
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
    from fieldhouse.agents import approve as decisions  # (loaded at the first agent request)

    decided = await decisions.reject(svc.agents, principal, approvalId, body.reason)
    return {"approval": decided.approval.to_json(), "outcome": None}


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
    from fieldhouse.agents import policy as policies  # (loaded at the first agent request)

    return (await policies.get_policy(svc.agents, principal)).to_json()


@routes.endpoint(
    "PUT",
    "/api/agents/policy",
    summary="Set which tools run without an approval, which record writes need one, and the "
    "caps on a run",
    scope="agents:write",
    tag="agents",
    admin_only=True,
    every_scope=True,
    body=PolicyBody,
    responses={200: Policy, 403: None},
    description=(
        "Replaces the policy; the caps left out take their defaults. The policy's "
        "autoApprove is an approval given in advance by whoever sets it: it never applies to "
        "their own calls, and a run shows who auto-approved a call (autoApprovedBy)."
    ),
)
async def put_policy(svc: Services, principal: Principal, body: PolicyBody) -> Any:
    from fieldhouse.agents import policy as policies  # (loaded at the first agent request)

    draft = AgentPolicy(
        tuple(body.autoApprove),
        tuple(body.requireApproval),
        None,
        body.maxToolCallsPerStep,
        body.maxToolCallsPerRun,
        body.maxArgumentBytes,
        body.recordWritesWithoutApproval,
    )
    return (await policies.set_policy(svc.agents, svc.tools.names(), principal, draft)).to_json()
