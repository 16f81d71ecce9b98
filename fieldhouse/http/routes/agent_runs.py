"""Agent runs: list (page by page) and read them, and resume one. Members see their own runs;
owners and admins see every run of the workspace. Runs are part of the agent API: a key that
may chat (``agents:write``) may read the runs it made."""

from __future__ import annotations

import base64
import binascii
from typing import Annotated, Any, Literal

from pydantic import Field

from fieldhouse.http.endpoint import Routes
from fieldhouse.http.models import QUERY_INT, Open, Timestamp, Uuid
from fieldhouse.http.routes.agents import AgentResponse, ChatQuery, run_stream, wants_events
from fieldhouse.model.agents import RunStatus
from fieldhouse.model.errors import Issue, ValidationFailed
from fieldhouse.model.principal import Principal
from fieldhouse.services import Services

routes = Routes()


class RunQuery(Open):
    status: RunStatus | None = None
    limit: Annotated[int, Field(ge=1, le=100), QUERY_INT] = 50
    cursor: str | None = Field(
        default=None, max_length=200, description="the nextCursor of the previous page"
    )


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
    autoApprovedBy: str | None = Field(
        default=None,
        description="an external call the policy let run without an approval: who set it",
    )


class AgentRun(Open):
    runId: Uuid
    agentId: Uuid | None = None
    userId: Uuid | None = Field(
        default=None, description="the requester: every call of the run acts for them"
    )
    authMethod: str | None = Field(
        default=None, description="how the requester authenticated: api_key or jwt"
    )
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
    nextCursor: str | None = Field(
        default=None, description="pass as cursor for the next page; null on the last one"
    )


@routes.endpoint(
    "GET",
    "/v1/agents/runs",
    summary="Agent runs, newest first, a page at a time",
    scope="agents:write",
    tag="agents",
    query=RunQuery,
    responses={200: RunList},
    description=(
        "Owners and admins see every run of the workspace; other users their own. Each page "
        "has up to `limit` runs; `nextCursor` (null on the last page) continues the listing."
    ),
)
async def list_runs(svc: Services, principal: Principal, query: RunQuery) -> Any:
    from fieldhouse.agents import runs  # (loaded at the first agent request)

    after = _cursor(query.cursor) if query.cursor else None
    page = await runs.list_runs(svc.agents, principal, query.status, query.limit, after)
    last = page.runs[-1] if page.more else None
    next_cursor = _encode(last.created_at, last.run_id) if last is not None else None
    return {"runs": [r.to_json() for r in page.runs], "nextCursor": next_cursor}


def _encode(created_at: str, run_id: str) -> str:
    return base64.urlsafe_b64encode(f"{created_at}|{run_id}".encode()).decode().rstrip("=")


def _cursor(text: str) -> tuple[str, str]:
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)).decode()
    except (binascii.Error, UnicodeDecodeError, ValueError):
        raw = ""
    created_at, bar, run_id = raw.partition("|")
    if not bar or not created_at or not run_id:
        raise ValidationFailed(
            [Issue("invalid_string", ("cursor",), "cursor must be a nextCursor of this listing")]
        )
    return created_at, run_id


@routes.endpoint(
    "GET",
    "/v1/agents/runs/{runId}",
    summary="One agent run: its tool calls, what they read, and how it ended",
    scope="agents:write",
    tag="agents",
    responses={200: AgentRun, 404: None},
    description="A run of another user is 404 unless the credential's user is an owner or admin.",
)
async def get_run(svc: Services, principal: Principal, runId: str) -> Any:
    from fieldhouse.agents.resume import load_run  # (loaded at the first agent request)

    return (await load_run(svc.agents, principal, runId)).to_json()


@routes.endpoint(
    "POST",
    "/v1/agents/runs/{runId}/resume",
    summary="Continue a waiting, aborted or interrupted run, for its requester",
    scope="agents:write",
    tag="agents",
    query=ChatQuery,
    responses={200: AgentResponse, 404: None, 409: None},
    conflicts={
        "conflict": "the run is still running, has ended (succeeded or failed), has an "
        "approval not decided yet (data: pendingApprovals), was resumed meanwhile, or its "
        "requester's key was revoked or user deleted"
    },
    stream=True,
    description=(
        "A run that waits for approvals (once they are decided), was aborted (its client went "
        "away) or interrupted (its server process died) goes on, as often as it stops, until "
        "it ends. The model reads what came of each call that waited for an approval (run, "
        "with what it gave; run with edited arguments; rejected with the approver's reason; "
        "failed; expired) and goes on. Whoever resumes, every call acts for the run's "
        "requester with their rights as they are now. 409 while an approval of the run is "
        "still pending; 404 for a run of another user unless the credential's user is an "
        "owner or admin. JSON, or the chat endpoint's event stream with `?stream=true` or "
        "`Accept: text/event-stream`."
    ),
)
async def resume(svc: Services, principal: Principal, runId: str, query: ChatQuery) -> Any:
    from fieldhouse.agents.resume import prepare_resume  # (loaded at the first agent request)

    job = await prepare_resume(svc.agents, principal, runId)
    if wants_events(query):
        return run_stream(svc, job, job.request.agent_id)
    return await job.execute()
