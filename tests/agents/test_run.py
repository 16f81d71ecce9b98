"""One agent run, driven directly (no HTTP) over the real actors, store and tools on both
backends: what it returns, what it streams, the run record it leaves, and how it ends when
the model fails, loops, stalls past the deadline, or the run is cancelled mid-call."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import pytest
import trio
import trio.testing

from fieldhouse.actors import admin_ops as ops
from fieldhouse.agents.caps import progress_reply
from fieldhouse.agents.contract import ToolCall, ToolContext, ToolExecutor, ToolOutcome, ToolSpec
from fieldhouse.agents.providers import OfflineProvider
from fieldhouse.agents.providers.base import (
    EMPTY_ANSWER,
    Provider,
    ProviderError,
    Step,
    TextSink,
    Turn,
)
from fieldhouse.agents.registry import build_executor
from fieldhouse.agents.run import (
    DEFAULT_PROMPT,
    INTERRUPTED,
    REQUESTER_GONE,
    AgentRun,
    AgentRuntime,
    ApprovalRequired,
    RunEvent,
    RunRequest,
    Token,
    ToolStarted,
    load_agent,
)
from fieldhouse.agents.run_writes import AGENT_RUN, CreateAgent
from fieldhouse.model.agents import RunRecord, ToolCallEntry
from fieldhouse.model.errors import NotFound
from fieldhouse.model.principal import SystemActor
from fieldhouse.runtime import Runtime
from tests.agents.toolkit import principal_of
from tests.conftest import Workspace, add_user


class Looping:
    """A model that never stops calling tools."""

    name = "looping"

    async def step(self, turns: Sequence[Turn], tools: Sequence[ToolSpec], emit: TextSink) -> Step:
        return Step((ToolCall(f"c{len(turns)}", "reminders.list", {}),))


@dataclass
class Scripted:
    """A model that says each scripted text once (an empty one is an empty answer)."""

    texts: list[str]
    error: ProviderError | None = None
    name: str = "scripted"

    async def step(self, turns: Sequence[Turn], tools: Sequence[ToolSpec], emit: TextSink) -> Step:
        if self.error is not None:
            raise self.error
        text = self.texts.pop(0)
        await emit(text)
        return Step(text=text)


@dataclass
class Stalled:
    """A model that never answers."""

    waiting: trio.Event = field(default_factory=trio.Event)
    name: str = "stalled"

    async def step(self, turns: Sequence[Turn], tools: Sequence[ToolSpec], emit: TextSink) -> Step:
        self.waiting.set()
        await trio.sleep_forever()
        raise AssertionError("unreachable")


@dataclass
class Hanging:
    """The real tools, except that ``reminders.list`` never returns."""

    inner: ToolExecutor = field(default_factory=build_executor)
    blocked: trio.Event = field(default_factory=trio.Event)

    def specs(self) -> list[ToolSpec]:
        return self.inner.specs()

    def label(self, call: ToolCall) -> str:
        return self.inner.label(call)

    async def execute(self, call: ToolCall, ctx: ToolContext) -> ToolOutcome:
        if call.name == "reminders.list":
            self.blocked.set()
            await trio.sleep_forever()
        return await self.inner.execute(call, ctx)


@dataclass
class Ends:
    seen: list[tuple[str, str]] = field(default_factory=list)

    def __call__(self, run_id: str, status: str, at: float) -> None:
        self.seen.append((run_id, status))


def agents(
    runtime: Runtime, provider: Provider, executor: ToolExecutor | None = None, **settings: Any
) -> tuple[AgentRuntime, Ends]:
    ends = Ends()
    made = AgentRuntime(
        replace(runtime.settings, **settings),
        runtime.actors,
        runtime.store,
        provider,
        executor or build_executor(),
        [ends],
    )
    return made, ends


async def request(runtime: Runtime, ws: Workspace, message: str) -> RunRequest:
    return RunRequest(await principal_of(runtime, ws), message, None)


async def stored(runtime: Runtime, ws: Workspace, run_id: str) -> RunRecord:
    row = await runtime.store.get_object(ws.account_id, AGENT_RUN, run_id)
    assert row is not None
    return RunRecord.from_row(row)


async def test_a_run_calls_tools_streams_and_stores_its_record(
    runtime: Runtime, ws: Workspace
) -> None:
    rt, ends = agents(runtime, OfflineProvider())
    send, receive = trio.open_memory_channel[RunEvent](100)
    run = AgentRun(rt, await request(runtime, ws, "create a contact named Ada Lovelace"), send)
    response = await run.execute()
    assert response["success"] is True and response["error"] == ""
    # the planner looks for a contact of that name first, then creates it
    assert response["toolCalls"] == 2 and response["pendingApprovals"] == []
    assert "Ada Lovelace" in response["response"]
    events = [receive.receive_nowait() for _ in range(receive.statistics().current_buffer_used)]
    started = [e.tool for e in events if isinstance(e, ToolStarted)]
    assert started == ["records.search", "records.create"]
    assert "".join(e.text for e in events[1:] if isinstance(e, Token)) == response["response"]
    record = await stored(runtime, ws, run.run_id)
    assert (record.status, record.steps, record.response) == ("succeeded", 3, response["response"])
    lookup, entry = record.tool_calls
    assert (lookup.tool, lookup.status) == ("records.search", "ok")
    assert (entry.tool, entry.status) == ("records.create", "ok")
    assert entry.result["record"]["displayName"] == "Ada Lovelace"
    assert record.user_id == ws.owner_id and record.provider == "offline"
    assert ends.seen == [(run.run_id, "succeeded")]


async def test_a_call_that_needs_an_approval_is_reported(runtime: Runtime, ws: Workspace) -> None:
    rt, _ = agents(runtime, OfflineProvider())
    send, receive = trio.open_memory_channel[RunEvent](100)
    message = "send an email to bob@example.com about Pricing"
    run = AgentRun(rt, await request(runtime, ws, message), send)
    response = await run.execute()
    (approval_id,) = response["pendingApprovals"]
    events = [receive.receive_nowait() for _ in range(receive.statistics().current_buffer_used)]
    (asked,) = [e for e in events if isinstance(e, ApprovalRequired)]
    assert (asked.approval_id, asked.tool) == (approval_id, "email.send")
    assert asked.preview["to"] == ["bob@example.com"]
    record = await stored(runtime, ws, run.run_id)
    assert record.pending_approvals == [approval_id]
    assert [(e.status, e.approval_id) for e in record.tool_calls] == [
        ("pending_approval", approval_id)
    ]


@pytest.mark.parametrize(
    ("texts", "failure", "error"),
    [
        ([], ProviderError("The model is down"), "The model is down"),
        ([""], None, EMPTY_ANSWER),
    ],
)
async def test_a_model_failure_ends_the_run_failed(
    runtime: Runtime,
    ws: Workspace,
    texts: list[str],
    failure: ProviderError | None,
    error: str,
) -> None:
    provider = Scripted(list(texts), failure)
    rt, ends = agents(runtime, provider)
    run = AgentRun(rt, await request(runtime, ws, "hello"))
    response = await run.execute()
    assert (response["success"], response["error"]) == (False, error)
    record = await stored(runtime, ws, run.run_id)
    assert (record.status, record.error) == ("failed", error)
    assert ends.seen == [(run.run_id, "failed")]


async def test_a_looping_model_stops_at_the_step_limit_with_what_was_done(
    runtime: Runtime, ws: Workspace
) -> None:
    rt, _ = agents(runtime, Looping(), agent_max_steps=3)
    run = AgentRun(rt, await request(runtime, ws, "loop"))
    response = await run.execute()
    assert response["error"] == "The run stopped at its limit of 3 model calls"
    assert response["toolCalls"] == 3
    assert response["response"].startswith(
        "I stopped before finishing: the limit of 3 model calls was reached. So far: "
    )
    assert response["response"].endswith(" (3 times).")
    record = await stored(runtime, ws, run.run_id)
    assert (record.status, record.steps, len(record.tool_calls)) == ("failed", 3, 3)


async def test_the_run_deadline_fails_a_stalled_model(
    runtime: Runtime, ws: Workspace, mock_clock: trio.testing.MockClock
) -> None:
    model = Stalled()
    rt, _ = agents(runtime, model, agent_run_timeout=30.0)
    run = AgentRun(rt, await request(runtime, ws, "hello"))
    got: list[dict[str, Any]] = []

    async def execute() -> None:
        got.append(await run.execute())

    async with trio.open_nursery() as nursery:
        nursery.start_soon(execute)
        await model.waiting.wait()
        mock_clock.jump(29.0)
        await trio.testing.wait_all_tasks_blocked()
        assert got == []  # not yet
        mock_clock.jump(1.0)
    (response,) = got
    assert response["error"] == "The run deadline of 30 s was exceeded; the run was stopped"
    assert response["durationMs"] == 30_000
    assert (await stored(runtime, ws, run.run_id)).status == "failed"


async def test_a_cancelled_run_is_stored_aborted_with_its_call_in_flight(
    runtime: Runtime, ws: Workspace
) -> None:
    tools = Hanging()
    rt, ends = agents(runtime, Looping(), tools)
    run = AgentRun(rt, await request(runtime, ws, "loop"))
    async with trio.open_nursery() as nursery:
        nursery.start_soon(run.execute)
        await tools.blocked.wait()
        nursery.cancel_scope.cancel()
    record = await stored(runtime, ws, run.run_id)
    assert record.status == "aborted"
    assert [(e.status, e.summary) for e in record.tool_calls] == [("aborted", INTERRUPTED)]
    assert ends.seen == [(run.run_id, "aborted")]


async def test_a_client_that_stops_reading_aborts_the_run(runtime: Runtime, ws: Workspace) -> None:
    rt, _ = agents(runtime, Scripted(["Hello there."]))
    send, receive = trio.open_memory_channel[RunEvent](0)
    receive.close()
    run = AgentRun(rt, await request(runtime, ws, "hello"), send)
    response = await run.execute()
    assert response["error"] == "The client stopped reading the run's events"
    assert (await stored(runtime, ws, run.run_id)).status == "aborted"


async def test_a_message_goes_to_the_named_agent_or_the_default_one(
    runtime: Runtime, ws: Workspace
) -> None:
    principal = await principal_of(runtime, ws)
    assert (await load_agent(runtime.store, principal, None)).prompt == DEFAULT_PROMPT
    agent_id = await runtime.actors.ask(CreateAgent("Scout", "Find leads", by=ws.system))
    named = await load_agent(runtime.store, principal, agent_id)
    assert (named.agent_id, named.prompt) == (agent_id, "Find leads")
    with pytest.raises(NotFound) as missing:
        await load_agent(runtime.store, principal, "nope")
    assert missing.value.data == {"agentId": "nope"}


def test_the_progress_reply_counts_what_the_tools_did() -> None:
    entries = [
        ToolCallEntry("1", "reminders.list", {}, "ok", "Listed 2 reminders."),
        ToolCallEntry("2", "reminders.list", {}, "ok", "Listed 2 reminders."),
        ToolCallEntry("3", "email.send", {}, "error", ""),
        ToolCallEntry("4", "social.post", {}, "rejected", ""),
    ]
    assert progress_reply(entries, 4, after_text=True) == (
        "\n\nI stopped before finishing: the limit of 4 model calls was reached. So far: "
        "Listed 2 reminders (2 times). Could not complete email.send: it failed. "
        "The social.post call was rejected."
    )
    assert progress_reply([], 1, after_text=False) == (
        "I stopped before finishing: the limit of 1 model calls was reached. No tool was used."
    )


@dataclass
class DeletesItsUser:
    """A model whose first step makes a contact and whose second step, once the requester has
    been deleted (as an admin might while the run goes on), tries to make another."""

    runtime: Runtime
    account_id: str
    user_id: str
    name: str = "deletes-its-user"

    async def step(self, turns: Sequence[Turn], tools: Sequence[ToolSpec], emit: TextSink) -> Step:
        made = sum(1 for t in turns if t.role == "tool")
        if made == 1:
            await self.runtime.actors.ask(
                ops.DeleteUser(self.user_id, by=SystemActor(self.account_id, "test"))
            )
        name = f"Contact {made}"
        args = {"module": "contacts", "displayName": name, "fields": {"first-name": name}}
        return Step((ToolCall(f"c{made}", "records.create", args),))


async def test_each_call_acts_with_the_requesters_rights_as_they_are_then(
    runtime: Runtime, ws: Workspace
) -> None:
    """Issue 32 item 1: rights are read again before every call; once the requester's user is
    deleted nothing more runs and the run fails saying so."""
    member = await add_user(runtime, ws, "member")
    model = DeletesItsUser(runtime, ws.account_id, member.owner_id)
    rt, _ = agents(runtime, model)
    run = AgentRun(rt, await request(runtime, member, "make contacts"))
    response = await run.execute()
    assert (response["success"], response["error"]) == (False, REQUESTER_GONE)
    record = await stored(runtime, ws, run.run_id)
    assert [(e.status, e.summary) for e in record.tool_calls] == [
        ("ok", "Created contacts record Contact 0."),
        ("error", REQUESTER_GONE),
    ]
    assert record.user_id == member.owner_id and record.status == "failed"
