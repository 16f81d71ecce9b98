"""Starting and listing agent runs: the use cases behind ``POST /v1/agents/messages`` and
``GET /v1/agents/runs``. A new run acts for the principal who asks, with their rights. Owners
and admins see every run of the workspace; other users their own (as ``resume.load_run``)."""

from __future__ import annotations

from dataclasses import dataclass, replace

from fieldhouse.agents.run import AgentRun, AgentRuntime, load_agent
from fieldhouse.agents.run_writes import AGENT_RUN
from fieldhouse.model.agents import RunRecord, RunStatus
from fieldhouse.model.principal import Principal


async def start_run(
    runtime: AgentRuntime, requester: Principal, message: str, agent_id: str | None
) -> AgentRun:
    """A run of the agent ``agent_id`` (None: the default agent) on ``message``, for
    ``requester``: every tool call it makes acts for them (404 for an unknown agent)."""
    request = await load_agent(runtime.store, requester, agent_id)
    return AgentRun(runtime, replace(request, message=message))


@dataclass(frozen=True)
class RunPage:
    runs: list[RunRecord]
    #: whether older runs the principal may see follow the last one
    more: bool


async def list_runs(
    runtime: AgentRuntime,
    principal: Principal,
    status: RunStatus | None,
    limit: int,
    after: tuple[str, str] | None,
) -> RunPage:
    """Up to ``limit`` runs the principal may see, newest first, older than ``after`` (a
    run's created_at and id). The store lists objects newest first without a cursor, so the
    read grows (fourfold) until it reaches past the page: a page costs reading the runs
    before it."""
    fetch = limit + 1
    while True:
        rows = await runtime.store.list_objects(
            principal.account_id, AGENT_RUN, status=status, limit=fetch
        )
        seen = [
            run
            for run in map(RunRecord.from_row, rows)
            if (principal.is_admin or run.user_id == principal.user_id)
            and (after is None or (run.created_at, run.run_id) < after)
        ]
        if len(seen) > limit or len(rows) < fetch:
            return RunPage(seen[:limit], len(seen) > limit)
        fetch *= 4
