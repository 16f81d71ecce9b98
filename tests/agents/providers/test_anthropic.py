"""The Anthropic Messages provider against recorded streams."""

from __future__ import annotations

import httpx
import pytest

from fieldhouse.agents.providers.anthropic import AnthropicProvider
from fieldhouse.agents.providers.base import ProviderError, Turn
from tests.agents.replay import SPECS, Collect, Replay, conversation, raising, recorded


def provider(transport: httpx.AsyncBaseTransport) -> AnthropicProvider:
    return AnthropicProvider(
        api_key="sk-ant-secret", base_url="http://claude.test", timeout=5, transport=transport
    )


async def test_tool_use_input_split_across_chunks() -> None:
    replay = Replay((200, recorded("anthropic_tool_use.sse")))
    emit = Collect()
    step = await provider(replay.transport).step(conversation()[:2], SPECS, emit)
    (call,) = step.tool_calls
    assert call.call_id == "toolu_01" and call.name == "records.create"
    assert call.arguments == {"module": "contacts", "displayName": "Ada Lovelace"}
    # the text block is user-facing; the thinking block is raw reasoning and never emitted
    assert emit.chunks == ["Creating ", "the contact. "]
    assert "SECRET" not in step.text
    request = replay.requests[0]
    assert str(request.url) == "http://claude.test/v1/messages"
    assert request.headers["x-api-key"] == "sk-ant-secret"
    assert request.headers["anthropic-version"] == "2023-06-01"
    body = replay.body(0)
    assert body["system"] == "Be brief." and body["stream"] is True
    assert body["messages"] == [{"role": "user", "content": "add Ada"}]
    assert [t["name"] for t in body["tools"]] == ["records__create", "reminders__list"]


async def test_text_answer_and_tool_results_in_a_user_turn() -> None:
    replay = Replay((200, recorded("anthropic_text.sse")))
    emit = Collect()
    step = await provider(replay.transport).step(conversation(), SPECS, emit)
    assert step.final and step.text == "Done: Ada Lovelace is in your contacts."
    assert "".join(emit.chunks) == step.text
    messages = replay.body(0)["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "user"]
    assert messages[1]["content"][0]["type"] == "tool_use"
    result = messages[2]["content"][0]
    assert result["type"] == "tool_result" and result["tool_use_id"] == "call_abc"


@pytest.mark.parametrize(
    ("status", "words"),
    [(401, "rejected the API key"), (429, "rate limiting"), (500, "failed"), (529, "failed")],
)
async def test_upstream_errors(status: int, words: str) -> None:
    body = b'{"type": "error", "error": {"type": "x", "message": "nope"}}'
    with pytest.raises(ProviderError) as caught:
        await provider(Replay((status, body)).transport).step(
            [Turn("user", "hi")], SPECS, Collect()
        )
    assert words in caught.value.message and "sk-ant-secret" not in caught.value.message


async def test_overloaded_mid_stream_and_timeouts() -> None:
    replay = Replay((200, recorded("anthropic_overloaded.sse")))
    with pytest.raises(ProviderError, match="HTTP 529"):
        await provider(replay.transport).step([Turn("user", "hi")], SPECS, Collect())
    with pytest.raises(ProviderError, match="did not answer in time"):
        await provider(raising(httpx.ConnectTimeout("slow"))).step([], SPECS, Collect())


async def test_its_own_key_is_redacted_from_a_mid_stream_error(
    caplog: pytest.LogCaptureFixture,
) -> None:
    key = "corp-gateway-token-1234"
    stream = (
        'event: error\ndata: {"type": "error", "error": {"type": "api_error", '
        f'"message": "upstream refused {key}"}}}}\n\n'
    ).encode()
    odd = AnthropicProvider(api_key=key, base_url="http://claude.test", timeout=5,
                            transport=Replay((200, stream)).transport)  # fmt: skip
    with caplog.at_level("WARNING", logger="fieldhouse.agents"), pytest.raises(ProviderError):
        await odd.step([Turn("user", "hi")], SPECS, Collect())
    assert "[redacted]" in caplog.text and key not in caplog.text
