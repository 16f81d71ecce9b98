"""What each request leaves behind (observe.py): its id, one access-log line at a level by
status, its metrics under a bounded route label, and CORS headers by the allowed origins.
(The main paths are in tests/http/routes/test_ops.py.)"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from dataclasses import replace

import httpx
import pytest

from fieldhouse.config import Settings
from fieldhouse.http.exchange import UNMATCHED
from fieldhouse.http.observe import ALLOWED_METHODS, PREFLIGHT_MAX_AGE
from fieldhouse.runtime import open_runtime
from tests.conftest import Workspace, make_workspace

APP = "https://app.example"


@pytest.fixture
async def open_to(
    settings: Settings, request: pytest.FixtureRequest
) -> AsyncIterator[tuple[httpx.AsyncClient, Workspace]]:
    """A client of a server whose FIELDHOUSE_CORS_ORIGINS is the test's parameter."""
    origins: tuple[str, ...] = request.param
    async with open_runtime(replace(settings, cors_origins=origins)) as rt:
        transport = httpx.ASGITransport(app=rt.app)  # type: ignore[arg-type]
        async with httpx.AsyncClient(transport=transport, base_url="http://fh.test") as client:
            yield client, await make_workspace(rt)


def access_lines(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == "fieldhouse.access"]


@pytest.mark.parametrize(
    ("sent", "kept"),
    [("a" * 128, True), ("a" * 129, False), ("trace:1-2_3.4", True), ("a b", False), ("", False)],
)
async def test_request_ids_that_look_like_ids_are_kept(
    client: httpx.AsyncClient, sent: str, kept: bool
) -> None:
    resp = await client.get("/healthz", headers={"X-Request-Id": sent})
    got = resp.headers["X-Request-Id"]
    if kept:
        assert got == sent
    else:
        assert got != sent and len(got) == 32 and int(got, 16) >= 0


async def test_unmatched_paths_share_one_label(
    client: httpx.AsyncClient, caplog: pytest.LogCaptureFixture
) -> None:
    """Paths that match no route are counted under one label, so a scan of made-up paths
    cannot grow the metrics without bound."""
    caplog.set_level(logging.INFO, logger="fieldhouse.access")
    for path in ("/nowhere", "/v1/else/where", "/v1/modules/a/b/c/d"):
        assert (await client.get(path)).status_code == 404
    records = access_lines(caplog)
    assert [r.fields["route"] for r in records] == [UNMATCHED] * 3  # type: ignore[attr-defined]
    assert records[0].getMessage() == "GET /nowhere 404"
    assert records[0].levelno == logging.INFO
    assert records[0].fields["workspaceId"] is None  # type: ignore[attr-defined]
    metrics = (await client.get("/metrics")).text
    line = f'fieldhouse_http_requests_total{{method="GET",route="{UNMATCHED}",status="404"}} 3.0'
    assert line in metrics


async def test_metrics_count_when_the_access_log_is_off(
    client: httpx.AsyncClient, ws: Workspace, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="fieldhouse.access")
    for _ in range(2):
        await client.get("/v1/modules/contacts/records/x", headers=ws.headers)
    assert access_lines(caplog) == []
    metrics = (await client.get("/metrics")).text
    route = "/v1/modules/{moduleSlug}/records/{recordId}"
    assert f'fieldhouse_http_requests_total{{method="GET",route="{route}",status="400"}} 2.0' in (
        metrics
    )


@pytest.mark.parametrize("open_to", [("*",)], indirect=True)
async def test_a_wildcard_allows_every_origin(
    open_to: tuple[httpx.AsyncClient, Workspace],
) -> None:
    client, ws = open_to
    answer = await client.options(
        "/v1/me",
        headers={"Origin": "https://any.example", "Access-Control-Request-Method": "GET"},
    )
    assert answer.status_code == 204 and answer.content == b""
    assert answer.headers["Access-Control-Allow-Origin"] == "*"
    assert answer.headers["Access-Control-Allow-Methods"] == ALLOWED_METHODS
    assert answer.headers["Access-Control-Max-Age"] == PREFLIGHT_MAX_AGE
    assert "Access-Control-Allow-Headers" not in answer.headers  # none were asked for
    real = await client.get("/v1/me", headers={**ws.headers, "Origin": "https://any.example"})
    assert real.headers["Access-Control-Allow-Origin"] == "*"
    assert real.headers["Vary"] == "Origin"


@pytest.mark.parametrize("open_to", [(APP,)], indirect=True)
async def test_origins_match_without_a_trailing_slash(
    open_to: tuple[httpx.AsyncClient, Workspace],
) -> None:
    client, ws = open_to
    real = await client.get("/v1/me", headers={**ws.headers, "Origin": APP + "/"})
    assert real.headers["Access-Control-Allow-Origin"] == APP + "/"
    other = await client.get("/v1/me", headers={**ws.headers, "Origin": "https://app.example.evil"})
    assert "Access-Control-Allow-Origin" not in other.headers
    assert other.headers["Vary"] == "Origin"  # the answer depends on the origin all the same
    same_site = await client.get("/v1/me", headers=ws.headers)  # no Origin: no CORS headers
    assert (
        "Access-Control-Allow-Origin" not in same_site.headers and "Vary" not in same_site.headers
    )


@pytest.mark.parametrize("open_to", [(APP,)], indirect=True)
async def test_a_refused_preflight_is_logged_with_its_code(
    open_to: tuple[httpx.AsyncClient, Workspace], caplog: pytest.LogCaptureFixture
) -> None:
    client, _ = open_to
    caplog.set_level(logging.INFO, logger="fieldhouse.access")
    answer = await client.options(
        "/v1/me",
        headers={"Origin": "https://evil.example", "Access-Control-Request-Method": "GET"},
    )
    assert answer.status_code == 403
    assert answer.headers.get_list("Vary") == ["Origin"]  # once, not once per layer
    assert answer.json()["error"]["message"] == (
        "Origin https://evil.example may not call this API; allowed origins are set with "
        "FIELDHOUSE_CORS_ORIGINS"
    )
    (record,) = access_lines(caplog)
    assert record.fields["error"] == "forbidden"  # type: ignore[attr-defined]
    assert record.fields["status"] == 403  # type: ignore[attr-defined]
    assert record.fields["route"] == "/v1/me"  # type: ignore[attr-defined]
    # an OPTIONS request without the preflight headers is not answered as one
    plain = await client.options("/v1/me", headers={"Origin": APP})
    assert plain.status_code != 204
    assert "Access-Control-Allow-Methods" not in plain.headers
