"""Listing agent runs: the use case behind ``GET /v1/agents/runs``. Owners and admins see every
run of the workspace; other users their own (the same rule as ``resume.load_run``)."""

from __future__ import annotations

from dataclasses import dataclass

from fieldhouse.actors.run_ops import AGENT_RUN
from fieldhouse.agents.run import AgentRuntime
from fieldhouse.model.agents import RunRecord, RunStatus
from fieldhouse.model.principal import Principal


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
