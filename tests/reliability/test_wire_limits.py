"""Limits over a real socket: an oversized chunked body (no Content-Length) gets 413 in the
envelope, and a request refused before its body was read leaves the keep-alive connection
usable (the body is drained)."""

from __future__ import annotations

from functools import partial

import httpx
import pytest
import trio

from fieldhouse.http.wire.server import serve_app
from fieldhouse.runtime import Runtime
from tests.conftest import make_workspace


@pytest.fixture
def backend() -> str:
    return "sqlite"


async def test_chunked_oversized_body_is_413_and_refusals_keep_the_connection(
    runtime: Runtime,
) -> None:
    ws = await make_workspace(runtime)
    stop = trio.Event()
    limit = runtime.settings.max_body_bytes
    async with trio.open_nursery() as nursery:
        base = (await nursery.start(partial(serve_app, runtime, shutdown_trigger=stop.wait)))[0]

        async def chunks() -> object:
            for _ in range(limit // 65536 + 4):
                yield b"x" * 65536

        async with httpx.AsyncClient(base_url=base, timeout=30) as client:
            resp = await client.post(
                "/api/labels",
                headers={**ws.headers, "Content-Type": "application/json"},
                content=chunks(),  # type: ignore[arg-type]
            )
            assert "content-length" not in resp.request.headers
            assert resp.status_code == 413
            error = resp.json()["error"]
            assert error["code"] == "payload_too_large" and error["statusCode"] == 413
        with trio.fail_after(20):
            async with httpx.AsyncClient(base_url=base, timeout=10) as client:
                for auth in ("Bearer sk_live_" + "x" * 40, "Bearer nope", "Basic x"):
                    for _ in range(5):
                        refused = await client.post(
                            "/v1/modules/deals/records",
                            headers={"Authorization": auth},
                            json={"displayName": "x" * 2000, "fields": {"name": "y" * 5000}},
                        )
                        assert refused.status_code == 401
                ok = await client.get("/v1/me", headers=ws.headers)
                assert ok.status_code == 200
        stop.set()
