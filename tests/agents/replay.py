"""Replaying recorded model streams through httpx.MockTransport, in small network chunks."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx

from fieldhouse.agents.contract import ToolCall, ToolOutcome, ToolSpec
from fieldhouse.agents.providers.base import Turn

STREAMS = Path(__file__).parent / "streams"
SPECS = [
    ToolSpec("records.create", "Create a record", {"type": "object"}),
    ToolSpec("reminders.list", "List reminders", {"type": "object"}),
]


def recorded(name: str) -> bytes:
    return (STREAMS / name).read_bytes()


class Replay:
    """Answers each request with the next recorded (status, body); keeps what was asked."""

    def __init__(self, *answers: tuple[int, bytes]) -> None:
        self.answers = list(answers)
        self.requests: list[httpx.Request] = []

    @property
    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self.handle)

    async def handle(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        status, body = self.answers.pop(0)
        kind = "text/event-stream" if status == 200 else "application/json"
        return httpx.Response(status, headers={"Content-Type": kind}, stream=_Stream(body))

    def body(self, index: int) -> Any:
        return json.loads(self.requests[index].content)


class _Stream(httpx.AsyncByteStream):
    """The body a few bytes at a time, so events and JSON split across network reads."""

    def __init__(self, data: bytes, size: int = 7) -> None:
        self._parts = [data[i : i + size] for i in range(0, len(data), size)]

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for part in self._parts:
            yield part


def raising(exc: Exception) -> httpx.MockTransport:
    async def handle(request: httpx.Request) -> httpx.Response:
        raise exc

    return httpx.MockTransport(handle)


class Collect:
    def __init__(self) -> None:
        self.chunks: list[str] = []

    async def __call__(self, text: str) -> None:
        self.chunks.append(text)


def conversation() -> list[Turn]:
    call = ToolCall("call_abc", "records.create", {"module": "contacts", "displayName": "Ada"})
    outcome = ToolOutcome("ok", {"record": {"id": "r1"}}, "Created contacts record Ada.")
    return [
        Turn("system", "Be brief."),
        Turn("user", "add Ada"),
        Turn("assistant", "", (call,)),
        Turn("tool", call=call, outcome=outcome),
    ]
