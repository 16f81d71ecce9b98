"""Operations endpoints a deployer meets: /healthz, /readyz, /metrics, X-Request-Id, CORS."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from dataclasses import replace

import httpx
import pytest

from fieldhouse.config import Settings
from fieldhouse.logs import JsonFormatter
from fieldhouse.runtime import Runtime, open_runtime
from tests.conftest import Workspace, make_workspace

ALLOWED = "https://app.example"


async def test_healthz_and_readyz_answer_without_a_key(client: httpx.AsyncClient) -> None:
    live = await client.get("/healthz")
    assert live.status_code == 200
    assert live.json() == {"status": "ok"}
    ready = await client.get("/readyz")
    assert ready.status_code == 200
    body = ready.json()
    assert body["status"] == "ready"
    assert body["checks"]["store"] == "ok"
    assert body["checks"]["actors"] == "ok"
    assert body["checks"]["search"]["state"] == "on"
    assert body["checks"]["search"]["vectorsWaiting"] >= 0
    assert body["checks"]["search"]["oldestWaitingSeconds"] >= 0


async def test_metrics_count_requests_by_route_template_and_status(
    client: httpx.AsyncClient, ws: Workspace
) -> None:
    for _ in range(3):
        assert (await client.get("/v1/me", headers=ws.headers)).status_code == 200
    assert (await client.get("/v1/modules/nope", headers=ws.headers)).status_code == 404
    assert (await client.get("/v1/me")).status_code == 401
    created = await client.post(
        "/v1/modules/contacts/records",
        headers=ws.headers,
        json={"displayName": "Ada Lovelace", "fields": {"first-name": "Ada"}},
    )
    assert created.status_code == 201, created.text
    response = await client.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    text = response.text
    assert 'fieldhouse_http_requests_total{method="GET",route="/v1/me",status="200"} 3.0' in text
    assert 'fieldhouse_http_requests_total{method="GET",route="/v1/me",status="401"} 1.0' in text
    assert (
        'fieldhouse_http_requests_total{method="GET",route="/v1/modules/{moduleSlug}",'
        'status="404"} 1.0' in text
    )
    assert 'fieldhouse_http_request_duration_seconds_count{method="GET",route="/v1/me"} 4.0' in text
    assert "fieldhouse_actor_batch_size_count" in text
    assert "fieldhouse_actor_commit_seconds_bucket" in text
    assert "fieldhouse_actor_mailbox_depth 0.0" in text
    assert "fieldhouse_search_vectors_waiting" in text
    assert "fieldhouse_search_vectors_oldest_seconds" in text
    assert "# TYPE fieldhouse_agent_runs_total counter" in text


async def test_request_id_is_kept_when_sent_and_made_when_not(
    client: httpx.AsyncClient, ws: Workspace
) -> None:
    sent = await client.get("/v1/me", headers={**ws.headers, "X-Request-Id": "trace-42.a"})
    assert sent.headers["X-Request-Id"] == "trace-42.a"
    made = await client.get("/v1/me", headers=ws.headers)
    assert len(made.headers["X-Request-Id"]) == 32
    # a header that is not an id (too long, odd characters) is replaced, not echoed
    odd = await client.get("/healthz", headers={"X-Request-Id": "x" * 200})
    assert odd.headers["X-Request-Id"] != "x" * 200
    error = await client.get("/v1/nowhere", headers={"X-Request-Id": "abc"})
    assert error.status_code == 404
    assert error.headers["X-Request-Id"] == "abc"


async def test_access_log_has_one_structured_line_without_the_key(
    client: httpx.AsyncClient, ws: Workspace, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="fieldhouse.access")
    await client.get("/v1/me", headers={**ws.headers, "X-Request-Id": "req-1"})
    await client.get("/v1/modules/nope", headers={**ws.headers, "X-Request-Id": "req-2"})
    lines = [
        json.loads(JsonFormatter().format(r))
        for r in caplog.records
        if r.name == "fieldhouse.access"
    ]
    assert len(lines) == 2
    ok, missing = lines
    assert ok["method"] == "GET"
    assert ok["route"] == "/v1/me"
    assert ok["status"] == 200
    assert ok["requestId"] == "req-1"
    assert ok["workspaceId"] == ws.account_id
    assert ok["keyId"] == ws.key_id
    assert ok["durationMs"] >= 0
    assert missing["status"] == 404
    assert missing["error"] == "not_found"
    assert missing["route"] == "/v1/modules/{moduleSlug}"
    assert ws.key not in caplog.text


@pytest.fixture
async def cors_client(settings: Settings) -> AsyncIterator[tuple[httpx.AsyncClient, Workspace]]:
    async with open_runtime(replace(settings, cors_origins=(ALLOWED,))) as rt:
        transport = httpx.ASGITransport(app=rt.app)  # type: ignore[arg-type]
        async with httpx.AsyncClient(transport=transport, base_url="http://fh.test") as client:
            yield client, await make_workspace(rt)


def _preflight(origin: str) -> dict[str, str]:
    return {
        "Origin": origin,
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization, content-type",
    }


async def test_cors_preflight_from_an_allowed_origin(
    cors_client: tuple[httpx.AsyncClient, Workspace],
) -> None:
    client, ws = cors_client
    answer = await client.options("/v1/modules/contacts/records", headers=_preflight(ALLOWED))
    assert answer.status_code == 204
    assert answer.headers["Access-Control-Allow-Origin"] == ALLOWED
    assert "POST" in answer.headers["Access-Control-Allow-Methods"]
    assert answer.headers["Access-Control-Allow-Headers"] == "authorization, content-type"
    assert answer.headers["Vary"] == "Origin"
    real = await client.get("/v1/me", headers={**ws.headers, "Origin": ALLOWED})
    assert real.status_code == 200
    assert real.headers["Access-Control-Allow-Origin"] == ALLOWED
    assert "X-Request-Id" in real.headers["Access-Control-Expose-Headers"]


async def test_cors_preflight_from_another_origin_is_refused(
    cors_client: tuple[httpx.AsyncClient, Workspace],
) -> None:
    client, ws = cors_client
    answer = await client.options(
        "/v1/modules/contacts/records", headers=_preflight("https://evil.example")
    )
    assert answer.status_code == 403
    assert "Access-Control-Allow-Origin" not in answer.headers
    assert answer.json()["error"]["code"] == "forbidden"
    assert "https://evil.example" in answer.json()["error"]["message"]
    real = await client.get("/v1/me", headers={**ws.headers, "Origin": "https://evil.example"})
    assert "Access-Control-Allow-Origin" not in real.headers


async def test_without_cors_origins_no_origin_is_allowed(
    client: httpx.AsyncClient, ws: Workspace
) -> None:
    answer = await client.options("/v1/me", headers=_preflight(ALLOWED))
    assert answer.status_code == 403
    assert "Access-Control-Allow-Origin" not in answer.headers
    real = await client.get("/v1/me", headers={**ws.headers, "Origin": ALLOWED})
    assert "Access-Control-Allow-Origin" not in real.headers


async def test_readyz_says_unavailable_while_stopping(
    runtime: Runtime, client: httpx.AsyncClient
) -> None:
    runtime.shutdown.set()
    answer = await client.get("/readyz")
    assert answer.status_code == 503
    body = answer.json()
    assert body["status"] == "unavailable"
    assert body["checks"]["actors"] == "stopping"
    assert (await client.get("/healthz")).status_code == 200


async def test_metrics_count_agent_runs_by_outcome(
    client: httpx.AsyncClient, ws: Workspace
) -> None:
    for _ in range(2):
        answer = await client.post(
            "/v1/agents/messages",
            json={"message": "create a contact named Ada Lovelace"},
            headers=ws.headers,
        )
        assert answer.status_code == 200, answer.text
        assert answer.json()["success"] is True
    text = (await client.get("/metrics")).text
    assert 'fieldhouse_agent_runs_total{outcome="succeeded"} 2.0' in text
