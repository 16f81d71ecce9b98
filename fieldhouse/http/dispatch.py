"""The ASGI application: every request is routed and answered here, by one path.

A declared method and path is found with one dict look-up (static paths) or a compiled
pattern (parameterised ones); the request then runs the pipeline
(:mod:`fieldhouse.http.pipeline`: admit, the operation, finish) on the ASGI scope. The rest is
answered here too, through the same pipeline (credential, rate limit, request id, access log):

- ``HEAD`` runs the ``GET`` operation (the server sends its head without the body);
- ``OPTIONS``: a CORS preflight is answered by :func:`~fieldhouse.http.observe.preflight`,
  any other with ``Allow``;
- a path with a trailing slash is served as the path without it;
- a path no operation serves is ``404 not_found``, one served for other methods
  ``405 method_not_allowed`` with ``Allow``;
- a request whose URL the server found too long
  (:data:`~fieldhouse.http.wire.rules.URL_TOO_LONG` in the scope's ``state``) is
  ``414 uri_too_long``, after its credential and rate limit.

An operation declared ``stream`` (agent chat, resumed runs) may run for minutes: its ASGI
messages are read by one task beside it, and the client leaving (``http.disconnect``)
cancels the operation and its event stream, so the run ends aborted.
"""

from __future__ import annotations

import math
import re
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any

import trio

from fieldhouse.http.body import discard_body
from fieldhouse.http.endpoint import PATH_PARAM, Operation
from fieldhouse.http.exchange import UNMATCHED, ClientGone, Exchange, asgi_body, enter
from fieldhouse.http.pipeline import admit, error_response, finish
from fieldhouse.http.response import Response
from fieldhouse.http.wire.rules import URL_TOO_LONG
from fieldhouse.model.errors import MethodNotAllowed, NotFound, UriTooLong
from fieldhouse.services import Services

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
#: an operation, the route it matched (OpenAPI form, the metrics label), its path parameters
Match = tuple[Operation, str, dict[str, str]]
#: what answers a request once it is admitted
Answer = Callable[[], Awaitable[Response]]

#: seconds a request body may take to arrive (then 408)
BODY_TIMEOUT = 60.0
#: seconds a response may take to be sent, unless it says otherwise (``response.timeout``:
#: None for no limit, as an event stream does)
RESPONSE_TIMEOUT = 60.0


def _pattern(path: str) -> re.Pattern[str]:
    """``/v1/modules/{moduleSlug}`` as a regex; a parameter is one non-empty segment."""
    parts = PATH_PARAM.split(path)  # literal, name, literal, name, ..., literal
    regex = "".join(
        f"(?P<{part}>[^/]+)" if index % 2 else re.escape(part) for index, part in enumerate(parts)
    )
    return re.compile(regex + r"\Z")


def _rank(path: str) -> tuple[int, ...]:
    """Which of two patterns that fit one path serves it: the one whose first differing
    segment is literal (``/x/b/{d}`` before ``/x/{a}/c``), as werkzeug's router decides."""
    return tuple(1 if PATH_PARAM.search(segment) else 0 for segment in path.split("/"))


