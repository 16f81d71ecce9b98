"""The policy's caps on a run (issue 32 item 4): tool calls per model step and per run, the size
of one call's arguments, and the record writes a run makes before the next ones need an
approval."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

import httpx
import pytest

from fieldhouse.actors.object_ops import ApplyObjects, ObjectWrite
from fieldhouse.agents.caps import argument_bytes, capped
from fieldhouse.agents.contract import ToolCall, ToolSpec
from fieldhouse.agents.providers.base import Step, TextSink, Turn
from fieldhouse.agents.providers.openai import OpenAIProvider
from fieldhouse.agents.registry import build_executor
from fieldhouse.agents.run import AgentRun, AgentRuntime, RunRequest
from fieldhouse.agents.run_writes import AGENT_RUN
from fieldhouse.model.agent_policy import Policy
from fieldhouse.model.agents import RunRecord
from fieldhouse.model.listquery import parse_list_query
from fieldhouse.runtime import Runtime
from tests.agents.replay import recorded
from tests.agents.toolkit import principal_of
from tests.conftest import Workspace


def create(n: int) -> ToolCall:
    args = {"module": "deals", "displayName": f"Deal {n}", "fields": {"name": f"Deal {n}"}}
    return ToolCall(f"c{n}", "records.create", args)


@dataclass
class Flood:
    """A model that asks for 200 records in each of its first ``steps`` steps."""

    steps: int
    name: str = "flood"

    async def step(self, turns: Sequence[Turn], tools: Sequence[ToolSpec], emit: TextSink) -> Step:
        done = sum(1 for t in turns if t.role == "assistant")
        if done < self.steps:
            return Step(tuple(create(done * 1000 + i) for i in range(200)))
        await emit("Done.")
        return Step((), "Done.")


async def run_with(runtime: Runtime, ws: Workspace, model: object) -> tuple[AgentRun, RunRecord]:
    rt = AgentRuntime(
        runtime.settings,
        runtime.actors,
        runtime.store,
        model,
        build_executor(),  # type: ignore[arg-type]
    )
    run = AgentRun(rt, RunRequest(await principal_of(runtime, ws), "go", None))
    await run.execute()
    row = await runtime.store.get_object(ws.account_id, AGENT_RUN, run.run_id)
    assert row is not None
    return run, RunRecord.from_row(row)


async def deals(runtime: Runtime, ws: Workspace) -> int:
    """How many deals the workspace has."""
    schema = (await runtime.actors.schemas.get(ws.account_id)).get("deals")
    assert schema is not None
    _, total = await runtime.store.list_records(
        ws.account_id, schema, parse_list_query([("pageSize", "1")], schema)
    )
    return total


async def test_calls_per_step_and_record_writes_without_approval_are_capped(
    runtime: Runtime, ws: Workspace
) -> None:
    """Three steps of 200 creates each: 10 a step run (the rest are answered "not run"), and
    the writes past the run's first 20 wait for an approval."""
    run, record = await run_with(runtime, ws, Flood(steps=3))
    assert record.status == "waiting" and len(run.pending) == 10
    assert await deals(runtime, ws) == 20
    statuses = [e.status for e in record.tool_calls]
    assert statuses.count("ok") == 20 and statuses.count("pending_approval") == 10
    capped_calls = [
        e for e in record.tool_calls if e.result.get("code") == "too_many_calls_in_step"
    ]
    assert len(capped_calls) == 570
    assert capped_calls[0].summary == "Not run: one step may make at most 10 tool calls"


async def test_a_run_stops_at_its_limit_of_tool_calls(runtime: Runtime, ws: Workspace) -> None:
    policy = ObjectWrite("policy", "agents", {"maxToolCallsPerRun": 15}, "active", mode="upsert")
    await runtime.actors.ask(ApplyObjects((policy,), by=ws.system))
    run, record = await run_with(runtime, ws, Flood(steps=3))
    assert record.status == "failed"
    assert record.error == "The run stopped at its limit of 15 tool calls"
    assert await deals(runtime, ws) == 15
    assert run.answer[-1].startswith("I stopped before finishing: the limit of 15 tool calls")


async def test_an_oversized_argument_is_neither_run_nor_kept_nor_sent_upstream(
    runtime: Runtime, ws: Workspace
) -> None:
    """A 4 MB argument (a prompt injected through a record's text, say) is answered "not run";
    the run keeps the call without it, and the next request to the model does not carry it."""
    huge = {"module": "deals", "displayName": "Big", "fields": {"notes": "x" * 4_000_000}}
    chunk = {
        "choices": [
            {
                "index": 0,
                "delta": {
                    "tool_calls": [
                        {
                            "index": 0,
                            "id": "call_1",
                            "type": "function",
                            "function": {
                                "name": "records__create",
                                "arguments": json.dumps(huge),
                            },
                        }
                    ]
                },
            }
        ]
    }
    answers = [
        f"data: {json.dumps(chunk)}\n\ndata: [DONE]\n\n".encode(),
        recorded("openai_text.sse"),
    ]
    asked: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:  # whole, not in small chunks
        asked.append(request)
        body = answers.pop(0)
        return httpx.Response(200, headers={"Content-Type": "text/event-stream"}, content=body)

    transport = httpx.MockTransport(answer)
    model = OpenAIProvider(api_key="k", base_url="http://llm.test/v1", transport=transport)
    _, record = await run_with(runtime, ws, model)
    (entry,) = record.tool_calls
    assert (entry.status, entry.arguments) == ("error", {})
    assert entry.result["code"] == "arguments_too_large" and entry.result["bytes"] > 4_000_000
    assert await deals(runtime, ws) == 0
    assert len(asked[1].content) < 100_000
    row = await runtime.store.get_object(ws.account_id, AGENT_RUN, record.run_id)
    assert row is not None and len(json.dumps(row.data)) < 100_000


def test_caps_apply_in_order_size_step_run() -> None:
    rules = Policy(max_calls_per_step=2, max_calls_per_run=3, max_argument_bytes=1024)
    small, big = create(1), ToolCall("b", "records.create", {"x": "y" * 2000})
    assert argument_bytes(small) == len(json.dumps(small.arguments, separators=(",", ":")))
    assert capped(small, 0, 0, rules) is None
    codes = [
        (c.result["code"] if c else None)
        for c in (capped(big, 0, 0, rules), capped(small, 2, 0, rules), capped(small, 1, 3, rules))
    ]
    assert codes == ["arguments_too_large", "too_many_calls_in_step", "too_many_calls_in_run"]


@pytest.mark.parametrize(
    ("stored", "expected"),
    [({"maxToolCallsPerStep": 0}, 10), ({"maxToolCallsPerStep": "5"}, 10), ({}, 10)],
)
def test_a_stored_cap_out_of_bounds_reads_as_the_default(
    stored: dict[str, object], expected: int
) -> None:
    class Row:
        data = stored

    assert Policy.from_row(Row()).max_calls_per_step == expected
