"""The machine's baseline: a raw ASGI app answering ``{"ok":true}`` to any GET.

Serve it with ``hypercorn -k trio benchmarks.baseline_app:app --bind 127.0.0.1:PORT``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

BODY = b'{"ok":true}'
OK_HEADERS = [(b"content-type", b"application/json"), (b"content-length", b"11")]
NOT_ALLOWED_HEADERS = [(b"allow", b"GET"), (b"content-length", b"0")]


async def app(scope: Scope, receive: Receive, send: Send) -> None:
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return
    if scope["type"] != "http":
        return
    if scope["method"] == "GET":
        await send({"type": "http.response.start", "status": 200, "headers": OK_HEADERS})
        await send({"type": "http.response.body", "body": BODY})
        return
    await send({"type": "http.response.start", "status": 405, "headers": NOT_ALLOWED_HEADERS})
    await send({"type": "http.response.body", "body": b""})
