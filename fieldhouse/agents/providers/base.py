"""What a model provider is: given the conversation and the tools, the next step.

A step is either tool calls (the loop runs them and asks again) or a final answer. Text the
model produces is handed to an ``emit`` callback chunk by chunk as it arrives; the run loop
forwards each chunk to the client through a memory channel, so no provider ever yields from
inside a nursery or cancel scope.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

import httpx

from fieldhouse.agents.contract import ToolCall, ToolOutcome, ToolSpec

Role = Literal["system", "user", "assistant", "tool"]
TextSink = Callable[[str], Awaitable[None]]


@dataclass(frozen=True)
class Turn:
    """One message of the conversation, in a provider-neutral shape."""

    role: Role
    text: str = ""
    #: assistant turns: the calls the model asked for
    tool_calls: tuple[ToolCall, ...] = ()
    #: tool turns: which call this answers, and what came of it
    call: ToolCall | None = None
    outcome: ToolOutcome | None = None


@dataclass(frozen=True)
class Step:
    """A provider's answer: tool calls to run, or (no tool calls) the final answer."""

    tool_calls: tuple[ToolCall, ...] = ()
    #: the text emitted during the step (already passed to ``emit``)
    text: str = ""

    @property
    def final(self) -> bool:
        return not self.tool_calls


class Provider(Protocol):
    name: str

    async def step(self, turns: Sequence[Turn], tools: Sequence[ToolSpec], emit: TextSink) -> Step:
        """Ask the model for the next step; pass answer text to ``emit`` as it streams in."""


#: the error of a run whose model gave neither text nor tool calls
EMPTY_ANSWER = "The model returned an empty answer"


class ProviderError(Exception):
    """Every upstream failure (auth, rate limit, server error, timeout, garbage), as one
    condition with a message a user can act on. The API key never appears in it."""

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


def wire_name(name: str) -> str:
    """Tool names as the model APIs accept them (``^[a-zA-Z0-9_-]{1,64}$``: no dots)."""
    return name.replace(".", "__")


def wire_names(tools: Sequence[ToolSpec]) -> dict[str, str]:
    """Wire name -> tool name, to read the model's calls back."""
    return {wire_name(spec.name): spec.name for spec in tools}


def outcome_payload(outcome: ToolOutcome) -> str:
    """What the model is told about a tool call's outcome (JSON text)."""
    body: dict[str, Any] = {"status": outcome.status, "summary": outcome.summary}
    if outcome.approval_id is not None:
        body["approvalId"] = outcome.approval_id
    body["result"] = dict(outcome.result)
    return json.dumps(body, default=str)


def parse_arguments(raw: str) -> Mapping[str, Any]:
    """Tool-call arguments streamed as JSON text; a broken object becomes ``{}`` plus a note the
    executor reports back as an invalid-argument error."""
    if not raw.strip():
        return {}
    try:
        value = json.loads(raw)
    except ValueError:
        return {"__invalid_json__": raw}
    return value if isinstance(value, dict) else {"__invalid_json__": raw}


def upstream_error(name: str, status: int, detail: str) -> ProviderError:
    """Map an HTTP status from the model API to one clear error."""
    if status in (401, 403):
        message = (
            f"The {name} provider rejected the API key (HTTP {status}); "
            "check FIELDHOUSE_AGENT_API_KEY"
        )
    elif status == 429:
        message = f"The {name} provider is rate limiting requests (HTTP 429); retry later"
    elif status >= 500:
        message = f"The {name} provider failed (HTTP {status}); retry later"
    else:
        message = f"The {name} provider refused the request (HTTP {status})"
    if detail:
        message += f": {detail[:200]}"
    return ProviderError(message, status=status)


def error_detail(body: bytes) -> str:
    try:
        data = json.loads(body)
    except ValueError:
        return body.decode("utf-8", "replace").strip()
    err = data.get("error") if isinstance(data, dict) else None
    if isinstance(err, dict):
        return str(err.get("message") or "")
    return str(err or "")


async def sse_events(response: httpx.Response) -> AsyncIterator[tuple[str, str]]:
    """(event name, data) pairs of a Server-Sent Events body; the name is "" when unnamed."""
    event, data = "", list[str]()
    async for line in response.aiter_lines():
        if not line:
            if data:
                yield event, "\n".join(data)
            event, data = "", list[str]()
        elif line.startswith(":"):
            continue
        elif line.startswith("event:"):
            event = line[6:].strip()
        elif line.startswith("data:"):
            data.append(line[5:].removeprefix(" "))
    if data:
        yield event, "\n".join(data)


async def read_sse(
    response: httpx.Response, handle: Callable[[str, str], str | None], emit: TextSink
) -> None:
    """Feed each (event, data) of a streamed body to ``handle`` and emit the answer text it
    returns. The body is always read to its end, so no half-read generator is left behind;
    the first error ``handle`` raised is raised after that."""
    failure: ProviderError | None = None
    async for event, data in sse_events(response):
        if failure is not None:
            continue
        try:
            text = handle(event, data)
        except ProviderError as exc:
            failure = exc
            continue
        if text:
            await emit(text)
    if failure is not None:
        raise failure


def transport_error(name: str, exc: httpx.HTTPError) -> ProviderError:
    if isinstance(exc, httpx.TimeoutException):
        return ProviderError(f"The {name} provider did not answer in time")
    return ProviderError(f"Could not reach the {name} provider ({type(exc).__name__})")


async def post_stream(
    name: str,
    url: str,
    body: Mapping[str, Any],
    headers: Mapping[str, str],
    *,
    transport: httpx.AsyncBaseTransport | None,
    client_timeout: float,
    read: Callable[[httpx.Response], Awaitable[Step]],
) -> Step:
    """POST a streaming request and read its events into a Step; every upstream failure
    (HTTP status, transport, timeout) becomes one ProviderError."""
    try:
        async with (
            httpx.AsyncClient(transport=transport, timeout=client_timeout) as client,
            client.stream("POST", url, json=body, headers=headers) as response,
        ):
            if response.status_code >= 400:
                detail = error_detail(await response.aread())
                raise upstream_error(name, response.status_code, detail)
            return await read(response)
    except httpx.HTTPError as exc:
        raise transport_error(name, exc) from exc
