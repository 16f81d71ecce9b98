"""Named agents and run records through the workspace actor (no HTTP), on both backends."""

from __future__ import annotations

import pytest

from fieldhouse.agents.run_writes import AGENT, AGENT_RUN, CreateAgent, SaveRun
from fieldhouse.model.agents import RunRecord, RunStatus
from fieldhouse.model.errors import BadRequest, Conflict
from fieldhouse.runtime import Runtime
from tests.conftest import Workspace


def run(status: RunStatus, response: str = "") -> RunRecord:
    return RunRecord(
        run_id="0b6a9f1e-3f1c-4c33-9d7a-1e2f3a4b5c6d",
        agent_id=None,
        user_id=None,
        api_key_id=None,
        message="create a contact named Ada",
        provider="offline",
        status=status,
        steps=1,
        tool_calls=[],
        pending_approvals=[],
        response=response,
        duration_ms=5,
        error=None,
        created_at="2026-01-01T00:00:00.000000Z",
    )


async def test_an_agent_is_stored_with_its_trimmed_name_and_prompt(
    runtime: Runtime, ws: Workspace
) -> None:
    agent_id = await runtime.actors.ask(CreateAgent("  Scout ", " Find leads ", by=ws.system))
    stored = await runtime.store.get_object(ws.account_id, AGENT, agent_id)
    assert stored is not None
    assert (stored.data["name"], stored.data["prompt"]) == ("Scout", "Find leads")


@pytest.mark.parametrize(
    ("name", "prompt", "message"),
    [
        (" ", "p", "An agent's name must have 1 to 200 characters"),
        ("x" * 201, "p", "An agent's name must have 1 to 200 characters"),
        ("Scout", "", "An agent's prompt must have 1 to 20000 characters"),
    ],
)
async def test_an_agent_needs_a_name_and_a_prompt(
    runtime: Runtime, ws: Workspace, name: str, prompt: str, message: str
) -> None:
    with pytest.raises(BadRequest) as caught:
        await runtime.actors.ask(CreateAgent(name, prompt, by=ws.system))
    assert caught.value.message == message


async def test_a_resumed_run_claims_the_version_it_read(runtime: Runtime, ws: Workspace) -> None:
    first = run(RunStatus.RUNNING)
    await runtime.actors.ask(SaveRun(first, by=ws.system))
    stored = await runtime.store.get_object(ws.account_id, AGENT_RUN, first.run_id)
    assert stored is not None and stored.status == RunStatus.RUNNING
    read = stored.updated_at
    # the first resume claims the version it read ...
    await runtime.actors.ask(SaveRun(run(RunStatus.SUCCEEDED, "Done."), read, by=ws.system))
    # ... and a second one that read the same version is refused
    with pytest.raises(Conflict, match="it was resumed meanwhile"):
        await runtime.actors.ask(SaveRun(run(RunStatus.FAILED), read, by=ws.system))
    final = await runtime.store.get_object(ws.account_id, AGENT_RUN, first.run_id)
    assert final is not None
    assert RunRecord.from_row(final).response == "Done."
