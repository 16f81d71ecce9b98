"""The dispatch: which operation its table finds for a request, and how it answers what no
operation serves (HEAD, OPTIONS, a trailing slash, 404 and 405) through the same pipeline."""

from __future__ import annotations

from typing import Any

import httpx

from fieldhouse.http.dispatch import Dispatch, RouteTable
from fieldhouse.http.endpoint import Operation, Routes
from fieldhouse.runtime import Runtime
from tests.conftest import Workspace


def table_of(runtime: Runtime) -> RouteTable:
    dispatch = runtime.app
    assert isinstance(dispatch, Dispatch)
    return dispatch.table


def served(table: RouteTable, method: str, path: str) -> tuple[str, str, dict[str, str]] | None:
    hit = table.match(method, path)
    return None if hit is None else (hit[0].spec.operation_id, hit[1], hit[2])


async def test_static_and_parameterised_paths_are_matched_with_their_route(
    runtime: Runtime,
) -> None:
    table = table_of(runtime)
    assert served(table, "GET", "/v1/me") == ("get_me", "/v1/me", {})
    assert served(table, "GET", "/v1/modules/deals/fields") == (
        "list_fields",
        "/v1/modules/{moduleSlug}/fields",
        {"moduleSlug": "deals"},
    )
    # a path outside /v1 is served under /v1 too, labelled with the path it came in on
    assert served(table, "GET", "/v1/healthz") == ("healthz", "/v1/healthz", {})
    # a static segment beats a parameter, as in werkzeug's router
    batch = served(table, "POST", "/v1/modules/deals/records/batch")
    assert batch is not None and batch[1] == "/v1/modules/{moduleSlug}/records/batch"


async def test_what_the_table_does_not_match(runtime: Runtime) -> None:
    table = table_of(runtime)
    assert served(table, "HEAD", "/v1/me") is None  # the dispatch asks for GET
    assert served(table, "DELETE", "/v1/me") is None  # 405 with Allow
    assert served(table, "GET", "/v1/nowhere") is None  # 404
    assert served(table, "GET", "/v1/modules//fields") is None  # an empty parameter
    assert table.allowed("/v1/me") == (["GET", "HEAD", "OPTIONS"], "/v1/me")
    assert table.allowed("/v1/nowhere") == ([], "<unmatched>")
    methods, route = table.allowed("/v1/modules/deals/records/r1")
    assert "PATCH" in methods and route == "/v1/modules/{moduleSlug}/records/{recordId}"
    # event streams are in the table too: the dispatch watches for the client leaving
    assert served(table, "POST", "/v1/agents/messages") is not None


async def test_of_two_patterns_that_fit_the_more_literal_one_serves(runtime: Runtime) -> None:
    routes = Routes()

    async def handler(svc: Any) -> Any:
        return {}

    for path in ("/x/{a}/c", "/x/b/{d}"):
        routes.endpoint("GET", path, summary="", scope=None, tag="t")(handler)
    table = RouteTable(Operation(spec, fn, runtime.services) for spec, fn in routes.entries)
    assert served(table, "GET", "/x/a/c") == ("handler", "/x/{a}/c", {"a": "a"})
    assert served(table, "GET", "/x/b/c") == ("handler", "/x/b/{d}", {"d": "c"})


async def test_head_options_and_a_trailing_slash_answer_as_the_operation_does(
    client: httpx.AsyncClient, ws: Workspace
) -> None:
    """/v1/me, /v1/me/ and HEAD /v1/me: the same status, headers and body (HEAD without the
    body); OPTIONS says what is allowed; a method not served is 405 with Allow, in the
    envelope with the rate-limit headers."""
    fast = await client.get("/v1/me", headers={**ws.headers, "X-Request-Id": "req-1"})
    slash = await client.get("/v1/me/", headers={**ws.headers, "X-Request-Id": "req-1"})
    head = await client.head("/v1/me", headers={**ws.headers, "X-Request-Id": "req-1"})
    assert fast.status_code == slash.status_code == head.status_code == 200
    assert fast.json() == slash.json()
    assert head.content == b""

    def comparable(response: httpx.Response) -> dict[str, str]:
        return {k: v for k, v in response.headers.items() if k != "x-ratelimit-remaining"}

    assert comparable(fast) == comparable(slash) == comparable(head)
    assert fast.headers["X-Request-Id"] == "req-1"
    options = await client.options("/v1/me", headers=ws.headers)
    assert (options.status_code, options.headers["Allow"]) == (200, "GET, HEAD, OPTIONS")
    not_allowed = await client.delete("/v1/me", headers=ws.headers)
    assert not_allowed.status_code == 405
    assert not_allowed.headers["Allow"] == "GET, HEAD, OPTIONS"
    error = not_allowed.json()["error"]
    assert (error["code"], error["statusCode"]) == ("method_not_allowed", 405)
    assert "X-RateLimit-Limit" in not_allowed.headers
    missing = await client.get("/v1/nowhere/", headers=ws.headers)
    assert missing.json()["error"]["message"] == "No route for GET /v1/nowhere/"
    assert "X-RateLimit-Limit" in missing.headers


async def test_a_client_gone_before_its_body_ended_gets_no_answer(
    runtime: Runtime, ws: Workspace
) -> None:
    messages: list[dict[str, Any]] = [
        {"type": "http.request", "body": b'{"values":', "more_body": True},
        {"type": "http.disconnect"},
    ]
    sent: list[Any] = []

    async def receive() -> dict[str, Any]:
        return messages.pop(0)

    async def send(message: Any) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "method": "POST",
        "path": "/v1/modules/deals/records",
        "query_string": b"",
        "headers": [
            (b"authorization", ws.headers["Authorization"].encode()),
            (b"content-type", b"application/json"),
            (b"content-length", b"100"),
        ],
    }
    await runtime.app(scope, receive, send)  # type: ignore[arg-type]
    assert sent == []
    assert messages == []


async def test_an_unread_body_is_read_to_its_end(runtime: Runtime, ws: Workspace) -> None:
    """GET /v1/me does not read a body; one sent anyway is read and dropped before the
    answer, so the server can take the connection's next request (a body the app leaves
    unread holds hypercorn's connection when it is larger than hypercorn buffers)."""
    messages = [
        {"type": "http.request", "body": b"x" * 1000, "more_body": more}
        for more in (True, True, False)
    ]
    sent: list[Any] = []

    async def receive() -> dict[str, Any]:
        return messages.pop(0)

    async def send(message: Any) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "method": "GET",
        "path": "/v1/me",
        "query_string": b"",
        "headers": [
            (b"authorization", ws.headers["Authorization"].encode()),
            (b"content-length", b"3000"),
        ],
    }
    await runtime.app(scope, receive, send)  # type: ignore[arg-type]
    assert messages == []
    assert sent[0]["status"] == 200
    assert [m["type"] for m in sent] == ["http.response.start", "http.response.body"]


async def test_a_literal_path_is_not_a_parameter_of_another_method(runtime: Runtime) -> None:
    """PATCH .../records/bulk-delete is bulk-delete's path with a method it does not serve
    (405, Allow: POST), not a record named "bulk-delete"."""
    table = table_of(runtime)
    assert served(table, "PATCH", "/v1/modules/deals/records/bulk-delete") is None
    assert table.allowed("/v1/modules/deals/records/bulk-delete") == (
        ["OPTIONS", "POST"],
        "/v1/modules/{moduleSlug}/records/bulk-delete",
    )
    record = served(table, "PATCH", "/v1/modules/deals/records/r1")
    assert record is not None and record[1] == "/v1/modules/{moduleSlug}/records/{recordId}"
