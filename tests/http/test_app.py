"""Every failure uses the SPEC's envelope; nothing leaks a traceback."""

from __future__ import annotations

import logging

import httpx
import pytest

from fieldhouse.http.app import create_app
from fieldhouse.http.endpoint import Routes
from fieldhouse.runtime import Runtime
from fieldhouse.services import Services
from tests.conftest import Workspace
from tests.http.test_auth import assert_envelope


async def test_unknown_route_and_method(client: httpx.AsyncClient, ws: Workspace) -> None:
    error = assert_envelope(await client.get("/v1/nowhere", headers=ws.headers), 404, "not_found")
    assert "/v1/nowhere" in str(error["message"])
    resp = await client.delete("/v1/me", headers=ws.headers)
    error = assert_envelope(resp, 405, "method_not_allowed")
    assert "GET" in resp.headers["Allow"]


async def test_malformed_json(client: httpx.AsyncClient, ws: Workspace) -> None:
    resp = await client.post(
        "/api/labels",
        headers={**ws.headers, "Content-Type": "application/json"},
        content=b'{"name": "x",',
    )
    error = assert_envelope(resp, 400, "invalid_json")
    assert "Malformed JSON" in str(error["message"])
    empty = await client.post("/api/labels", headers=ws.headers, content=b"")
    assert_envelope(empty, 400, "invalid_json")


async def test_validation_issues_are_zod_style(client: httpx.AsyncClient, ws: Workspace) -> None:
    resp = await client.post("/api/labels", headers=ws.headers, json={"name": "", "colour": "red"})
    error = assert_envelope(resp, 400, "validation_error")
    issues = error["issues"]
    assert isinstance(issues, list)
    by_code = {i["code"]: i for i in issues}
    assert by_code["too_small"]["path"] == ["name"]
    assert by_code["too_small"]["minimum"] == 1
    assert by_code["unrecognized_keys"]["keys"] == ["colour"]
    wrong_type = await client.post("/api/labels", headers=ws.headers, json=["name"])
    assert_envelope(wrong_type, 400, "validation_error")


async def test_oversized_body_is_413(client: httpx.AsyncClient, ws: Workspace) -> None:
    big = b'{"name": "' + b"x" * (1024 * 1024 + 10) + b'"}'
    resp = await client.post("/api/labels", headers=ws.headers, content=big)
    error = assert_envelope(resp, 413, "payload_too_large")
    assert "1048576" in str(error["message"])


async def test_unexpected_exception_is_500_with_request_id(
    runtime: Runtime, caplog: pytest.LogCaptureFixture
) -> None:
    routes = Routes()

    @routes.endpoint("GET", "/v1/_explode", summary="", scope=None, tag="t")
    async def explode(svc: Services) -> None:
        raise RuntimeError("secret internals")

    app = create_app(runtime.services, routes)
    transport = httpx.ASGITransport(app=app)  # type: ignore[arg-type]
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
        with caplog.at_level(logging.ERROR, logger="fieldhouse.http"):
            resp = await client.get("/v1/_explode")
    error = assert_envelope(resp, 500, "internal_error")
    assert "secret internals" not in resp.text
    assert "Traceback" not in resp.text
    request_id = error["data"]["requestId"]  # type: ignore[index]
    assert resp.headers["X-Request-Id"] == request_id
    assert any(request_id in r.getMessage() for r in caplog.records)
