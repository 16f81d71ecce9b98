"""The agent event stream on a real served socket: event order, headers, keepalives, errors,
and a client disconnect cancelling the run within 100 ms."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from functools import partial
from typing import Any

import httpx
import orjson
import trio

from fieldhouse.agents.contract import ToolCall, ToolContext, ToolExecutor, ToolOutcome, ToolSpec
from fieldhouse.agents.providers.base import ProviderError, Step, TextSink, Turn
from fieldhouse.agents.registry import build_executor
from fieldhouse.agents.run_writes import AGENT_RUN
from fieldhouse.http.wire.server import serve_app
from fieldhouse.runtime import Runtime
from tests.conftest import Workspace, make_workspace
from tests.http.agents_support import install_runtime

URL = "/v1/agents/messages"
Event = tuple[str, Any]


@asynccontextmanager
async def served(runtime: Runtime) -> AsyncIterator[httpx.AsyncClient]:
    stop = trio.Event()
    async with trio.open_nursery() as nursery:
        binds = await nursery.start(partial(serve_app, runtime, shutdown_trigger=stop.wait))
        async with httpx.AsyncClient(base_url=binds[0], timeout=10) as client:
            yield client
        stop.set()


async def events(response: httpx.Response) -> AsyncIterator[Event]:
    """(name, data) per event; ("keepalive", None) per comment line."""
    name, data = "", ""
    async for line in response.aiter_lines():
        if line.startswith(":"):
            yield "keepalive", None
        elif line.startswith("event: "):
            name = line[7:]
        elif line.startswith("data: "):
            data = line[6:]
        elif not line and name:
            yield name, orjson.loads(data)
            name, data = "", ""


async def stream_all(client: httpx.AsyncClient, ws: Workspace, **kw: Any) -> list[Event]:
    kw.setdefault("headers", ws.headers)
    async with client.stream("POST", URL, **kw) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        assert response.headers["cache-control"] == "no-cache"
        assert response.headers["x-accel-buffering"] == "no"
        return [event async for event in events(response)]


def check_shape(got: list[Event]) -> dict[str, Any]:
    """open -> (tool_call approval_required?)* -> token* -> exactly one done, whose response
    is the tokens."""
    names = [name for name, _ in got if name not in ("keepalive", "approval_required")]
    assert names[0] == "open" and names[-1] == "done" and names.count("done") == 1
    assert "error" not in names
    body = names[1:-1]
    tools = [n for n in body if n == "tool_call"]
    assert body == tools + ["token"] * (len(body) - len(tools))
    done = got[-1][1]
    assert done["response"] == "".join(d["text"] for n, d in got if n == "token")
    assert done["toolCalls"] == len(tools)
    return dict(done)


async def test_stream_event_order_and_approval(runtime: Runtime) -> None:
    ws = await make_workspace(runtime)
    async with served(runtime) as client:
        message = "create a contact named Ada Lovelace with email ada@example.com"
        got = await stream_all(client, ws, params={"stream": "true"}, json={"message": message})
        done = check_shape(got)
        assert got[0] == ("open", {"agentId": None, "runId": done["runId"]})
        assert (
            "tool_call",
            {"tool": "records.create", "label": "Creating contacts record 'Ada Lovelace'"},
        ) in got
        assert done["success"] is True and "Ada Lovelace" in done["response"]
        # raw tool output never goes out: no record JSON in any event
        assert all("record" not in (data or {}) for name, data in got if name != "done")
        # the Accept header selects the stream too
        got = await stream_all(
            client,
            ws,
            headers={**ws.headers, "Accept": "text/event-stream"},
            json={"message": "send an email to bob@example.com about Pricing"},
        )
        done = check_shape(got)
        (approval,) = done["pendingApprovals"]
        assert f"awaits approval (id {approval})" in done["response"]
        names = [n for n, _ in got if n != "keepalive"]
        assert names[1:3] == ["tool_call", "approval_required"]
        (required,) = [d for n, d in got if n == "approval_required"]
        assert required == {
            "approvalId": approval,
            "tool": "email.send",
            "description": f"Sending the e-mail 'Pricing' to bob@example.com awaits approval "
            f"(id {approval}).",
            "preview": {"to": ["bob@example.com"], "subject": "Pricing", "body": "Pricing"},
        }
        assert [d["tool"] for n, d in got if n == "tool_call"] == ["email.send"]
        run = await runtime.store.get_object(ws.account_id, AGENT_RUN, done["runId"])
        assert run is not None and run.status == "waiting"  # resumed once it is decided


class Gate:
    """A provider that waits for the test before answering (so silence can be observed)."""

    name = "gated"

    def __init__(self) -> None:
        self.release = trio.Event()

    async def step(self, turns: Sequence[Turn], tools: Sequence[ToolSpec], emit: TextSink) -> Step:
        await self.release.wait()
        await emit("Hello ")
        await emit("there.")
        return Step((), "Hello there.")


async def test_keepalives_and_no_response_timeout(runtime: Runtime) -> None:
    ws = await make_workspace(runtime)
    gate = Gate()
    install_runtime(runtime, gate, agent_keepalive_seconds=0.02)
    runtime.app.response_timeout = 0.1
    async with served(runtime) as client:
        got: list[Event] = []
        async with client.stream(
            "POST", URL, params={"stream": "true"}, headers=ws.headers, json={"message": "hi"}
        ) as response:
            async for event in events(response):
                got.append(event)
                if got.count(("keepalive", None)) == 8:  # > 0.1 s of silence
                    gate.release.set()
        assert got[0][0] == "open" and got[1] == ("keepalive", None)
        done = check_shape(got)
        assert done["response"] == "Hello there."


class Failing:
    name = "failing"

    async def step(self, turns: Sequence[Turn], tools: Sequence[ToolSpec], emit: TextSink) -> Step:
        raise ProviderError("The anthropic provider rejected the API key (HTTP 401)")


async def test_stream_ends_with_error_event(runtime: Runtime) -> None:
    ws = await make_workspace(runtime)
    install_runtime(runtime, Failing())
    async with served(runtime) as client:
        got = await stream_all(client, ws, params={"stream": "true"}, json={"message": "hi"})
    assert [n for n, _ in got] == ["open", "error"]
    assert "HTTP 401" in got[-1][1]["message"]


class Blocking:
    """The real executor, except that ``reminders.list`` blocks until cancelled."""

    def __init__(self, inner: ToolExecutor) -> None:
        self.inner = inner
        self.started: list[str] = []
        self.blocked = trio.Event()

    def specs(self) -> list[ToolSpec]:
        return self.inner.specs()

    def label(self, call: ToolCall) -> str:
        return self.inner.label(call)

    async def execute(self, call: ToolCall, ctx: ToolContext) -> ToolOutcome:
        self.started.append(call.name)
        if call.name == "reminders.list":
            self.blocked.set()
            await trio.sleep_forever()
        return await self.inner.execute(call, ctx)


class TwoCalls:
    name = "two-calls"

    async def step(self, turns: Sequence[Turn], tools: Sequence[ToolSpec], emit: TextSink) -> Step:
        return Step(
            (
                ToolCall("a", "reminders.list", {}),
                ToolCall(
                    "b", "email.draft", {"to": ["x@example.com"], "subject": "s", "body": "b"}
                ),
            )
        )


async def test_disconnect_cancels_the_run_within_100_ms(runtime: Runtime) -> None:
    ws = await make_workspace(runtime)
    blocking = Blocking(build_executor())
    agents = install_runtime(runtime, TwoCalls(), blocking)
    ended: list[tuple[str, str, float]] = []
    finished = trio.Event()

    def on_end(run_id: str, status: str, at: float) -> None:
        ended.append((run_id, status, at))
        finished.set()

    agents.on_end.append(on_end)
    async with served(runtime) as client:
        host, port = client.base_url.host, client.base_url.port
        assert port is not None
        sock = await trio.open_tcp_stream(host, port)
        await sock.send_all(raw_request(ws, b'{"message": "go"}'))
        received = b""
        with trio.fail_after(5):
            while b"event: tool_call" not in received:
                received += await sock.receive_some(65536)
            await blocking.blocked.wait()
        disconnected = trio.current_time()
        await sock.aclose()
        with trio.fail_after(5):
            await finished.wait()
    (run_id, status, at) = ended[0]
    latency = at - disconnected
    assert status == "aborted"
    assert 0 <= latency < 0.1, f"disconnect-to-cancel took {latency * 1000:.1f} ms"
    head, _, body = received.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200")
    assert body.index(b"event: open") < body.index(b"event: tool_call")
    assert blocking.started == ["reminders.list"]  # the second tool never started
    run = await runtime.store.get_object(ws.account_id, AGENT_RUN, run_id)
    assert run is not None and run.status == "aborted"
    # the call in flight is on the record, marked aborted
    ((entry),) = run.data["toolCalls"]
    assert entry["tool"] == "reminders.list" and entry["status"] == "aborted"


def raw_request(ws: Workspace, body: bytes, query: bytes = b"?stream=true") -> bytes:
    return (
        b"POST /v1/agents/messages" + query + b" HTTP/1.1\r\nHost: fieldhouse\r\n"
        b"Authorization: Bearer " + ws.key.encode() + b"\r\n"
        b"Content-Type: application/json\r\nContent-Length: "
        + str(len(body)).encode()
        + b"\r\n\r\n"
        + body
    )
