"""Chat with an agent (SPEC endpoint 21): one JSON Agent response, or a Server-Sent Events
stream (SPEC Events) of open -> tool_call* -> token* -> done | error."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal
from uuid import UUID

import trio
from pydantic import Field

from fieldhouse.http.endpoint import Routes
from fieldhouse.http.exchange import current
from fieldhouse.http.models import Open, Strict, Uuid
from fieldhouse.http.response import Response
from fieldhouse.http.sse import SHUTTING_DOWN, EventStream
from fieldhouse.model.errors import ApiError
from fieldhouse.model.principal import Principal
from fieldhouse.services import Services

if TYPE_CHECKING:
    from fieldhouse.agents.run import AgentRun, RunEvent

routes = Routes()
TERMINAL = frozenset({"done", "error"})


class ChatQuery(Open):
    stream: Literal["true"] | None = Field(
        default=None, description="`true` selects the event stream (as does Accept)"
    )


class ChatBody(Strict):
    message: str = Field(min_length=1, max_length=10_000)
    agentId: UUID | None = Field(default=None, description="omitted: the default agent")


class AgentResponse(Open):
    response: str
    success: bool
    durationMs: int
    toolCalls: int
    error: str
    runId: Uuid | None = None
    agentId: Uuid | None = None
    pendingApprovals: list[Uuid] = []


@routes.endpoint(
    "POST",
    "/v1/agents/messages",
    summary="Chat with an agent",
    scope="agents:write",
    tag="agents",
    query=ChatQuery,
    body=ChatBody,
    responses={200: AgentResponse, 404: None},
    stream=True,
    description=(
        "Runs the agent on the message: it calls tools (external ones only after an approval) "
        "and answers. JSON by default; `?stream=true` or `Accept: text/event-stream` selects "
        "Server-Sent Events: `open` {agentId, runId}, `tool_call` {tool, label}, "
        "`approval_required` {approvalId, tool, description, preview} when a call waits for an "
        "approver, `token` {text}, then one `done` (the Agent response) or `error` {message, "
        "runId}; `: keepalive` comments during silence. A client that disconnects aborts the "
        "run (stored `aborted`). A run whose calls wait for approvals is stored `waiting` and "
        "continues with POST /v1/agents/runs/{runId}/resume once they are decided (an aborted "
        "or interrupted run too). Every tool call acts for the requester, with their rights "
        "as they are when it runs, within the agent policy's caps (GET /api/agents/policy)."
    ),
)
async def chat(svc: Services, principal: Principal, query: ChatQuery, body: ChatBody) -> Any:
    from fieldhouse.agents import runs  # (loaded at the first agent request)

    agent_id = str(body.agentId) if body.agentId is not None else None
    job = await runs.start_run(svc.agents, principal, body.message, agent_id)
    if not wants_events(query):
        return await job.execute()
    return run_stream(svc, job, agent_id)


def wants_events(query: ChatQuery) -> bool:
    """The event stream, not JSON: ``?stream=true``, or an Accept header whose media ranges
    prefer ``text/event-stream`` (named, with a q above 0 and not below application/json's)."""
    if query.stream == "true":
        return True
    return prefers_events(current().headers.get("accept", ""))


def prefers_events(accept: str) -> bool:
    events = plain = 0.0
    for part in accept.split(","):
        media, *params = (p.strip() for p in part.split(";"))
        q = 1.0
        for param in params:
            name, _, value = param.partition("=")
            if name.strip().lower() == "q":
                try:
                    q = min(max(float(value.strip()), 0.0), 1.0)
                except ValueError:
                    q = 0.0
        media = media.lower()
        if media == "text/event-stream":
            events = max(events, q)
        elif media == "application/json":
            plain = max(plain, q)
    return events > 0 and events >= plain


def run_stream(svc: Services, job: AgentRun, agent_id: str | None) -> Response:
    """The event stream of a run (a new one or a resumed one)."""

    from fieldhouse.agents.run import RunEvent

    async def produce(send: trio.MemorySendChannel[tuple[str, Any]]) -> None:
        events, receive = trio.open_memory_channel[RunEvent](0)
        job.events = events
        result: dict[str, Any] = {}
        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(_relay, receive, send)
                async with events:
                    result = await job.execute()
        except* ApiError as group:  # the run could not even start (e.g. the workspace is busy)
            result = {"success": False, "error": str(group.exceptions[0]), "runId": None}
        if result["success"]:
            await send.send(("done", result))
        else:
            await send.send(("error", {"message": result["error"], "runId": result["runId"]}))

    def stopped() -> tuple[str, Any]:
        """The server is shutting down: the run is cancelled (and stored as aborted)."""
        job.error = job.error or "The server shut down during the run"
        return "error", {"message": SHUTTING_DOWN, "runId": job.run_id}

    stream = EventStream(
        ("open", {"agentId": agent_id, "runId": job.run_id}),
        produce,
        keepalive=svc.agents.settings.agent_keepalive_seconds,
        terminal=TERMINAL,
        shutdown=svc.shutdown,
        stopped=stopped,
    )
    response = Response(
        stream,
        status=200,
        content_type="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )
    response.timeout = None  # the server's response deadline would cut the stream silently
    return response


async def _relay(
    receive: trio.MemoryReceiveChannel[RunEvent], send: trio.MemorySendChannel[tuple[str, Any]]
) -> None:
    """Run events as wire events: only labels and answer text, never raw tool output."""
    from fieldhouse.agents.run import ApprovalRequired, Token, ToolStarted

    async with receive:
        async for event in receive:
            if isinstance(event, ToolStarted):
                await send.send(("tool_call", {"tool": event.tool, "label": event.label}))
            elif isinstance(event, Token):
                await send.send(("token", {"text": event.text}))
            elif isinstance(event, ApprovalRequired):
                data = {
                    "approvalId": event.approval_id,
                    "tool": event.tool,
                    "description": event.description,
                    "preview": dict(event.preview),
                }
                await send.send(("approval_required", data))
