"""Upstream model servers that misbehave, scripted on loopback (issue 13 item 8): an echoed API
key never reaches the client or a stored run; an upstream that ignores streaming is read whole,
and an empty answer is never a success; ``<think>`` reasoning is never streamed."""

from __future__ import annotations

import json

import httpx
import pytest

from fieldhouse.agents.providers.anthropic import AnthropicProvider
from fieldhouse.agents.providers.base import ProviderError, ThinkFilter, Turn, redact
from fieldhouse.agents.providers.openai import OpenAIProvider
from fieldhouse.runtime import Runtime
from tests.agents.replay import SPECS, Collect
from tests.agents.scripted import scripted, sse
from tests.conftest import Workspace
from tests.http.agents_support import install_runtime
from tests.http.routes.test_agents_ends import parse_events

KEY = "sk-live-5ecret-KEY-0123456789"
LEAK = json.dumps({"error": {"message": f"Incorrect API key provided: {KEY}"}}).encode()


def chunk(text: str) -> str:
    return json.dumps({"choices": [{"delta": {"content": text}}]})


async def test_an_echoed_key_never_leaves_the_server(
    runtime: Runtime, client: httpx.AsyncClient, ws: Workspace
) -> None:
    async with scripted(
        (401, "application/json", LEAK),
        (200, "application/json", LEAK),
        sse(json.dumps({"error": {"message": f"bad key {KEY}"}})),
    ) as upstream:
        install_runtime(runtime, OpenAIProvider(api_key=KEY, base_url=upstream.url))
        answers = []
        for _ in range(3):
            res = await client.post(
                "/v1/agents/messages?stream=true", json={"message": "hi"}, headers=ws.headers
            )
            answers.append(res.text)
        assert all(KEY not in text and "5ecret" not in text for text in answers)
        (name, error) = parse_events(answers[0])[-1]
        assert name == "error" and error["message"] == (
            "The openai provider rejected the API key (HTTP 401); check FIELDHOUSE_AGENT_API_KEY"
        )
        assert parse_events(answers[1])[-1][1]["message"] == (
            "The openai provider sent a malformed answer"
        )
        assert parse_events(answers[2])[-1][1]["message"] == (
            "The openai provider failed while answering; retry later"
        )
        assert f"Bearer {KEY}".encode() in upstream.requests[0]  # it was sent upstream only
    runs = await client.get("/v1/agents/runs", headers=ws.headers)
    assert len(runs.json()["runs"]) == 3
    assert KEY not in runs.text and "5ecret" not in runs.text


async def test_an_upstream_that_ignores_streaming() -> None:
    whole = {"choices": [{"message": {"role": "assistant", "content": "Hello there"}}]}
    empty = {"choices": [{"message": {"role": "assistant", "content": ""}}]}
    async with scripted(
        (200, "application/json", json.dumps(whole).encode()),
        (200, "application/json", json.dumps(empty).encode()),
    ) as upstream:
        provider = OpenAIProvider(api_key=KEY, base_url=upstream.url)
        got = Collect()
        step = await provider.step([Turn("user", "hi")], SPECS, got)
        assert step.text == "Hello there" and got.chunks == ["Hello there"]
        step = await provider.step([Turn("user", "hi")], SPECS, Collect())
        assert step.final and step.text == ""


async def test_an_empty_answer_is_never_a_success(
    runtime: Runtime, client: httpx.AsyncClient, ws: Workspace
) -> None:
    empty = {"content": [{"type": "text", "text": ""}]}
    async with scripted((200, "application/json", json.dumps(empty).encode()), sse()) as upstream:
        install_runtime(runtime, AnthropicProvider(api_key=KEY, base_url=upstream.url))
        for _ in range(2):
            res = await client.post(
                "/v1/agents/messages", json={"message": "hi"}, headers=ws.headers
            )
            body = res.json()
            assert body["success"] is False
            assert body["error"] == "The model returned an empty answer"


async def test_think_is_never_streamed(
    runtime: Runtime, client: httpx.AsyncClient, ws: Workspace
) -> None:
    parts = ["<thi", "nk>the user wants", " a secret plan</th", "ink>Hel", "lo <", "b>Ada</b>"]
    async with scripted(sse(*(chunk(p) for p in parts), "[DONE]")) as upstream:
        install_runtime(runtime, OpenAIProvider(api_key=KEY, base_url=upstream.url))
        res = await client.post(
            "/v1/agents/messages?stream=true", json={"message": "hi"}, headers=ws.headers
        )
    events = parse_events(res.text)
    tokens = "".join(d["text"] for n, d in events if n == "token")
    assert tokens == "Hello <b>Ada</b>"
    assert events[-1][0] == "done" and events[-1][1]["response"] == "Hello <b>Ada</b>"
    assert "secret plan" not in res.text and "think" not in res.text


@pytest.mark.parametrize(
    ("parts", "shown"),
    [
        (["a<think>b</think>c"], "ac"),
        (["<", "t", "h", "i", "n", "k", ">", "x", "<", "/think>", "y"], "y"),
        (["a <thin"], "a <thin"),
        (["<think>never closed"], ""),
        (["2 < 3 and <b>"], "2 < 3 and <b>"),
    ],
)
def test_think_filter(parts: list[str], shown: str) -> None:
    think = ThinkFilter()
    out = "".join(think.feed(p) for p in parts) + think.flush()
    assert out == shown == "".join(think.shown)


def test_redact() -> None:
    text = f'key {KEY}; Authorization: Bearer abc.def-ghi; "api_key": "zzz123"; other'
    clean = redact(text, "zzz123")
    assert KEY not in clean and "abc.def" not in clean and "zzz123" not in clean
    assert clean.endswith("other")


async def test_provider_error_carries_no_upstream_text() -> None:
    async with scripted((500, "application/json", LEAK)) as upstream:
        with pytest.raises(ProviderError) as caught:
            await AnthropicProvider(api_key=KEY, base_url=upstream.url).step([], SPECS, Collect())
    assert caught.value.message == "The anthropic provider failed (HTTP 500); retry later"
