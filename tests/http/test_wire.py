"""The real server: hypercorn on a loopback port, spoken to over TCP by httpx."""

from __future__ import annotations

from functools import partial

import httpx
import trio

from fieldhouse.http.server import serve_app
from fieldhouse.runtime import Runtime
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
