"""POST /v1/agents/messages in JSON mode: the Agent response, run records, errors."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import httpx

from fieldhouse.agents.contract import ToolCall, ToolSpec
from fieldhouse.agents.providers.base import ProviderError, Step, TextSink, Turn
from fieldhouse.agents.providers.openai import OpenAIProvider
from fieldhouse.agents.run_writes import AGENT_RUN, CreateAgent
from fieldhouse.runtime import Runtime
from tests.agents.replay import Replay, recorded
from tests.conftest import Workspace, add_user
from tests.http.agents_support import install_runtime

URL = "/v1/agents/messages"


async def chat(client: httpx.AsyncClient, ws: Workspace, message: str, **extra: Any) -> Any:
    res = await client.post(URL, json={"message": message, **extra}, headers=ws.headers)
    assert res.status_code == 200, res.text
    return res.json()


async def test_create_contact_stores_the_run(
    runtime: Runtime, client: httpx.AsyncClient, ws: Workspace
) -> None:
    body = await chat(client, ws, "create a contact named Ada Lovelace with email ada@example.com")
    assert body["success"] is True and body["error"] == ""
    assert body["toolCalls"] == 2  # a look-up for a contact of that name, then the create
    assert isinstance(body["durationMs"], int)
    assert "Created contacts record Ada Lovelace." in body["response"]
    listed = await client.get(
        "/v1/modules/contacts/records", params={"search": "Lovelace"}, headers=ws.headers
    )
    assert listed.json()["total"] == 1
    run = await runtime.store.get_object(ws.account_id, AGENT_RUN, body["runId"])
    assert run is not None and run.status == "succeeded"
    assert run.data["userId"] == ws.owner_id and run.data["agentId"] is None
    assert run.data["steps"] == 3 and run.data["response"] == body["response"]
    lookup, call = run.data["toolCalls"]
    assert lookup["tool"] == "records.search" and lookup["status"] == "ok"
    assert call["tool"] == "records.create" and call["status"] == "ok"
    assert call["arguments"]["fields"]["emails"] == ["ada@example.com"]
    assert call["result"]["record"]["displayName"] == "Ada Lovelace"
    feed = await client.get("/v1/activity", headers=ws.headers)
    kinds = [a["activityType"] for a in feed.json()["activities"]]
    assert "agent_tool_call" in kinds


async def test_find_deals_answers_from_the_results(
    client: httpx.AsyncClient, ws: Workspace
) -> None:
    await chat(client, ws, "create a deal named Big Deal worth 25000 in stage won")
    await chat(client, ws, "create a deal named Small Deal worth 500 in stage won")
    await chat(client, ws, "create a deal named Open Deal worth 90000 in stage proposal")
    body = await chat(client, ws, "find deals over 10000 in stage won")
    assert body["success"] is True and body["toolCalls"] == 1
    assert body["response"] == "Found 1 deals record(s): Big Deal."


async def test_external_tool_waits_for_approval(client: httpx.AsyncClient, ws: Workspace) -> None:
    body = await chat(client, ws, "send an email to bob@example.com about Pricing")
    assert body["success"] is True
    (approval,) = body["pendingApprovals"]
    assert f"awaits approval (id {approval})" in body["response"]
    assert "bob@example.com" in body["response"]


async def test_unknown_request_gets_help(client: httpx.AsyncClient, ws: Workspace) -> None:
    body = await chat(client, ws, "what is the meaning of life?")
    assert body["toolCalls"] == 0 and body["success"] is True
    assert body["response"].startswith(
        "Sorry, I did not understand that, so I did nothing. I can help"
    )


async def test_named_agent_and_unknown_agent(
    runtime: Runtime, client: httpx.AsyncClient, ws: Workspace
) -> None:
    agent_id = await runtime.actors.ask(CreateAgent("Sales", "Be terse.", by=ws.system))
    body = await chat(client, ws, "list my reminders", agentId=agent_id)
    assert body["agentId"] == agent_id and body["toolCalls"] == 1
    run = await runtime.store.get_object(ws.account_id, AGENT_RUN, body["runId"])
    assert run is not None and run.data["agentId"] == agent_id
    missing = await client.post(
        URL,
        json={"message": "hi", "agentId": "00000000-0000-4000-8000-000000000000"},
        headers=ws.headers,
    )
    assert missing.status_code == 404
    assert missing.json()["error"]["code"] == "not_found"


async def test_bad_requests(client: httpx.AsyncClient, ws: Workspace) -> None:
    for params in ({"stream": "false"}, {"stream": "1"}, {"stream": ""}):
        res = await client.post(URL, params=params, json={"message": "hi"}, headers=ws.headers)
        assert res.status_code == 400, params
        assert res.json()["error"]["code"] == "validation_error"
    for body in (
        {},
        {"message": ""},
        {"message": "x" * 10_001},
        {"message": "hi", "extra": 1},
        {"message": "hi", "agentId": "nope"},
        {"message": 5},
    ):
        res = await client.post(URL, json=body, headers=ws.headers)
        assert res.status_code == 400, body
        error = res.json()["error"]
        assert error["code"] == "validation_error" and error["issues"], body
    ok = await client.post(URL, json={"message": "x" * 10_000}, headers=ws.headers)
    assert ok.status_code == 200


async def test_needs_agents_write(
    runtime: Runtime, client: httpx.AsyncClient, ws: Workspace
) -> None:
    reader = await add_user(runtime, ws, "member", ("workspace:read", "records:write"))
    res = await client.post(URL, json={"message": "hi"}, headers=reader.headers)
    assert res.status_code == 403
    assert res.json()["error"]["code"] == "forbidden"
    viewer = await add_user(runtime, ws, "viewer")
    res = await client.post(URL, json={"message": "hi"}, headers=viewer.headers)
    assert res.status_code == 403
    unauth = await client.post(URL, json={"message": "hi"})
    assert unauth.status_code == 401


class Looping:
    """A provider that never stops calling tools."""

    name = "looping"

    async def step(self, turns: Sequence[Turn], tools: Sequence[ToolSpec], emit: TextSink) -> Step:
        return Step((ToolCall(f"c{len(turns)}", "reminders.list", {}),))


class Broken:
    name = "broken"

    async def step(self, turns: Sequence[Turn], tools: Sequence[ToolSpec], emit: TextSink) -> Step:
        raise ProviderError("The openai provider is rate limiting requests (HTTP 429)")


async def test_step_limit_and_provider_errors(
    runtime: Runtime, client: httpx.AsyncClient, ws: Workspace
) -> None:
    install_runtime(runtime, Looping(), agent_max_steps=3)
    body = await chat(client, ws, "loop")
    assert body["success"] is False and body["toolCalls"] == 3
    assert "limit of 3 model calls" in body["error"]
    run = await runtime.store.get_object(ws.account_id, AGENT_RUN, body["runId"])
    assert run is not None and run.status == "failed" and run.data["steps"] == 3
    install_runtime(runtime, Broken())
    body = await chat(client, ws, "hello")
    assert body["success"] is False and "HTTP 429" in body["error"]
    run = await runtime.store.get_object(ws.account_id, AGENT_RUN, body["runId"])
    assert run is not None and run.status == "failed"


async def test_planner_requests_end_to_end(client: httpx.AsyncClient, ws: Workspace) -> None:
    body = await chat(client, ws, "remind me to call Bob tomorrow at 9")
    assert body["toolCalls"] == 1 and body["response"].startswith("Set a reminder 'call Bob'")
    body = await chat(client, ws, "draft an email to bob@example.com about Pricing saying Hi")
    assert body["response"] == "Drafted the e-mail 'Pricing' to bob@example.com."
    body = await chat(client, ws, "post on linkedin: We are hiring")
    assert body["toolCalls"] == 2 and len(body["pendingApprovals"]) == 1
    assert body["response"].startswith("Drafted a linkedin post 'We are hiring'.")
    body = await chat(client, ws, "publish a landing page for Spring Launch")
    assert body["toolCalls"] == 2 and body["success"] is True
    assert "Created the landing page 'spring-launch'" in body["response"]
    body = await chat(
        client,
        ws,
        "plan outreach to ann@example.com, bob@example.com about Spring starting tomorrow",
    )
    assert body["toolCalls"] == 2 and body["success"] is True
    await chat(client, ws, "create a deal named Big Deal worth 25000 in stage lead")
    body = await chat(client, ws, "update deal Big Deal stage to won")
    assert body["toolCalls"] == 2
    assert body["response"] == "Found 1 deals record(s): Big Deal. Updated deals record Big Deal."


async def test_openai_provider_through_http(
    runtime: Runtime, client: httpx.AsyncClient, ws: Workspace
) -> None:
    replay = Replay((200, recorded("openai_tool_calls.sse")), (200, recorded("openai_text.sse")))
    llm = OpenAIProvider(api_key="k", base_url="http://llm.test/v1", transport=replay.transport)
    install_runtime(runtime, llm)
    body = await chat(client, ws, "add Ada Lovelace, and what reminders do I have?")
    assert body == {**body, "success": True, "toolCalls": 2}
    assert body["response"] == "Created the contact Ada Lovelace."
    messages = replay.body(1)["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "tool", "tool"]
    assert "Created contacts record Ada Lovelace." in messages[3]["content"]
    listed = await client.get(
        "/v1/modules/contacts/records", params={"search": "Lovelace"}, headers=ws.headers
    )
    assert listed.json()["total"] == 1


async def test_the_accept_header_is_read_as_media_ranges(
    client: httpx.AsyncClient, ws: Workspace
) -> None:
    """Issue 32 item 5: Accept was matched as a substring, so a client that refused the event
    stream (q=0) or named another type containing its name got one."""
    body = {"message": "show my reminders"}
    for accept, streamed in (
        ("application/json, text/event-stream;q=0", False),
        ("application/x-text/event-stream-log", False),
        ("text/event-stream;q=0.4, application/json;q=0.9", False),
        ("text/event-stream", True),
        ("text/html;q=0.9, TEXT/EVENT-STREAM; q=0.5", True),
    ):
        res = await client.post(URL, json=body, headers={**ws.headers, "Accept": accept})
        assert res.status_code == 200, res.text
        kind = res.headers["content-type"]
        assert kind.startswith("text/event-stream") is streamed, (accept, kind)
