"""Agent runs: list and read them, and resume one once its approvals are decided. Members see
their own runs; owners and admins see every run of the workspace."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from fieldhouse.actors.run_ops import AGENT_RUN
from fieldhouse.agents.resume import load_run, prepare_resume
from fieldhouse.http.endpoint import Routes
from fieldhouse.http.exchange import current
from fieldhouse.http.models import Open, Timestamp, Uuid
from fieldhouse.http.routes.agents import AgentResponse, ChatQuery, run_stream
from fieldhouse.model.agents import RunRecord, RunStatus
from fieldhouse.model.principal import Principal
from fieldhouse.services import Services

routes = Routes()


class RunQuery(Open):
    status: RunStatus | None = None
    limit: int = Field(default=50, ge=1, le=100)


class RunToolCall(Open):
    callId: str
    tool: str
    arguments: dict[str, Any]
    status: Literal["running", "ok", "pending_approval", "rejected", "error", "aborted"]
    summary: str
    result: dict[str, Any]
    approvalId: Uuid | None = None
    durationMs: int
    read: list[dict[str, Any]] = Field(
        description="the records whose text the call read: module, recordId, displayName"
    )


class AgentRun(Open):
    runId: Uuid
    agentId: Uuid | None = None
    userId: Uuid | None = None
    message: str
    provider: str
    status: RunStatus
    steps: int
    toolCalls: list[RunToolCall]
    pendingApprovals: list[Uuid]
    response: str
    durationMs: int
    error: str | None = None
    createdDateTime: Timestamp
    updatedDateTime: Timestamp | None = None


class RunList(Open):
    runs: list[AgentRun]


@routes.endpoint(
    "GET",
    "/v1/agents/runs",
    summary="Agent runs, newest first",
    scope="workspace:read",
    tag="agents",
    query=RunQuery,
    responses={200: RunList},
    description="Owners and admins see every run of the workspace; other users their own.",
)
async def list_runs(svc: Services, principal: Principal, query: RunQuery) -> Any:
    rows = await svc.store.list_objects(
        principal.account_id, AGENT_RUN, status=query.status, limit=500
    )
    runs = [RunRecord.from_row(r) for r in rows]
    if not principal.is_admin:
        runs = [r for r in runs if r.user_id == principal.user_id]
    return {"runs": [r.to_json() for r in runs[: query.limit]]}


@routes.endpoint(
    "GET",
    "/v1/agents/runs/{runId}",
    summary="One agent run: its tool calls, what they read, and how it ended",
    scope="workspace:read",
    tag="agents",
    responses={200: AgentRun, 404: None},
    description="A run of another user is 404 unless the credential's user is an owner or admin.",
)
async def get_run(svc: Services, principal: Principal, runId: str) -> Any:
    return (await load_run(svc.agents, principal, runId)).to_json()


@routes.endpoint(
    "POST",
    "/v1/agents/runs/{runId}/resume",
    summary="Continue a run after its approvals were decided",
    scope="agents:write",
    tag="agents",
    query=ChatQuery,
    responses={200: AgentResponse, 404: None, 409: None},
    stream=True,
    description=(
        "The model reads what came of each call that waited for an approval (run, run with "
        "edited arguments, rejected with the approver's reason, failed, expired) and goes on. "
        "409 while an approval of the run is still pending; 404 for a run of another user "
        "unless the credential's user is an owner or admin. JSON, or the chat endpoint's event "
        "stream with `?stream=true` or `Accept: text/event-stream`."
    ),
)
async def resume(svc: Services, principal: Principal, runId: str, query: ChatQuery) -> Any:
    job = await prepare_resume(svc.agents, principal, runId)
    streaming = query.stream == "true" or "text/event-stream" in current().headers.get("accept", "")
    if streaming:
        return run_stream(svc, job, job.request.agent_id)
    return await job.execute()
