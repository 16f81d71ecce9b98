"""The OpenAI-compatible provider against recorded chat-completion streams."""

from __future__ import annotations

import httpx
import pytest

from fieldhouse.agents.providers.base import ProviderError, Turn
from fieldhouse.agents.providers.openai import OpenAIProvider
from tests.agents.replay import SPECS, Collect, Replay, conversation, raising, recorded


def provider(transport: httpx.AsyncBaseTransport) -> OpenAIProvider:
    return OpenAIProvider(
        api_key="sk-test-secret",
        model="gpt-4o-mini",
        base_url="http://llm.test/v1/",
        timeout=5,
        transport=transport,
    )


async def test_tool_call_arguments_split_across_chunks() -> None:
    replay = Replay((200, recorded("openai_tool_calls.sse")))
    emit = Collect()
    step = await provider(replay.transport).step([Turn("user", "add Ada")], SPECS, emit)
    assert not step.final and emit.chunks == []
    first, second = step.tool_calls
    assert first.call_id == "call_abc" and first.name == "records.create"
    assert first.arguments == {
        "module": "contacts",
        "displayName": "Ada Lovelace",
        "fields": {"first-name": "Ada", "last-name": "Lovelace", "emails": ["ada@example.com"]},
    }
    assert (second.call_id, second.name, second.arguments) == ("call_def", "reminders.list", {})
    request = replay.requests[0]
    assert str(request.url) == "http://llm.test/v1/chat/completions"
    assert request.headers["Authorization"] == "Bearer sk-test-secret"
    body = replay.body(0)
    assert body["stream"] is True and body["model"] == "gpt-4o-mini"
    # tool names go out without dots (the API's name pattern) and come back as ours
    assert [t["function"]["name"] for t in body["tools"]] == ["records__create", "reminders__list"]


async def test_text_streams_and_tool_results_go_back() -> None:
    replay = Replay((200, recorded("openai_text.sse")))
    emit = Collect()
    step = await provider(replay.transport).step(conversation(), SPECS, emit)
    assert step.final and step.text == "Created the contact Ada Lovelace."
    assert emit.chunks == ["Created the contact", " Ada Lovelace."]
    messages = replay.body(0)["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "tool"]
    assert messages[2]["tool_calls"][0]["function"]["name"] == "records__create"
    assert messages[3]["tool_call_id"] == "call_abc"
    assert "Created contacts record Ada." in messages[3]["content"]


@pytest.mark.parametrize(
    ("status", "words"),
    [
        (401, "rejected the API key"),
        (403, "rejected the API key"),
        (429, "rate limiting"),
        (500, "failed (HTTP 500)"),
        (503, "failed (HTTP 503)"),
        (400, "refused the request"),
    ],
)
async def test_upstream_errors(status: int, words: str) -> None:
    body = b'{"error": {"message": "nope", "type": "x"}}'
    replay = Replay((status, body))
    with pytest.raises(ProviderError) as caught:
        await provider(replay.transport).step([Turn("user", "hi")], SPECS, Collect())
    assert words in caught.value.message and caught.value.status == status
    assert "sk-test-secret" not in caught.value.message


async def test_timeouts_and_unreachable() -> None:
    with pytest.raises(ProviderError, match="did not answer in time"):
        await provider(raising(httpx.ReadTimeout("slow"))).step([], SPECS, Collect())
    with pytest.raises(ProviderError, match="Could not reach the openai provider"):
        await provider(raising(httpx.ConnectError("refused"))).step([], SPECS, Collect())


async def test_error_inside_the_stream() -> None:
    replay = Replay((200, b'data: {"error": {"message": "context too long"}}\n\n'))
    with pytest.raises(ProviderError) as caught:
        await provider(replay.transport).step([], SPECS, Collect())
    # what the upstream said never reaches the client: one fixed message
    assert caught.value.message == "The openai provider failed while answering; retry later"
    replay = Replay((200, b"data: {not json\n\n"))
    with pytest.raises(ProviderError, match="malformed"):
        await provider(replay.transport).step([], SPECS, Collect())


async def test_a_key_of_any_shape_echoed_by_the_upstream_is_never_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Issue 32 item 5: only keys shaped like ``sk-...`` were redacted from what the upstream
    said; the provider's own key is redacted whatever its shape."""
    key = "gw_7f3a9c2e4b1d8a6f"
    refused = f'{{"error": {{"message": "Key {key} is unknown"}}}}'.encode()
    midstream = f'data: {{"error": {{"message": "bad key {key}"}}}}\n\n'.encode()
    for answer in ((401, refused), (200, midstream)):
        odd = OpenAIProvider(api_key=key, timeout=5, transport=Replay(answer).transport)
        with caplog.at_level("WARNING", logger="fieldhouse.agents"), pytest.raises(ProviderError):
            await odd.step([Turn("user", "hi")], SPECS, Collect())
    assert caplog.text.count("[redacted]") == 2 and key not in caplog.text
