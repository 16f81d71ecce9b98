"""JSON responses: orjson bodies, and a 204 with no body and no content type; U+0000 in a
request refused with a 400 that names where."""

from __future__ import annotations

import json

import httpx
import orjson

from fieldhouse.http.json import body_nul_issues, json_response, request_nul_issues
from fieldhouse.model.errors import Issue
from tests.conftest import Workspace
from tests.http.routes.test_records_list import cond, group
from tests.http.test_records_crud import BASE_FIELDS


async def test_a_payload_is_json_with_its_status_and_headers() -> None:
    response = json_response({"id": "r1", "n": [1, None]}, 201, {"Location": "/v1/x/r1"})
    assert response.status_code == 201
    assert response.headers["Content-Type"] == "application/json"
    assert response.headers["Location"] == "/v1/x/r1"
    assert orjson.loads(response.body) == {"id": "r1", "n": [1, None]}


async def test_204_has_no_body_and_no_content_type() -> None:
    response = json_response({"ignored": True}, 204, {"X-Request-Id": "abc"})
    assert response.status_code == 204
    assert response.body == b""
    assert "Content-Type" not in response.headers
    assert response.headers["X-Request-Id"] == "abc"


def nul_paths(issues: list[Issue]) -> list[tuple[str | int, ...]]:
    assert all(i.code == "invalid_string" and "U+0000" in i.message for i in issues)
    return [i.path for i in issues]


def test_a_body_holding_u0000_is_refused_where_it_holds_it() -> None:
    raw = rb'{"fields": {"name": "a\u0000b", "tags": ["x", "\u0000"]}, "k\u0000": 1}'
    assert nul_paths(body_nul_issues(raw)) == [
        ("fields", "name"),
        ("fields", "tags", 1),
        ("k\x00",),
    ]
    # an escaped backslash before "u0000" is text, not the character; malformed JSON is
    # left for the parser to name
    assert body_nul_issues(rb'{"name": "C:\\u0000"}') == []
    assert body_nul_issues(rb'{"name": "\u0000"') == []


def test_a_path_or_query_holding_u0000_is_refused_by_parameter() -> None:
    route = "/v1/modules/{moduleSlug}/records/{recordId}"
    found = request_nul_issues("/v1/modules/deals/records/r\x00", route, b"", [])
    assert nul_paths(found) == [("recordId",)]
    params = [
        ("search", "a\x00"),
        ("search", "\x00"),
        ("filter[name]", "ok"),
        ("advancedFilter", '{"root": {"conditions": [{"value": "\\u0000"}]}}'),
    ]
    found = request_nul_issues("/v1/modules/deals/records", "", b"search=a%00&...", params)
    assert nul_paths(found) == [
        ("advancedFilter", "root", "conditions", 0, "value"),
        ("search",),
    ]
    # a text parameter may hold the six characters \u0000 (only JSON reads them as one)
    assert request_nul_issues("/v1/x", "", b"search=%5Cu0000", [("search", "\\u0000")]) == []


async def test_u0000_anywhere_in_a_request_is_a_400_naming_where_and_writes_nothing(
    client: httpx.AsyncClient, ws: Workspace
) -> None:
    """On both backends alike: PostgreSQL cannot store the character, SQLite's text
    functions stop at it."""
    records = "/v1/modules/deals/records"
    made = await client.post(
        records, headers=ws.headers, json={"displayName": "ok", "fields": BASE_FIELDS["deals"]}
    )
    assert made.status_code == 201, made.text
    record_id = made.json()["record"]["recordId"]
    deal = {**BASE_FIELDS["deals"], "name": "De\x00al"}
    adv = {"root": group("AND", cond("name", "contains", value="\x00"))}
    refused = [
        (
            client.post(records, headers=ws.headers, json={"displayName": "d", "fields": deal}),
            ["fields", "name"],
        ),
        (
            client.post(records, headers=ws.headers, json={"displayName": "\x00", "fields": {}}),
            ["displayName"],
        ),
        (
            client.patch(
                f"{records}/{record_id}", headers=ws.headers, json={"fields": {"name": "\x00"}}
            ),
            ["fields", "name"],
        ),
        (client.post("/api/labels", headers=ws.headers, json={"name": "l\x00"}), ["name"]),
        (client.post("/v1/search", headers=ws.headers, json={"query": "\x00"}), ["query"]),
        (client.get(records, headers=ws.headers, params={"search": "a\x00"}), ["search"]),
        (
            client.get(records, headers=ws.headers, params={"filter[name]": "\x00"}),
            ["filter[name]"],
        ),
        (
            client.get(records, headers=ws.headers, params={"advancedFilter": json.dumps(adv)}),
            ["advancedFilter", "root", "conditions", 0, "value"],
        ),
        (client.get(f"{records}/r%00", headers=ws.headers), ["recordId"]),
    ]
    for request, path in refused:
        resp = await request
        assert resp.status_code == 400, resp.text
        error = resp.json()["error"]
        assert error["code"] == "validation_error"
        assert [i["path"] for i in error["issues"]] == [path]
        assert "U+0000" in error["message"]
    listed = await client.get(records, headers=ws.headers)
    assert [r["recordId"] for r in listed.json()["records"]] == [record_id]
    got = await client.get(f"{records}/{record_id}", headers=ws.headers)
    assert got.json()["record"]["fields"]["name"] == BASE_FIELDS["deals"]["name"]
    labels = await client.get("/api/labels", headers=ws.headers)
    assert all("\x00" not in label["name"] for label in labels.json()["labels"])
