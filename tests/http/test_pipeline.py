"""The steps every request goes through: admit, finish, and the error envelope."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from fieldhouse.http.body import drain_limit
from fieldhouse.http.exchange import Exchange, asgi_body
from fieldhouse.http.pipeline import admit, error_response, finish
from fieldhouse.model.errors import MethodNotAllowed, NotFound, PayloadTooLarge
from fieldhouse.runtime import Runtime
from tests.conftest import Workspace


def exchange(path: str, headers: dict[str, str], method: str = "GET") -> Exchange:
    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b""}

    scope = {
        "method": method,
        "path": path,
        "query_string": b"",
        "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()],
        "client": ("10.1.2.3", 4000),
    }
    return Exchange(scope, asgi_body(receive), None)


async def test_an_api_request_is_authenticated_and_counted(runtime: Runtime, ws: Workspace) -> None:
    svc = runtime.services
    ex = exchange("/v1/me", ws.headers)
    assert await admit(svc, ex) is None
    assert ex.principal is not None and ex.principal.account_id == ws.account_id
    assert ex.rate is not None and ex.rate.allowed
    # a bad credential is noted, not raised: the endpoint decides whether it needs one
    bad = exchange("/v1/me", {"Authorization": "Bearer sk_live_nope"})
    assert await admit(svc, bad) is None
    assert bad.principal is None and bad.auth_error is not None
    assert bad.rate is not None  # counted against the client's address


async def test_a_path_outside_the_api_is_neither_authenticated_nor_counted(
    runtime: Runtime, ws: Workspace
) -> None:
    ex = exchange("/docs", ws.headers)
    assert await admit(runtime.services, ex) is None
    assert ex.principal is None and ex.rate is None


async def test_a_declared_body_over_the_limit_is_refused_after_the_count(
    runtime: Runtime, ws: Workspace
) -> None:
    svc = runtime.services
    size = str(drain_limit(svc.settings.max_body_bytes) + 1)
    ex = exchange("/v1/me", {**ws.headers, "Content-Length": size}, method="POST")
    with pytest.raises(PayloadTooLarge) as caught:
        await admit(svc, ex)
    response = finish(svc, ex, await error_response(svc, ex, caught.value))
    assert response.status_code == 413
    # too long to be worth reading: the answer closes the connection
    assert response.headers["Connection"] == "close"
    assert response.headers["X-RateLimit-Limit"] == str(svc.settings.rate_limit)
    assert response.headers["X-Request-Id"] == ex.request_id


async def test_errors_get_the_envelope(runtime: Runtime) -> None:
    svc = runtime.services
    ex = exchange("/v1/nowhere", {})
    missing = await error_response(svc, ex, NotFound("No route for GET /v1/nowhere"))
    body = orjson.loads(missing.body)
    assert missing.status_code == 404
    assert body["error"] == {
        "code": "not_found",
        "message": "No route for GET /v1/nowhere",
        "statusCode": 404,
    }
    assert missing.headers["Content-Type"] == "application/json"
    not_allowed = await error_response(
        svc, ex, MethodNotAllowed("not here", headers={"Allow": "GET, HEAD"})
    )
    assert not_allowed.headers["Allow"] == "GET, HEAD"
    failed = await error_response(svc, ex, RuntimeError("boom"))
    body = orjson.loads(failed.body)
    assert failed.status_code == 500
    assert body["error"]["code"] == "internal_error"
    assert body["error"]["data"] == {"requestId": ex.request_id}
    assert ex.error_code == "internal_error"