class RouteTable:
    """The declared operations by method and path, compiled once."""

    def __init__(self, operations: Iterable[Operation]) -> None:
        self._static: dict[tuple[str, str], tuple[Operation, str]] = {}
        self._patterns: dict[tuple[str, int], list[tuple[re.Pattern[str], Operation, str]]] = {}
        #: every served path with its methods, for 405's Allow and OPTIONS
        self._methods: dict[str, set[str]] = {}
        ranked: list[tuple[tuple[int, ...], int, str, Operation]] = []
        for op in operations:
            for path in op.spec.served_paths:
                ranked.append((_rank(path), len(ranked), path, op))
                self._methods.setdefault(path, set()).add(op.spec.method)
        for _, _, path, op in sorted(ranked, key=lambda entry: entry[:2]):
            method = op.spec.method
            if PATH_PARAM.search(path) is None:
                self._static.setdefault((method, path), (op, path))
            else:
                key = (method, path.count("/"))
                self._patterns.setdefault(key, []).append((_pattern(path), op, path))
        #: every parameterised path, the most literal first (the one that serves a path)
        self._all = [
            (_pattern(path), path)
            for path in sorted(self._methods, key=_rank)
            if PATH_PARAM.search(path)
        ]
        #: for each parameterised path of a method, the more literal paths served only for
        #: other methods: such a path is theirs (405), not a value of this one's parameter
        #: (PATCH .../records/bulk-delete is not a record named "bulk-delete")
        self._shadows: dict[tuple[str, str], list[re.Pattern[str]]] = {}
        for (method, _), entries in self._patterns.items():
            for _, _, path in entries:
                self._shadows[(method, path)] = [
                    pattern
                    for pattern, other in self._all
                    if other.count("/") == path.count("/")
                    and _rank(other) < _rank(path)
                    and method not in self._methods[other]
                ]

    def match(self, method: str, path: str) -> Match | None:
        """The operation serving ``method`` on ``path`` (a static path before a pattern, then
        the best-ranked pattern); None when there is none."""
        hit = self._static.get((method, path))
        if hit is not None:
            return hit[0], hit[1], {}
        for pattern, op, route in self._patterns.get((method, path.count("/")), ()):
            matched = pattern.match(path)
            if matched is not None:
                if any(p.match(path) for p in self._shadows[(method, route)]):
                    return None
                return op, route, matched.groupdict()
        return None

    def allowed(self, path: str) -> tuple[list[str], str]:
        """The methods served on ``path`` (HEAD with GET, and OPTIONS), sorted, and its route
        (the first that fits); no methods when no operation serves it."""
        route = path
        methods = set(self._methods.get(path, ()))
        if not methods:  # the most literal pattern that fits serves the path
            for pattern, template in self._all:
                if pattern.match(path):
                    route, methods = template, set(self._methods[template])
                    break
        if not methods:
            return [], UNMATCHED
        if "GET" in methods:
            methods.add("HEAD")
        return sorted(methods | {"OPTIONS"}), route

    def routes(self) -> list[tuple[str, str]]:
        """Every (method, path) served, paths in OpenAPI form."""
        return sorted((m, path) for path, methods in self._methods.items() for m in methods)


