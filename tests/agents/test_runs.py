"""Listing runs (the use case behind GET /v1/agents/runs): a member sees their own runs, an
owner or admin every run of the workspace; pages follow one another without gaps or repeats."""

from __future__ import annotations

import uuid

import pytest

from fieldhouse.agents import runs
from fieldhouse.agents.run_writes import SaveRun
from fieldhouse.model.agents import RunRecord, RunStatus
from fieldhouse.model.errors import NotFound
from fieldhouse.runtime import Runtime
from tests.agents.toolkit import principal_of
from tests.conftest import Workspace, add_user


async def save(runtime: Runtime, ws: Workspace, user_id: str, status: RunStatus, n: int) -> str:
    """A run of ``user_id`` made at the ``n``th microsecond of 2026 (later n: newer)."""
    run_id = str(uuid.uuid4())
    made = f"2026-01-01T00:00:00.{n:06d}Z"
    run = RunRecord(run_id, None, user_id, None, "m", "x", status, 0, [], [], "", 0, None, made)
    await runtime.actors.ask(SaveRun(run, by=ws.system))
    return run_id


async def test_members_list_their_runs_and_admins_every_run(
    runtime: Runtime, ws: Workspace
) -> None:
    member_ws = await add_user(runtime, ws, "member")
    member = await principal_of(runtime, member_ws)
    owner = await principal_of(runtime, ws)
    agents = runtime.services.agents
    theirs = await save(runtime, ws, member_ws.owner_id, RunStatus.SUCCEEDED, 0)
    mine = [await save(runtime, ws, ws.owner_id, RunStatus.FAILED, n) for n in range(1, 5)]
    page = await runs.list_runs(agents, member, None, 10, None)
    assert [r.run_id for r in page.runs] == [theirs] and not page.more
    seen: list[str] = []
    after = None
    while True:
        page = await runs.list_runs(agents, owner, None, 2, after)
        seen += [r.run_id for r in page.runs]
        if not page.more:
            break
        after = (page.runs[-1].created_at, page.runs[-1].run_id)
    assert seen == [*reversed(mine), theirs]
    failed = await runs.list_runs(agents, owner, RunStatus.FAILED, 10, None)
    assert [r.run_id for r in failed.runs] == list(reversed(mine))


async def test_a_started_run_acts_for_its_requester(runtime: Runtime, ws: Workspace) -> None:
    member_ws = await add_user(runtime, ws, "member")
    member = await principal_of(runtime, member_ws)
    agents = runtime.services.agents
    result = await (await runs.start_run(agents, member, "show my reminders", None)).execute()
    assert result["success"], result
    page = await runs.list_runs(agents, member, None, 10, None)
    assert [(r.run_id, r.user_id) for r in page.runs] == [(result["runId"], member.user_id)]
    with pytest.raises(NotFound, match="Agent"):
        await runs.start_run(agents, member, "hi", str(uuid.uuid4()))
