"""The real server: hypercorn on a loopback port, spoken to over TCP by httpx."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any

import httpx
import pytest
import trio

from fieldhouse.config import Settings
from fieldhouse.http.body import drain_limit
from fieldhouse.http.wire.server import serve_app
from fieldhouse.runtime import Runtime, open_runtime
from tests.conftest import make_workspace


async def test_served_over_tcp(runtime: Runtime) -> None:
    ws = await make_workspace(runtime)
    stop = trio.Event()
    async with trio.open_nursery() as nursery:
        binds = await nursery.start(partial(serve_app, runtime, shutdown_trigger=stop.wait))
        base = binds[0]
        assert base.startswith("http://127.0.0.1:")
        async with httpx.AsyncClient(base_url=base) as client:
            me = await client.get("/v1/me", headers=ws.headers)
            assert me.status_code == 200
            assert me.json()["accountId"] == ws.account_id
            assert me.headers["X-RateLimit-Limit"] == str(runtime.settings.rate_limit)
            modules = await client.get("/v1/modules", headers=ws.headers)
            assert len(modules.json()["modules"]) == 4
            missing = await client.get("/v1/missing", headers=ws.headers)
            assert missing.status_code == 404
            assert missing.json()["error"]["code"] == "not_found"
            unauth = await client.get("/v1/me")
            assert unauth.status_code == 401
            doc = await client.get("/openapi.json")
            assert doc.json()["info"]["version"] == "1.1.0"
        stop.set()


async def test_refused_bodies_keep_the_connection_in_step(runtime: Runtime) -> None:
    """A 413 (declared Content-Length or a chunked body over the limit) carries the rate-limit
    headers like every /v1 response, and the same keep-alive connection serves the next
    request: the refused body is read and discarded, not left to break the connection."""
    ws = await make_workspace(runtime)
    limit = runtime.settings.max_body_bytes
    big = b'{"name": "' + b"x" * (limit + 10) + b'"}'

    async def chunked() -> AsyncIterator[bytes]:
        for start in range(0, len(big), 65536):
            yield big[start : start + 65536]

    stop = trio.Event()
    connections: set[int] = set()

    async def seen(response: httpx.Response) -> None:
        stream = response.extensions["network_stream"]
        connections.add(id(stream.get_extra_info("socket")))

    async with trio.open_nursery() as nursery:
        binds = await nursery.start(partial(serve_app, runtime, shutdown_trigger=stop.wait))
        limits = httpx.Limits(max_connections=1, max_keepalive_connections=1)
        async with httpx.AsyncClient(
            base_url=binds[0], limits=limits, event_hooks={"response": [seen]}
        ) as client:
            for i in range(20):
                body = big if i % 2 == 0 else chunked()
                resp = await client.post("/v1/api/labels", headers=ws.headers, content=body)
                assert resp.status_code == 413, resp.text
                assert resp.json()["error"]["code"] == "payload_too_large"
                assert resp.headers["X-RateLimit-Limit"] == str(runtime.settings.rate_limit)
                assert "X-RateLimit-Remaining" in resp.headers
                assert "X-RateLimit-Reset" in resp.headers
                assert resp.headers.get("Connection", "").lower() != "close"
                me = await client.get("/v1/me", headers=ws.headers)
                assert me.status_code == 200
        stop.set()
    assert len(connections) == 1


async def test_a_body_too_long_to_drain_is_refused_with_connection_close(
    settings: Settings,
) -> None:
    """Past DRAIN_FACTOR times the limit the body is not read: the 413 says Connection: close
    (the client opens a new connection for its next request instead of failing on it)."""
    small = replace(settings, max_body_bytes=1000)
    async with open_runtime(small) as runtime:
        ws = await make_workspace(runtime)
        stop = trio.Event()
        async with trio.open_nursery() as nursery:
            binds = await nursery.start(partial(serve_app, runtime, shutdown_trigger=stop.wait))
            async with httpx.AsyncClient(base_url=binds[0]) as client:
                within = b"x" * (drain_limit(1000) - 1)
                kept = await client.post("/v1/api/labels", headers=ws.headers, content=within)
                assert kept.status_code == 413
                assert kept.headers.get("Connection", "").lower() != "close"
                beyond = b"x" * (drain_limit(1000) + 1)
                closed = await client.post("/v1/api/labels", headers=ws.headers, content=beyond)
                assert closed.status_code == 413
                assert closed.headers["Connection"].lower() == "close"
                assert "X-RateLimit-Limit" in closed.headers
                assert (await client.get("/v1/me", headers=ws.headers)).status_code == 200
            stop.set()


@dataclass
class _Failing:
    """A Servable whose app fails before it answers, or ends without answering."""

    settings: Settings
    shutdown: trio.Event = field(default_factory=trio.Event)

    async def app(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while (await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
        elif scope["path"] == "/raises":
            raise RuntimeError("secret internals")


async def test_an_app_that_fails_before_answering_gets_a_500_in_the_envelope(
    caplog: pytest.LogCaptureFixture,
) -> None:
    servable = _Failing(Settings(port=0))
    stop = trio.Event()
    async with trio.open_nursery() as nursery:
        binds = await nursery.start(partial(serve_app, servable, shutdown_trigger=stop.wait))
        async with httpx.AsyncClient(base_url=binds[0]) as client:
            with caplog.at_level(logging.ERROR, logger="fieldhouse.server"):
                for path in ("/raises", "/returns"):
                    resp = await client.get(path)
                    assert resp.status_code == 500
                    assert resp.headers["content-type"] == "application/json"
                    error = resp.json()["error"]
                    assert (error["code"], error["statusCode"]) == ("internal_error", 500)
                    assert "secret" not in resp.text
        stop.set()
    logged = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert logged == [
        "the app failed before answering GET /raises",
        "the app ended without answering GET /returns",
    ]
