"""Any OpenAI-compatible chat-completions endpoint, streaming, with tool calls (httpx only)."""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from fieldhouse.agents.contract import ToolCall, ToolSpec
from fieldhouse.agents.providers.base import (
    Step,
    TextSink,
    Turn,
    error_detail,
    outcome_payload,
    parse_arguments,
    post_stream,
    read_sse,
    redact,
    upstream_failure,
    wire_name,
    wire_names,
)

if TYPE_CHECKING:
    import httpx

log = logging.getLogger("fieldhouse.agents")

DEFAULT_BASE_URL = "https://api.openai.com/v1"
DEFAULT_MODEL = "gpt-4o-mini"


class OpenAIProvider:
    name = "openai"

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
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [_message(turn) for turn in turns],
            "stream": True,
        }
        if tools:
            body["tools"] = [
                {
                    "type": "function",
                    "function": {
                        "name": wire_name(spec.name),
                        "description": spec.description,
                        "parameters": dict(spec.parameters),
                    },
                }
                for spec in tools
            ]
        return body

    async def step(self, turns: Sequence[Turn], tools: Sequence[ToolSpec], emit: TextSink) -> Step:
        headers = {"Accept": "text/event-stream"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        body = self.request_body(turns, tools)
        names = wire_names(tools)
        return await post_stream(
            self.name,
            f"{self.base_url}/chat/completions",
            body,
            headers,
            emit,
            transport=self._transport,
            client_timeout=self._timeout,
            read=lambda response, sink: _read_stream(response, sink, names, self._api_key),
            read_whole=lambda data: _read_whole(data, names),
            secret=self._api_key,
        )


async def _read_stream(
    response: httpx.Response, emit: TextSink, names: dict[str, str], secret: str | None
) -> Step:
    reader = _Reader(names, secret)
    await read_sse(response, reader.handle, emit)
    return reader.step()


def _read_whole(data: Any, names: dict[str, str]) -> tuple[str, tuple[ToolCall, ...]]:
    """A chat completion that came as one JSON object."""
    message = data["choices"][0]["message"]
    calls = tuple(
        ToolCall(
            str(call.get("id") or f"call_{i}"),
            names.get(call["function"]["name"], call["function"]["name"]),
            parse_arguments(call["function"].get("arguments") or ""),
        )
        for i, call in enumerate(message.get("tool_calls") or [])
    )
    return str(message.get("content") or ""), calls


class _Reader:
    """Chat-completion chunks: content deltas, and tool calls whose name and arguments arrive
    in pieces keyed by index."""

    def __init__(self, names: dict[str, str], secret: str | None = None) -> None:
        self.names = names
        #: the provider's key, redacted from what the upstream says wherever it appears
        self.secret = secret
        self.text: list[str] = []
        self.calls: dict[int, dict[str, str]] = {}
        self.finished = False

    def handle(self, event: str, data: str) -> str | None:
        if self.finished or data.strip() == "[DONE]":
            self.finished = True
            return None
        try:
            chunk = json.loads(data)
        except ValueError as exc:
            raise upstream_failure("openai", "malformed") from exc
        if not isinstance(chunk, dict):
            raise upstream_failure("openai", "malformed")
        if "error" in chunk:
            log.warning(
                "the openai provider failed mid-stream: %s",
                redact(error_detail(data.encode()), self.secret),
            )
            raise upstream_failure("openai", "stream")
        emitted: list[str] = []
        for choice in chunk.get("choices") or []:
            delta = choice.get("delta") or {}
            if delta.get("content"):
                emitted.append(delta["content"])
            for part in delta.get("tool_calls") or []:
                slot = self.calls.setdefault(
                    int(part.get("index", 0)), {"id": "", "name": "", "args": ""}
                )
                slot["id"] = part.get("id") or slot["id"]
                function = part.get("function") or {}
                slot["name"] += function.get("name") or ""
                slot["args"] += function.get("arguments") or ""
        self.text.extend(emitted)
        return "".join(emitted)

    def step(self) -> Step:
        tool_calls = tuple(
            ToolCall(
                slot["id"] or f"call_{index}",
                self.names.get(slot["name"], slot["name"]),
                parse_arguments(slot["args"]),
            )
            for index, slot in sorted(self.calls.items())
        )
        return Step(tool_calls, "".join(self.text))


def _message(turn: Turn) -> dict[str, Any]:
    if turn.role == "tool":
        assert turn.call is not None and turn.outcome is not None
        return {
            "role": "tool",
            "tool_call_id": turn.call.call_id,
            "content": outcome_payload(turn.outcome),
        }
    message: dict[str, Any] = {"role": turn.role, "content": turn.text or None}
    if turn.role != "assistant":
        message["content"] = turn.text
    if turn.tool_calls:
        message["tool_calls"] = [
            {
                "id": call.call_id,
                "type": "function",
                "function": {
                    "name": wire_name(call.name),
                    "arguments": json.dumps(dict(call.arguments)),
                },
            }
            for call in turn.tool_calls
        ]
    return message
