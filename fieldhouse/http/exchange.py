"""One request as the pipeline and the handlers see it.

:mod:`fieldhouse.http.dispatch` builds an :class:`Exchange` from the ASGI scope and keeps it
in a context variable, so the pipeline, the handlers and their helpers read the request and
what was learnt about it (principal, rate state, request id) in one place.
"""

from __future__ import annotations

import codecs
import re
import time
from collections.abc import Awaitable, Callable, Iterator, KeysView, Mapping
from contextvars import ContextVar
from functools import cached_property, lru_cache
from typing import Any
from urllib.parse import parse_qsl, quote

from fieldhouse.http.ratelimit import RateState
from fieldhouse.model.clock import random_bytes
from fieldhouse.model.errors import ApiError
from fieldhouse.model.principal import Principal

#: a client's X-Request-Id is kept when it looks like an id (else a fresh one is made)
_CLIENT_ID = re.compile(r"[A-Za-z0-9._:\-]{1,128}")
UNMATCHED = "<unmatched>"
#: query strings up to this long are parsed once per process and remembered (a client repeats
#: its queries; unquoting cost a list request about 10 us)
QUERY_REMEMBERED = 1024

#: a Content-Length value: ASCII digits (a sign, or ``_``, is not one)
_PLAIN_INT = re.compile(r"-?[0-9]+")

Scope = Mapping[str, Any]
#: the next chunk of the request body; None once it has all been read
NextChunk = Callable[[], Awaitable[bytes | None]]


class ClientGone(Exception):
    """The client went away before its request body ended: there is no one to answer."""


class Exchange:
    """The request (method, path, headers, query, body) and the pipeline's notes on it."""

    def __init__(self, scope: Scope, next_chunk: NextChunk, body_timeout: float | None) -> None:
        self.method: str = scope["method"]
        self.path: str = scope["path"]
        self.query_string: bytes = scope["query_string"]
        # lower-case names; the first of repeated headers wins, as with werkzeug's Headers.get
        self.headers: dict[str, str] = {
            name.decode("latin-1").lower(): value.decode("latin-1")
            for name, value in reversed(scope["headers"])
        }
        self.remote_addr: str = (scope.get("client") or ["<local>"])[0]
        self.next_chunk = next_chunk
        self.body_timeout = body_timeout
        #: the body has been read to its end (nothing is left to drop)
        self.body_read = False
        self.started = time.perf_counter()
        sent = self.headers.get("x-request-id")
        self.request_id = sent if sent and _CLIENT_ID.fullmatch(sent) else random_bytes(16).hex()
        #: the matched route in OpenAPI form (``/v1/modules/{moduleSlug}``), a bounded label
        self.route = UNMATCHED
        self.principal: Principal | None = None
        self.schema_version: int | None = None
        self.auth_error: ApiError | None = None
        self.rate: RateState | None = None
        self.error_code: str | None = None

    @cached_property
    def args(self) -> QueryArgs:
        """The query parameters, parsed as werkzeug parses ``request.args``."""
        raw = self.query_string
        if not raw:
            return NO_ARGS
        return _remembered_args(raw) if len(raw) <= QUERY_REMEMBERED else _args(raw)

    @property
    def content_length(self) -> int | None:
        """The declared body length: None when there is none or the body is chunked, 0 when
        it is not a number or is negative (as werkzeug's ``get_content_length``)."""
        encoding = self.headers.get("transfer-encoding")
        if encoding is not None and any(
            part.strip(' \t"').lower() == "chunked" for part in encoding.split(",")
        ):
            return None
        declared = self.headers.get("content-length")
        if declared is None:
            return None
        declared = declared.strip(" \t")
        return max(0, int(declared)) if _PLAIN_INT.fullmatch(declared) else 0

    @property
    def mimetype(self) -> str:
        """The Content-Type without its parameters, lower-case (``""`` when none is sent)."""
        return self.headers.get("content-type", "").partition(";")[0].strip(" \t").lower()


class QueryArgs:
    """The query parameters in the order sent; a name may come more than once (``get`` is
    its first value). Read-only: one parsed query string may serve many requests."""

    __slots__ = ("_lists", "_pairs")

    def __init__(self, pairs: tuple[tuple[str, str], ...] = ()) -> None:
        self._pairs = pairs
        self._lists: dict[str, list[str]] = {}
        for name, value in pairs:
            self._lists.setdefault(name, []).append(value)

    def __bool__(self) -> bool:
        return bool(self._pairs)

    def __contains__(self, name: object) -> bool:
        return name in self._lists

    def get(self, name: str, default: str | None = None) -> str | None:
        values = self._lists.get(name)
        return values[0] if values else default

    def getlist(self, name: str) -> list[str]:
        return list(self._lists.get(name, ()))

    def keys(self) -> KeysView[str]:
        return self._lists.keys()

    def items(self, multi: bool = False) -> Iterator[tuple[str, str]]:
        """Each name with its first value, or (``multi``) every pair as sent."""
        if multi:
            return iter(self._pairs)
        return ((name, values[0]) for name, values in self._lists.items())

    def lists(self) -> Iterator[tuple[str, list[str]]]:
        return ((name, list(values)) for name, values in self._lists.items())


NO_ARGS = QueryArgs()


def _url_quote(error: UnicodeError) -> tuple[str, int]:
    """A codec error handler: bytes that are not UTF-8 stay percent-encoded, as sent."""
    assert isinstance(error, UnicodeDecodeError)
    return quote(error.object[error.start : error.end], safe=""), error.end


codecs.register_error("fieldhouse.url_quote", _url_quote)


def _args(query: bytes) -> QueryArgs:
    pairs = parse_qsl(query.decode(), keep_blank_values=True, errors="fieldhouse.url_quote")
    return QueryArgs(tuple(pairs))


_remembered_args = lru_cache(maxsize=512)(_args)


_current: ContextVar[Exchange] = ContextVar("fieldhouse_exchange")


def current() -> Exchange:
    """The exchange of the request this task serves."""
    return _current.get()


def enter(exchange: Exchange) -> None:
    """Make ``exchange`` the current one for the rest of this task (one task per request)."""
    _current.set(exchange)


def asgi_body(receive: Callable[[], Awaitable[Mapping[str, Any]]]) -> NextChunk:
    """The body from ASGI ``http.request`` messages; ClientGone on ``http.disconnect``."""
    complete = False

    async def next_chunk() -> bytes | None:
        nonlocal complete
        while not complete:
            message = await receive()
            if message["type"] == "http.disconnect":
                complete = True
                raise ClientGone()
            complete = not message.get("more_body", False)
            chunk: bytes = message.get("body", b"")
            if chunk:
                return chunk
        return None

    return next_chunk
