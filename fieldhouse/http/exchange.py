"""One request as the pipeline and the handlers see it.

:mod:`fieldhouse.http.dispatch` builds an :class:`Exchange` from the ASGI scope and keeps it
in a context variable, so the pipeline, the handlers and their helpers read the request and
what was learnt about it (principal, rate state, request id) in one place.
"""

from __future__ import annotations

import re
import time
from collections.abc import Awaitable, Callable, Mapping
from contextvars import ContextVar
from functools import cached_property, lru_cache
from typing import Any
from urllib.parse import parse_qsl

import werkzeug.urls  # noqa: F401  (registers the "werkzeug.url_quote" codec error handler)
from werkzeug.datastructures import MultiDict
from werkzeug.http import parse_options_header
from werkzeug.sansio.utils import get_content_length

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
    def args(self) -> MultiDict[str, str]:
        """The query parameters, parsed as werkzeug parses ``request.args``."""
        raw = self.query_string
        if not raw:
            return MultiDict()
        return MultiDict(_remembered_pairs(raw) if len(raw) <= QUERY_REMEMBERED else _pairs(raw))

    @property
    def content_length(self) -> int | None:
        return get_content_length(
            self.headers.get("content-length"), self.headers.get("transfer-encoding")
        )

    @property
    def mimetype(self) -> str:
        return parse_options_header(self.headers.get("content-type", ""))[0].lower()


def _pairs(query: bytes) -> tuple[tuple[str, str], ...]:
    return tuple(parse_qsl(query.decode(), keep_blank_values=True, errors="werkzeug.url_quote"))


_remembered_pairs = lru_cache(maxsize=512)(_pairs)


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
