"""Fixed one-minute windows per key, with headers on every /v1 response."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace

import httpx
import pytest

from fieldhouse.config import Settings
from fieldhouse.http.ratelimit import FixedWindowLimiter
from fieldhouse.runtime import Runtime, open_runtime
from tests.conftest import Workspace, make_workspace
from tests.http.test_auth import assert_envelope


def test_window_counts_and_resets() -> None:
    now = [120.0]
    limiter = FixedWindowLimiter(2, clock=lambda: now[0])
    first, second, third = (limiter.hit("k") for _ in range(3))
    assert (first.remaining, second.remaining, third.remaining) == (1, 0, 0)
    assert first.allowed and second.allowed and not third.allowed
    assert third.reset == 180 and third.retry_after == 60
    assert limiter.hit("other").allowed  # buckets are independent
    now[0] = 180.0
    fresh = limiter.hit("k")
    assert fresh.allowed and fresh.remaining == 1 and fresh.reset == 240


@pytest.fixture
async def tight(settings: Settings) -> AsyncIterator[Runtime]:
    async with open_runtime(replace(settings, rate_limit=3)) as rt:
        yield rt


async def test_limit_headers_and_429(tight: Runtime) -> None:
    ws: Workspace = await make_workspace(tight)
    transport = httpx.ASGITransport(app=tight.app)  # type: ignore[arg-type]
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
        ok = await client.get("/v1/me", headers=ws.headers)
        assert ok.headers["X-RateLimit-Limit"] == "3"
        assert ok.headers["X-RateLimit-Remaining"] == "2"
        reset = int(ok.headers["X-RateLimit-Reset"])
        assert reset % 60 == 0
        missing = await client.get("/v1/modules/nope", headers=ws.headers)
        assert missing.status_code == 404
        assert missing.headers["X-RateLimit-Remaining"] == "1"
        await client.get("/v1/me", headers=ws.headers)
        limited = await client.get("/v1/me", headers=ws.headers)
        assert_envelope(limited, 429, "rate_limit_exceeded")
        assert 1 <= int(limited.headers["Retry-After"]) <= 60
        assert limited.headers["X-RateLimit-Remaining"] == "0"
        # unauthenticated calls are counted per client address, with the same headers
        anon = await client.get("/v1/me")
        assert anon.status_code == 401
        assert anon.headers["X-RateLimit-Limit"] == "3"
