"""What a model provider is: given the conversation and the tools, the next step.

A step is either tool calls (the loop runs them and asks again) or a final answer. Text the
model produces is handed to an ``emit`` callback chunk by chunk as it arrives; the run loop
forwards each chunk to the client through a memory channel, so no provider ever yields from
inside a nursery or cancel scope.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol

from fieldhouse.agents.contract import ToolCall, ToolOutcome, ToolSpec

if TYPE_CHECKING:
    import httpx

log = logging.getLogger("fieldhouse.agents")

Role = Literal["system", "user", "assistant", "tool"]
#: the user id of the run a provider is asked a step of (None: no user, or no run): who "me"
#: is in the message ("my tasks", "i own it"), for a provider that reads it (the offline one)
REQUESTER: ContextVar[str | None] = ContextVar("fieldhouse_agent_requester", default=None)
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


#: every message an upstream failure can reach the client or a stored run with: fixed text, so
#: nothing the upstream said (an echoed key, a prompt) ever leaves the server
UPSTREAM_MESSAGES = {
    "auth": "The {name} provider rejected the API key (HTTP {status}); "
    "check FIELDHOUSE_AGENT_API_KEY",
    "rate": "The {name} provider is rate limiting requests (HTTP {status}); retry later",
    "down": "The {name} provider failed (HTTP {status}); retry later",
    "refused": "The {name} provider refused the request (HTTP {status})",
    "stream": "The {name} provider failed while answering; retry later",
    "malformed": "The {name} provider sent a malformed answer",
    "timeout": "The {name} provider did not answer in time",
    "unreachable": "Could not reach the {name} provider",
}
_SECRETS = re.compile(
    r"(sk-[A-Za-z0-9_\-]{6,}|(?i:bearer)\s+[A-Za-z0-9._~+/\-]+=*|"
    r"(?i:api[_-]?key)[\"']?\s*[:=]\s*[\"']?[^\s\"',}]+)"
)


def redact(text: str, *secrets: str | None) -> str:
    """The text with the given secrets and anything shaped like a key or token blanked."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, "[redacted]")
    return _SECRETS.sub("[redacted]", text)


def upstream_failure(name: str, kind: str, *, status: int | None = None) -> ProviderError:
    return ProviderError(UPSTREAM_MESSAGES[kind].format(name=name, status=status), status=status)


def upstream_error(name: str, status: int, detail: str, secret: str | None = None) -> ProviderError:
    """Map an HTTP status from the model API to one fixed message; what the upstream said is
    only logged, redacted: the provider's own key (``secret``, whatever its shape) and
    anything shaped like a key or token."""
    if detail:
        shown = redact(detail, secret)[:300]
        log.warning("the %s provider answered HTTP %s: %s", name, status, shown)
    if status in (401, 403):
        return upstream_failure(name, "auth", status=status)
    if status == 429:
        return upstream_failure(name, "rate", status=status)
    if status >= 500:
        return upstream_failure(name, "down", status=status)
    return upstream_failure(name, "refused", status=status)


def error_detail(body: bytes) -> str:
    try:
        data = json.loads(body)
    except ValueError:
        return body.decode("utf-8", "replace").strip()
    err = data.get("error") if isinstance(data, dict) else None
    if isinstance(err, dict):
        return str(err.get("message") or "")
    return str(err or "")


class ThinkFilter:
    """Drops ``<think>...</think>`` reasoning from streamed text, tags split across chunks
    included; what is left is the answer."""

    OPEN, CLOSE = "<think>", "</think>"

    def __init__(self) -> None:
        self._pending = ""
        self._inside = False
        self.shown: list[str] = []

    def feed(self, text: str) -> str:
        data, out = self._pending + text, []
        self._pending = ""
        while data:
            tag = self.CLOSE if self._inside else self.OPEN
            at = data.find(tag)
            if at >= 0:
                if not self._inside:
                    out.append(data[:at])
                data, self._inside = data[at + len(tag) :], not self._inside
                continue
            keep = _partial_suffix(data, tag)
            if not self._inside:
                out.append(data[: len(data) - keep])
            self._pending = data[len(data) - keep :] if keep else ""
            break
        visible = "".join(out)
        self.shown.append(visible)
        return visible

    def flush(self) -> str:
        rest = "" if self._inside else self._pending
        self._pending = ""
        self.shown.append(rest)
        return rest


def _partial_suffix(data: str, tag: str) -> int:
    """The length of the longest end of ``data`` that starts ``tag``."""
    for size in range(min(len(tag) - 1, len(data)), 0, -1):
        if tag.startswith(data[-size:]):
            return size
    return 0


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
    import httpx  # (loaded by the first call upstream, not at start)

    if isinstance(exc, httpx.TimeoutException):
        return upstream_failure(name, "timeout")
    log.warning("could not reach the %s provider: %s", name, type(exc).__name__)
    return upstream_failure(name, "unreachable")


#: reads a streamed answer (events) or a whole one (an upstream that ignored ``stream``)
ReadStream = Callable[["httpx.Response", TextSink], Awaitable[Step]]
ReadWhole = Callable[[Any], tuple[str, tuple[ToolCall, ...]]]


async def post_stream(
    name: str,
    url: str,
    body: Mapping[str, Any],
    headers: Mapping[str, str],
    emit: TextSink,
    *,
    transport: httpx.AsyncBaseTransport | None,
    client_timeout: float,
    read: ReadStream,
    read_whole: ReadWhole,
    secret: str | None = None,
) -> Step:
    """POST a streaming request and read its events into a Step; every upstream failure
    (HTTP status, transport, timeout) becomes one ProviderError with a fixed message.
    ``<think>`` reasoning is dropped from the text before it is emitted."""
    import httpx  # (a worker that never calls upstream never loads it)

    think = ThinkFilter()

    async def visible(text: str) -> None:
        shown = think.feed(text)
        if shown:
            await emit(shown)

    try:
        async with (
            httpx.AsyncClient(transport=transport, timeout=client_timeout) as client,
            client.stream("POST", url, json=body, headers=headers) as response,
        ):
            if response.status_code >= 400:
                detail = error_detail(await response.aread())
                raise upstream_error(name, response.status_code, detail, secret)
            if response.headers.get("content-type", "").startswith("application/json"):
                step = await _whole(name, response, read_whole, visible)
            else:
                step = await read(response, visible)
    except httpx.HTTPError as exc:
        raise transport_error(name, exc) from exc
    tail = think.flush()
    if tail:
        await emit(tail)
    return Step(step.tool_calls, "".join(think.shown))


async def _whole(
    name: str, response: httpx.Response, read_whole: ReadWhole, emit: TextSink
) -> Step:
    """An upstream that answered in one JSON body although asked to stream."""
    try:
        text, calls = read_whole(json.loads(await response.aread()))
    except (ValueError, TypeError, KeyError, AttributeError) as exc:
        raise upstream_failure(name, "malformed") from exc
    if text:
        await emit(text)
    return Step(calls, text)
