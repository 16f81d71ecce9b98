"""A thin ASGI front that serves the declared endpoints without Quart's request machinery.

Quart builds a request and an app context, werkzeug header objects and a URL adapter for each
request, and runs it beside a task that watches for the client leaving; for a small JSON
answer that was about half of what a request cost above the raw server. Here a declared
method and path is found with one dict look-up (static paths) or a compiled pattern
(parameterised ones), and the request runs the same pipeline (:mod:`fieldhouse.http.pipeline`)
on the ASGI scope. What the table does not answer goes to Quart unchanged: HEAD and OPTIONS,
paths it does not know (404) or knows for other methods (405), a path two patterns match
(Quart's router then decides), and the event-stream endpoints, whose client leaving must
cancel the run (quart-trio's request nursery does that).
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any

import trio
from quart import Response
from quart.utils import encode_headers
from quart.wrappers.response import DataBody

from fieldhouse.http.body import discard_body
from fieldhouse.http.endpoint import PATH_PARAM, Operation
from fieldhouse.http.exchange import ClientGone, Exchange, asgi_body, enter
from fieldhouse.http.pipeline import admit, error_response, finish
from fieldhouse.services import Services

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[..., Awaitable[None]]
#: an operation, the route it matched (OpenAPI form, the metrics label), its path parameters
Match = tuple[Operation, str, dict[str, str]]


def _pattern(path: str) -> re.Pattern[str]:
    """``/v1/modules/{moduleSlug}`` as a regex; a parameter is one non-empty segment, as with
    werkzeug's default converter."""
    parts = PATH_PARAM.split(path)  # literal, name, literal, name, ..., literal
    regex = "".join(
        f"(?P<{part}>[^/]+)" if index % 2 else re.escape(part) for index, part in enumerate(parts)
    )
    return re.compile(regex + r"\Z")


class RouteTable:
    """The declared operations by method and path, compiled once."""

    def __init__(self, operations: Iterable[Operation]) -> None:
        self._static: dict[tuple[str, str], tuple[Operation, str]] = {}
        self._patterns: dict[tuple[str, int], list[tuple[re.Pattern[str], Operation, str]]] = {}
        for op in operations:
            method = op.spec.method
            for path in op.spec.served_paths:
                if PATH_PARAM.search(path) is None:
                    self._static[method, path] = (op, path)
                else:
                    key = (method, path.count("/"))
                    self._patterns.setdefault(key, []).append((_pattern(path), op, path))

    def match(self, method: str, path: str) -> Match | None:
        """The one operation serving ``method`` on ``path``; None when there is none, or
        more than one pattern fits (a static path wins over a pattern, as in werkzeug)."""
        hit = self._static.get((method, path))
        if hit is not None:
            return hit[0], hit[1], {}
        found: Match | None = None
        for pattern, op, route in self._patterns.get((method, path.count("/")), ()):
            matched = pattern.match(path)
            if matched is not None:
                if found is not None:
                    return None
                found = (op, route, matched.groupdict())
        return found


class Dispatch:
    """The ASGI app: the table's operations served here, everything else by ``fallback``."""

    def __init__(
        self,
        svc: Services,
        operations: Iterable[Operation],
        fallback: ASGIApp,
        *,
        body_timeout: float | None,
        response_timeout: float | None,
    ) -> None:
        self.svc = svc
        self.table = RouteTable(op for op in operations if not op.spec.stream)
        self.fallback = fallback
        self.body_timeout = body_timeout
        self.response_timeout = response_timeout

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        hit = self.table.match(scope["method"], scope["path"]) if scope["type"] == "http" else None
        if hit is None:
            await self.fallback(scope, receive, send)
            return
        op, route, path_args = hit
        ex = Exchange(scope, asgi_body(receive), self.body_timeout)
        ex.route = route
        enter(ex)
        try:
            response = await self._respond(ex, op, path_args)
        except ClientGone:
            return  # as on Quart's path: no answer, no access-log line
        timeout = self.response_timeout if response.timeout is Ellipsis else response.timeout
        if timeout is None:
            await send_response(send, response)
        else:
            with trio.CancelScope(deadline=trio.current_time() + timeout):
                await send_response(send, response)

    async def _respond(self, ex: Exchange, op: Operation, path_args: dict[str, str]) -> Response:
        svc = self.svc
        try:
            response = await admit(svc, ex)
            if response is None:
                response = await op(ex, path_args)
            # a body the operation did not read is read and dropped, as Quart would have
            if not await discard_body(ex, svc.settings.max_body_bytes):
                response.headers["Connection"] = "close"
        except ClientGone:
            raise
        except Exception as exc:  # every error gets its envelope, as Quart's handlers give
            response = await error_response(svc, ex, exc)
        return finish(svc, ex, response)


async def send_response(send: Send, response: Response) -> None:
    """The response as ASGI messages: a whole body in one message, a streamed one by chunks."""
    start = {
        "type": "http.response.start",
        "status": response.status_code,
        "headers": encode_headers(response.headers),
    }
    await send(start)
    body = response.response
    if isinstance(body, DataBody):
        data = body.data[body.begin : body.end]
        await send({"type": "http.response.body", "body": data, "more_body": False})
        return
    async with body as chunks:
        async for chunk in chunks:
            data = chunk.encode() if isinstance(chunk, str) else chunk
            await send({"type": "http.response.body", "body": data, "more_body": True})
    await send({"type": "http.response.body", "body": b"", "more_body": False})
