"""How agent runs end other than with an answer: the run deadline (on a mock clock), the step
limit, a client that disconnects in JSON mode, and a provider cancelled mid-stream; plus the
agent's activity entries in the workspace feed."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from functools import partial
from typing import Any

import httpx
import orjson
import trio
import trio.testing

from fieldhouse.agents.contract import ToolCall, ToolSpec
from fieldhouse.agents.providers.base import Step, TextSink, Turn
from fieldhouse.agents.providers.openai import OpenAIProvider
from fieldhouse.agents.registry import build_executor
from fieldhouse.agents.run import AgentRuntime
from fieldhouse.agents.run_writes import AGENT_RUN
from fieldhouse.runtime import Runtime
from tests.conftest import Workspace, add_user, make_workspace
from tests.http.agents_support import install_runtime
from tests.http.routes.test_agents import Looping
from tests.http.routes.test_agents_sse import Blocking, TwoCalls, raw_request, served

URL = "/v1/agents/messages"
DEADLINE = 30.0
Event = tuple[str, Any]


class Stalled:
    """A provider whose model never answers; it notes when it is waiting and when cancelled."""

    name = "stalled"

    def __init__(self) -> None:
        self.waiting = trio.Event()
        self.cancelled = False

    async def step(self, turns: Sequence[Turn], tools: Sequence[ToolSpec], emit: TextSink) -> Step:
        self.waiting.set()
        try:
            await trio.sleep_forever()
        finally:
            self.cancelled = True


def parse_events(text: str) -> list[Event]:
    """(name, data) per event of a whole SSE body; keepalive comments are dropped."""
    got: list[Event] = []
    for block in text.split("\n\n"):
        lines = [line for line in block.split("\n") if line and not line.startswith(":")]
        if lines:
            assert lines[0].startswith("event: ") and lines[1].startswith("data: "), block
            got.append((lines[0][7:], orjson.loads(lines[1][6:])))
    return got


def on_end(agents: AgentRuntime) -> tuple[list[tuple[str, str, float]], trio.Event]:
    ended: list[tuple[str, str, float]] = []
    finished = trio.Event()

    def hook(run_id: str, status: str, at: float) -> None:
        ended.append((run_id, status, at))
        finished.set()

    agents.on_end.append(hook)
    return ended, finished


async def post_at_deadline(
    client: httpx.AsyncClient,
    clock: trio.testing.MockClock,
    blocked: trio.Event,
    **kw: Any,
) -> httpx.Response:
    """POST, wait until the run is stuck, show it is still running just before its deadline,
    then move the clock past it. Until then the clock moves only here: nothing else times out."""
    got: list[httpx.Response] = []

    async def post() -> None:
        got.append(await client.post(URL, **kw))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(post)
        await blocked.wait()
        clock.jump(DEADLINE - 0.5)
        await trio.testing.wait_all_tasks_blocked()
        assert got == []  # still running half a second before the deadline
        clock.jump(1.0)
        # the run now ends without the clock moving again; a run that ignores its deadline
        # fails the test after about 5 s of real time instead of hanging it
        for _ in range(500):
            if got:
                break
            await trio.testing.wait_all_tasks_blocked(cushion=0.01)
        else:
            nursery.cancel_scope.cancel()
    assert got, "the run went on past its deadline"
    (res,) = got
    assert res.status_code == 200, res.text
    return res


async def test_deadline_ends_a_json_run(
    runtime: Runtime, client: httpx.AsyncClient, ws: Workspace, mock_clock: trio.testing.MockClock
) -> None:
    stalled = Stalled()
    install_runtime(runtime, stalled, agent_run_timeout=DEADLINE)
    res = await post_at_deadline(
        client, mock_clock, stalled.waiting, json={"message": "hi"}, headers=ws.headers
    )
    body = res.json()
    assert body["success"] is False and stalled.cancelled
    assert body["error"] == "The run deadline of 30 s was exceeded; the run was stopped"
    assert body["durationMs"] == 30_500 and body["toolCalls"] == 0
    run = await runtime.store.get_object(ws.account_id, AGENT_RUN, body["runId"])
    assert run is not None and run.status == "failed"
    assert run.data["error"] == body["error"] and run.data["steps"] == 1


async def test_deadline_ends_a_stream_with_one_error_event(
    runtime: Runtime, client: httpx.AsyncClient, ws: Workspace, mock_clock: trio.testing.MockClock
) -> None:
    blocking = Blocking(build_executor())  # reminders.list never returns
    install_runtime(runtime, TwoCalls(), blocking, agent_run_timeout=DEADLINE)
    res = await post_at_deadline(
        client,
        mock_clock,
        blocking.blocked,
        params={"stream": "true"},
        json={"message": "go"},
        headers=ws.headers,
    )
    got = parse_events(res.text)
    assert [name for name, _ in got] == ["open", "tool_call", "error"]
    assert res.text.count("event: error") == 1 and "event: done" not in res.text
    error = got[-1][1]
    assert error["message"] == "The run deadline of 30 s was exceeded; the run was stopped"
    assert blocking.started == ["reminders.list"]  # the second tool never started
    run = await runtime.store.get_object(ws.account_id, AGENT_RUN, error["runId"])
    assert run is not None and run.status == "failed"
    assert [(e["tool"], e["status"]) for e in run.data["toolCalls"]] == [
        ("reminders.list", "aborted")
    ]


STEP_LIMIT_REPLY = (
    "I stopped before finishing: the limit of 3 model calls was reached. "
    "So far: Found 0 reminder(s) (3 times)."
)


async def test_step_limit_reply_says_what_the_tools_did(
    runtime: Runtime, client: httpx.AsyncClient, ws: Workspace
) -> None:
    install_runtime(runtime, Looping(), agent_max_steps=3)
    res = await client.post(URL, json={"message": "loop"}, headers=ws.headers)
    body = res.json()
    assert body["success"] is False and body["toolCalls"] == 3
    assert body["error"] == "The run stopped at its limit of 3 model calls"
    assert body["response"] == STEP_LIMIT_REPLY
    run = await runtime.store.get_object(ws.account_id, AGENT_RUN, body["runId"])
    assert run is not None and run.status == "failed" and run.data["response"] == STEP_LIMIT_REPLY
    # in stream mode the reply arrives as tokens, then the one terminal error event
    res = await client.post(
        URL, params={"stream": "true"}, json={"message": "loop"}, headers=ws.headers
    )
    got = parse_events(res.text)
    names = [name for name, _ in got]
    assert names == ["open"] + ["tool_call"] * 3 + ["token"] + ["error"]
    assert got[-2][1]["text"] == STEP_LIMIT_REPLY
    assert got[-1][1]["message"] == "The run stopped at its limit of 3 model calls"


class Mixed:
    """Three steps of tool calls (a failing one among them), then more than the limit allows."""

    name = "mixed"

    async def step(self, turns: Sequence[Turn], tools: Sequence[ToolSpec], emit: TextSink) -> Step:
        n = sum(1 for t in turns if t.role == "assistant")
        if n == 0:
            await emit("Working on it.")
            return Step(
                (
                    ToolCall(
                        "a", "email.send", {"to": ["bob@example.com"], "subject": "Hi", "body": "x"}
                    ),
                ),
                "Working on it.",
            )
        if n == 1:
            return Step((ToolCall("b", "reminders.create", {"text": "call Bob"}),))
        return Step((ToolCall("c", "reminders.list", {}),))


async def test_step_limit_reply_covers_each_outcome(
    runtime: Runtime, client: httpx.AsyncClient, ws: Workspace
) -> None:
    install_runtime(runtime, Mixed(), agent_max_steps=3)
    body = (await client.post(URL, json={"message": "go"}, headers=ws.headers)).json()
    assert body["success"] is False
    (approval,) = body["pendingApprovals"]
    text = body["response"]
    assert text.startswith("Working on it.\n\nI stopped before finishing"), text
    assert f"awaits approval (id {approval})." in text
    assert "Could not complete reminders.create: Invalid arguments for reminders.create" in text
    assert text.endswith("Found 0 reminder(s).")


async def test_json_disconnect_aborts_the_run(runtime: Runtime) -> None:
    ws = await make_workspace(runtime)
    stalled = Stalled()
    ended, finished = on_end(install_runtime(runtime, stalled))
    async with served(runtime) as client:
        host, port = client.base_url.host, client.base_url.port
        assert port is not None
        sock = await trio.open_tcp_stream(host, port)
        await sock.send_all(raw_request(ws, b'{"message": "wait"}', query=b""))
        with trio.fail_after(5):
            await stalled.waiting.wait()
        disconnected = trio.current_time()
        await sock.aclose()
        with trio.fail_after(5):
            await finished.wait()
    ((run_id, status, at),) = ended
    assert status == "aborted" and stalled.cancelled
    assert 0 <= at - disconnected < 0.1, f"disconnect-to-cancel took {at - disconnected:.3f} s"
    run = await runtime.store.get_object(ws.account_id, AGENT_RUN, run_id)
    assert run is not None and run.status == "aborted"


class SlowLLM:
    """A chat-completions server that streams one chunk of an answer, then goes silent until
    its client hangs up."""

    def __init__(self) -> None:
        self.streaming = trio.Event()
        self.hung_up = trio.Event()
        self.port = 0

    async def handle(self, stream: trio.SocketStream) -> None:
        data = b""
        while b"\r\n\r\n" not in data:
            data += await stream.receive_some(65536)
        head, _, body = data.partition(b"\r\n\r\n")
        length = re.search(rb"(?i)content-length: *(\d+)", head)
        assert length is not None
        while len(body) < int(length.group(1)):
            body += await stream.receive_some(65536)
        chunk = b'data: {"choices": [{"delta": {"content": "Hel"}}]}\n\n'
        await stream.send_all(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n" + b"%x\r\n%s\r\n" % (len(chunk), chunk)
        )
        self.streaming.set()
        try:
            while await stream.receive_some(65536):
                pass
        except trio.BrokenResourceError:
            pass
        self.hung_up.set()


@asynccontextmanager
async def slow_llm() -> AsyncIterator[SlowLLM]:
    llm = SlowLLM()
    async with trio.open_nursery() as nursery:
        listeners = await nursery.start(partial(trio.serve_tcp, llm.handle, 0, host="127.0.0.1"))
        llm.port = listeners[0].socket.getsockname()[1]
        yield llm
        nursery.cancel_scope.cancel()


async def test_disconnect_cancels_a_provider_mid_stream(runtime: Runtime) -> None:
    ws = await make_workspace(runtime)
    async with slow_llm() as llm:
        provider = OpenAIProvider(api_key="k", base_url=f"http://127.0.0.1:{llm.port}/v1")
        ended, finished = on_end(install_runtime(runtime, provider))
        async with served(runtime) as client:
            host, port = client.base_url.host, client.base_url.port
            assert port is not None
            sock = await trio.open_tcp_stream(host, port)
            await sock.send_all(raw_request(ws, b'{"message": "hello"}'))
            received = b""
            with trio.fail_after(5):
                while b"event: token" not in received:
                    received += await sock.receive_some(65536)
                await llm.streaming.wait()
            assert not llm.hung_up.is_set()
            disconnected = trio.current_time()
            await sock.aclose()
            with trio.fail_after(5):
                await finished.wait()
                await llm.hung_up.wait()  # the provider's request to the model was closed
    ((run_id, status, at),) = ended
    assert status == "aborted"
    assert 0 <= at - disconnected < 0.1, f"disconnect-to-cancel took {at - disconnected:.3f} s"
    assert b'data: {"text":"Hel"}' in received
    run = await runtime.store.get_object(ws.account_id, AGENT_RUN, run_id)
    assert run is not None and run.status == "aborted"
    assert run.data["steps"] == 1 and run.data["response"] == "Hel"


async def test_agent_activity_in_the_feeds(
    runtime: Runtime, client: httpx.AsyncClient, ws: Workspace
) -> None:
    created = await client.post(
        URL, json={"message": "create a contact named Ada Lovelace"}, headers=ws.headers
    )
    create_run = created.json()["runId"]
    asked = await client.post(
        URL, json={"message": "send an email to bob@example.com about Pricing"}, headers=ws.headers
    )
    send_run = asked.json()["runId"]
    (approval,) = asked.json()["pendingApprovals"]
    admin = await add_user(runtime, ws, "admin")
    decided = await client.post(f"/api/approvals/{approval}/approve", headers=admin.headers)
    assert decided.status_code == 200, decided.text
    res = await client.get(
        "/v1/activity",
        params={"activityTypes": "agent_tool_call,approval_requested,approval_decided"},
        headers=ws.headers,
    )
    assert res.status_code == 200
    entries = [(e["activityType"], e["data"]) for e in res.json()["activities"]][::-1]
    # the create's look-up for a contact of that name is a tool call too
    entries = [(k, d) for k, d in entries if d.get("tool") != "records.search"]
    assert [kind for kind, _ in entries] == [
        "agent_tool_call",
        "approval_requested",
        "approval_decided",
        "agent_tool_call",
    ]
    (_, create), (_, requested), (_, decision), (_, sent) = entries
    assert create["tool"] == "records.create" and create["runId"] == create_run
    assert "Ada Lovelace" in create["summary"]
    assert requested == {**requested, "approvalId": approval, "tool": "email.send"}
    assert requested["runId"] == send_run
    assert decision == {**decision, "approvalId": approval, "decision": "approved"}
    assert decision["runId"] == send_run
    assert sent == {**sent, "tool": "email.send", "approvalId": approval, "runId": send_run}
    # the approver decided; the call ran with the authority of the key that asked for it
    activities = res.json()["activities"][::-1]
    users = [e["userId"] for e in activities if e["data"].get("tool") != "records.search"]
    assert users == [ws.owner_id, ws.owner_id, admin.owner_id, ws.owner_id]
