"""Anthropic's Messages API, streaming, with tool use (httpx only)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from fieldhouse.agents.contract import ToolCall, ToolSpec
from fieldhouse.agents.providers.base import (
    Step,
    TextSink,
    Turn,
    outcome_payload,
    parse_arguments,
    post_stream,
    read_sse,
    upstream_error,
    upstream_failure,
    wire_name,
    wire_names,
)

if TYPE_CHECKING:
    import httpx

DEFAULT_BASE_URL = "https://api.anthropic.com"
DEFAULT_MODEL = "claude-3-5-haiku-latest"
API_VERSION = "2023-06-01"
MAX_TOKENS = 1024


class AnthropicProvider:
    name = "anthropic"

    def __init__(
        self,
        *,
        api_key: str | None,
        model: str = "",
        base_url: str = "",
        timeout: float = 60.0,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self._api_key = api_key
        self.model = model or DEFAULT_MODEL
        self.base_url = (base_url or DEFAULT_BASE_URL).rstrip("/")
        self._timeout = timeout
        self._transport = transport

    def request_body(self, turns: Sequence[Turn], tools: Sequence[ToolSpec]) -> dict[str, Any]:
        system = "\n\n".join(t.text for t in turns if t.role == "system")
        body: dict[str, Any] = {
            "model": self.model,
            "max_tokens": MAX_TOKENS,
            "messages": _messages(turns),
            "stream": True,
        }
        if system:
            body["system"] = system
        if tools:
            body["tools"] = [
                {
                    "name": wire_name(spec.name),
                    "description": spec.description,
                    "input_schema": dict(spec.parameters),
                }
                for spec in tools
            ]
        return body

    async def step(self, turns: Sequence[Turn], tools: Sequence[ToolSpec], emit: TextSink) -> Step:
        headers = {"anthropic-version": API_VERSION, "Accept": "text/event-stream"}
        if self._api_key:
            headers["x-api-key"] = self._api_key
        body = self.request_body(turns, tools)
        names = wire_names(tools)
        return await post_stream(
            self.name,
            f"{self.base_url}/v1/messages",
            body,
            headers,
            emit,
            transport=self._transport,
            client_timeout=self._timeout,
            read=lambda response, sink: _read_stream(response, sink, names, self._api_key),
            read_whole=lambda data: _read_whole(data, names),
            secret=self._api_key,
        )


def _read_whole(data: Any, names: dict[str, str]) -> tuple[str, tuple[ToolCall, ...]]:
    """A Messages API answer that came as one JSON object."""
    blocks = data["content"]
    text = "".join(str(b.get("text") or "") for b in blocks if b.get("type") == "text")
    calls = tuple(
        ToolCall(str(b.get("id") or f"toolu_{i}"), names.get(b["name"], b["name"]), b["input"])
        for i, b in enumerate(blocks)
        if b.get("type") == "tool_use" and isinstance(b.get("input"), dict)
    )
    return text, calls


async def _read_stream(
    response: httpx.Response, emit: TextSink, names: dict[str, str], secret: str | None
) -> Step:
    reader = _Reader(names, secret)
    await read_sse(response, reader.handle, emit)
    return reader.step()


class _Reader:
    """Messages API events: text deltas are the answer; tool_use blocks collect their input
    from input_json_delta pieces; thinking deltas (raw reasoning) are dropped."""

    def __init__(self, names: dict[str, str], secret: str | None = None) -> None:
        self.names = names
        #: the provider's key, redacted from what the upstream says wherever it appears
        self.secret = secret
        self.text: list[str] = []
        self.blocks: dict[int, dict[str, str]] = {}

    def handle(self, event: str, data: str) -> str | None:
        try:
            payload = json.loads(data)
        except ValueError as exc:
            raise upstream_failure("anthropic", "malformed") from exc
        if not isinstance(payload, dict):
            raise upstream_failure("anthropic", "malformed")
        kind = event or str(payload.get("type", ""))
        if kind == "error":
            error = payload.get("error") or {}
            status = 529 if error.get("type") == "overloaded_error" else 500
            raise upstream_error("anthropic", status, str(error.get("message", "")), self.secret)
        if kind == "content_block_start":
            block = payload.get("content_block") or {}
            if block.get("type") == "tool_use":
                self.blocks[int(payload["index"])] = {
                    "id": str(block.get("id", "")),
                    "name": str(block.get("name", "")),
                    "args": "",
                }
        elif kind == "content_block_delta":
            delta = payload.get("delta") or {}
            if delta.get("type") == "text_delta" and delta.get("text"):
                self.text.append(delta["text"])
                return str(delta["text"])
            if delta.get("type") == "input_json_delta":
                slot = self.blocks.get(int(payload["index"]))
                if slot is not None:
                    slot["args"] += delta.get("partial_json") or ""
        return None

    def step(self) -> Step:
        tool_calls = tuple(
            ToolCall(
                slot["id"] or f"toolu_{index}",
                self.names.get(slot["name"], slot["name"]),
                parse_arguments(slot["args"]),
            )
            for index, slot in sorted(self.blocks.items())
        )
        return Step(tool_calls, "".join(self.text))


def _messages(turns: Sequence[Turn]) -> list[dict[str, Any]]:
    """Anthropic wants alternating user/assistant turns; tool results travel in a user turn."""
    out: list[dict[str, Any]] = []
    for turn in turns:
        if turn.role == "system":
            continue
        if turn.role == "tool":
            assert turn.call is not None and turn.outcome is not None
            block = {
                "type": "tool_result",
                "tool_use_id": turn.call.call_id,
                "content": outcome_payload(turn.outcome),
                "is_error": turn.outcome.status == "error",
            }
            if out and out[-1]["role"] == "user" and isinstance(out[-1]["content"], list):
                out[-1]["content"].append(block)
            else:
                out.append({"role": "user", "content": [block]})
            continue
        if turn.role == "assistant":
            content: list[dict[str, Any]] = []
            if turn.text:
                content.append({"type": "text", "text": turn.text})
            content.extend(
                {
                    "type": "tool_use",
                    "id": c.call_id,
                    "name": wire_name(c.name),
                    "input": dict(c.arguments),
                }
                for c in turn.tool_calls
            )
            out.append({"role": "assistant", "content": content})
        else:
            out.append({"role": "user", "content": turn.text})
    return out