class Dispatch:
    """The ASGI app over the services and their operations."""

    def __init__(
        self,
        svc: Services,
        operations: Iterable[Operation],
        *,
        body_timeout: float | None = BODY_TIMEOUT,
        response_timeout: float | None = RESPONSE_TIMEOUT,
    ) -> None:
        self.svc = svc
        self.operations = list(operations)
        self.table = RouteTable(self.operations)
        self.body_timeout = body_timeout
        self.response_timeout = response_timeout

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind == "http":
            await self._http(scope, receive, send)
        elif kind == "lifespan":
            await _lifespan(receive, send)

    async def _http(self, scope: Scope, receive: Receive, send: Send) -> None:
        method: str = scope["method"]
        path: str = scope["path"]
        hit = self.table.match("GET" if method == "HEAD" else method, path)
        if hit is None and len(path) > 1 and path.endswith("/"):
            path = path[:-1]
            hit = self.table.match("GET" if method == "HEAD" else method, path)
        refused: tuple[int, int] | None = (scope.get("state") or {}).get(URL_TOO_LONG)
        if refused is not None:
            hit = None
        elif hit is not None and hit[0].spec.stream:
            await self._watched(scope, receive, send, hit)
            return
        ex = Exchange(scope, asgi_body(receive), self.body_timeout)
        answer = self._answer(ex, path, hit, refused)
        enter(ex)
        try:
            response = await self._respond(ex, answer)
        except ClientGone:
            return  # no one to answer, no access-log line
        await self._send(send, response, last=True)

    def _answer(
        self, ex: Exchange, path: str, hit: Match | None, refused: tuple[int, int] | None
    ) -> Answer:
        """What answers the request once admitted (and labels its route)."""
        if hit is not None:
            op, ex.route, path_args = hit
            return lambda: op(ex, path_args)
        if refused is not None:
            length, limit = refused
            return _raise(UriTooLong(f"Request URL is {length} bytes; the limit is {limit}"))
        allowed, ex.route = self.table.allowed(path)
        if not allowed:
            return _raise(NotFound(f"No route for {ex.method} {ex.path}"))
        if ex.method == "OPTIONS":
            return lambda: _options(allowed)
        return _raise(
            MethodNotAllowed(
                f"Method {ex.method} is not allowed on {ex.path}; allowed: {', '.join(allowed)}",
                headers={"Allow": ", ".join(allowed)},
            )
        )

    async def _respond(self, ex: Exchange, answer: Answer) -> Response:
        svc = self.svc
        try:
            response = await admit(svc, ex)
            if response is None:
                response = await answer()
            # a body the operation did not read is read and dropped, so the connection stays
            # in step for its next request
            if not await discard_body(ex, svc.settings.max_body_bytes):
                response.headers["Connection"] = "close"
        except ClientGone:
            raise
        except Exception as exc:  # every error gets its envelope
            response = await error_response(svc, ex, exc)
        return finish(svc, ex, response)

    async def _send(self, send: Send, response: Response, *, last: bool) -> None:
        """The response as ASGI messages within its timeout; the closing empty message only
        when ``last`` (a watched operation sends it after its watch has ended)."""
        timeout = self.response_timeout if response.timeout is Ellipsis else response.timeout
        with trio.CancelScope(deadline=trio.current_time() + timeout if timeout else math.inf):
            await send_response(send, response, last=last)

    async def _watched(self, scope: Scope, receive: Receive, send: Send, hit: Match) -> None:
        """A ``stream`` operation: one task reads the ASGI messages (the body, then the
        disconnect); the client leaving cancels the operation and its response."""
        op, route, path_args = hit
        with trio.CancelScope() as watch:
            reader = _Reader(receive, watch)
            ex = Exchange(scope, reader.next_chunk, self.body_timeout)
            ex.route = route
            enter(ex)
            async with trio.open_nursery() as nursery:
                nursery.start_soon(reader.run)
                try:
                    response = await self._respond(ex, lambda: op(ex, path_args))
                    await self._send(send, response, last=False)
                except ClientGone:
                    reader.gone = True
                finally:
                    nursery.cancel_scope.cancel()
        if not reader.gone:
            # outside the watch: the server reports the disconnect of a finished answer
            # while this send is still in progress, and must not cancel it
            await send({"type": "http.response.body", "body": b"", "more_body": False})


class _Reader:
    """A watched request's ASGI messages, read by one task: body chunks handed to the
    exchange as it asks, and ``http.disconnect`` cancels ``watch``."""

    def __init__(self, receive: Receive, watch: trio.CancelScope) -> None:
        self._receive = receive
        self._watch = watch
        self._chunks, self._chunk_out = trio.open_memory_channel[bytes](0)
        self.gone = False

    async def run(self) -> None:
        async with self._chunks:
            while True:
                message = await self._receive()
                if message["type"] == "http.disconnect":
                    self._gone()
                    return
                chunk = message.get("body", b"")
                if chunk:
                    await self._chunks.send(chunk)
                if not message.get("more_body", False):
                    break
        while (await self._receive())["type"] != "http.disconnect":
            pass
        self._gone()

    def _gone(self) -> None:
        self.gone = True
        self._watch.cancel()

    async def next_chunk(self) -> bytes | None:
        try:
            return await self._chunk_out.receive()
        except trio.EndOfChannel:
            if self.gone:
                raise ClientGone() from None
            return None


def _raise(error: Exception) -> Answer:
    async def answer() -> Response:
        raise error

    return answer


async def _options(allowed: list[str]) -> Response:
    return Response(b"", status=200, headers={"Allow": ", ".join(allowed)})


async def _lifespan(receive: Receive, send: Send) -> None:
    """Nothing to start or stop here (the runtime owns the services)."""
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return


async def send_response(send: Send, response: Response, *, last: bool = True) -> None:
    """The response as ASGI messages: a whole body in one message, a streamed one by chunks;
    without the closing empty message unless ``last``."""
    start = {
        "type": "http.response.start",
        "status": response.status_code,
        "headers": response.headers.encoded(),
    }
    await send(start)
    body = response.body
    if isinstance(body, bytes):
        await send({"type": "http.response.body", "body": body, "more_body": not last})
        return
    async with body as chunks:
        async for chunk in chunks:
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
    if last:
        await send({"type": "http.response.body", "body": b"", "more_body": False})
