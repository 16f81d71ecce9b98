"""Approvals of agent tool calls, and the workspace's agent policy (owners and admins only).

Approving runs the approved call at once, through the same gate as every agent tool call, and
uses the approval up; a decided approval cannot be decided again (409).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from fieldhouse.actors.agent_ops import APPROVAL, ApplyObjects, DecideApproval, ObjectWrite
from fieldhouse.agents.contract import ToolContext
from fieldhouse.agents.gate import POLICY, POLICY_ID
from fieldhouse.agents.tools.base import object_json
from fieldhouse.http.endpoint import Routes
from fieldhouse.http.models import Open, Strict
from fieldhouse.model.errors import Issue, NotFound, ValidationFailed
from fieldhouse.model.principal import Principal
from fieldhouse.services import Services
from fieldhouse.storage.objects import ObjectRow

routes = Routes()


class ApprovalQuery(Open):
    status: Literal["pending", "approved", "rejected", "executed"] | None = None
    limit: int = Field(default=50, ge=1, le=100)


class Approval(Open):
    id: str
    tool: str
    arguments: dict[str, Any]
    status: str
    requestedBy: str | None = None
    decidedBy: str | None = None
    decidedAt: str | None = None


class ApprovalList(Open):
    approvals: list[Approval]


class Outcome(Open):
    status: str
    summary: str
    result: dict[str, Any]


class Decision(Open):
    approval: Approval
    outcome: Outcome | None


class PolicyBody(Strict):
    autoApprove: list[str] = Field(max_length=50)


class Policy(Open):
    autoApprove: list[str]


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
    rows = await svc.store.list_objects(
        principal.account_id, APPROVAL, status=query.status, limit=query.limit
    )
    return {"approvals": [object_json(r) for r in rows]}


@routes.endpoint(
    "POST",
    "/api/approvals/{approvalId}/approve",
    summary="Approve a tool call and run it once",
    scope="agents:write",
    tag="agents",
    admin_only=True,
    responses={200: Decision},
)
async def approve(svc: Services, principal: Principal, approvalId: str) -> Any:
    row = await _decide(svc, principal, approvalId, approve=True)
    ctx = ToolContext(
        principal=principal,
        actors=svc.actors,
        store=svc.store,
        settings=svc.settings,
        run_id=str(row.data.get("runId") or f"approval-{row.object_id}"),
        agent_id=row.data.get("agentId"),
    )
    outcome = await svc.tools.execute_approved(row, ctx)
    after = await svc.store.get_object(principal.account_id, APPROVAL, row.object_id)
    return {
        "approval": object_json(after or row),
        "outcome": {
            "status": outcome.status,
            "summary": outcome.summary,
            "result": dict(outcome.result),
        },
    }


@routes.endpoint(
    "POST",
    "/api/approvals/{approvalId}/reject",
    summary="Reject a tool call; it never runs",
    scope="agents:write",
    tag="agents",
    admin_only=True,
    responses={200: Decision},
)
async def reject(svc: Services, principal: Principal, approvalId: str) -> Any:
    row = await _decide(svc, principal, approvalId, approve=False)
    return {"approval": object_json(row), "outcome": None}


async def _decide(
    svc: Services, principal: Principal, approval_id: str, *, approve: bool
) -> ObjectRow:
    if not 1 <= len(approval_id) <= 64:
        raise NotFound(f"Approval {approval_id} not found")
    row: ObjectRow = await svc.actors.ask(
        principal.account_id,
        DecideApproval(approval_id, approve, actor_user_id=principal.user_id),
    )
    return row


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
    return {"autoApprove": list(row.data.get("autoApprove", [])) if row else []}


@routes.endpoint(
    "PUT",
    "/api/agents/policy",
    summary="Set which tools run without an approval",
    scope="agents:write",
    tag="agents",
    admin_only=True,
    body=PolicyBody,
    responses={200: Policy},
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
    if issues:
        raise ValidationFailed(issues)
    names = sorted(set(body.autoApprove))
    write = ObjectWrite(
        POLICY,
        POLICY_ID,
        {"autoApprove": names},
        "active",
        mode="upsert",
        activity="agent_policy_changed",
        activity_data={"autoApprove": names},
    )
    await svc.actors.ask(
        principal.account_id, ApplyObjects((write,), actor_user_id=principal.user_id)
    )
    return {"autoApprove": names}
