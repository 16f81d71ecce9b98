"""Hostile numbers and repeats: every integer query parameter the document lists has both
bounds, and a value past them (2^63, 10^30, a negative one) is a 400 naming the parameter on
both backends, never a 500 from the database; a single-valued parameter sent twice is a 400
too; a body integer the store keeps is bounded where it is checked."""

from __future__ import annotations

import json
import uuid
from typing import Any

import httpx
import pytest

from fieldhouse.http.openapi import build_openapi
from fieldhouse.http.routes import ROUTES
from fieldhouse.http.routes.ops import routes as ops_routes
from tests.conftest import Workspace
from tests.http.test_auth import assert_envelope
from tests.http.test_records_crud import BASE_FIELDS, create, records_url

DOCUMENT = build_openapi([spec for group in (*ROUTES, ops_routes) for spec, _ in group.entries])


def _integer_schema(schema: dict[str, Any]) -> dict[str, Any] | None:
    if schema.get("type") == "integer":
        return schema
    return next((s for s in schema.get("anyOf", []) if s.get("type") == "integer"), None)


def integer_params() -> list[tuple[str, str, str, dict[str, Any]]]:
    """(method, path, parameter, schema) of every integer query parameter in the document."""
    found = []
    for path, item in DOCUMENT["paths"].items():
        for method, op in item.items():
            for param in op["parameters"]:
                schema = _integer_schema(param["schema"])
                if param["in"] == "query" and schema is not None:
                    found.append((method.upper(), path, param["name"], schema))
    return found


PARAMS = integer_params()
#: 2^63 (one past what SQLite and PostgreSQL store), 10^30, a negative one, 5,000 digits
HOSTILE = (str(2**63), "1" + "0" * 30, "-1", "9" * 5000)


def served(path: str) -> str:
    """The path with its parameters filled in: a real module, an id for the rest (the
    parameters are checked before anything is looked up, or after the module is)."""
    filled = path.replace("{moduleSlug}", "deals")
    for name in ("recordId", "approvalId", "runId", "webhookId", "deliveryId", "moduleId"):
        filled = filled.replace("{" + name + "}", str(uuid.uuid4()))
    return "/v1" + filled.replace("{referenceSlug}", "contacts").replace("{", "").replace("}", "")


def test_the_document_lists_the_integer_parameters_the_feeds_take() -> None:
    names = {(path, name) for _, path, name, _ in PARAMS}
    assert ("/activity", "afterSeq") in names
    assert ("/modules/{moduleSlug}/records", "pageSize") in names
    assert ("/modules/{moduleSlug}/records/{recordId}/activity", "groupWithinMinutes") in names
    for _, path, name, schema in PARAMS:
        assert "minimum" in schema and "maximum" in schema, (path, name, schema)
    feed = _integer_schema(
        next(
            p
            for p in DOCUMENT["paths"]["/activity"]["get"]["parameters"]
            if p["name"] == "afterSeq"
        )["schema"]
    )
    assert feed == {"type": "integer", "minimum": 0, "maximum": 2**63 - 1}


@pytest.mark.parametrize(
    ("method", "path", "name", "schema"),
    [pytest.param(*p, id=f"{p[0]} {p[1]} {p[2]}") for p in PARAMS],
)
async def test_an_integer_parameter_past_its_bounds_is_a_400_naming_it(
    client: httpx.AsyncClient,
    ws: Workspace,
    method: str,
    path: str,
    name: str,
    schema: dict[str, Any],
) -> None:
    for value in HOSTILE:
        if value.startswith("-") and schema["minimum"] < 0:  # pragma: no cover - none yet
            continue
        resp = await client.request(method, served(path), params={name: value}, headers=ws.headers)
        error = assert_envelope(resp, 400, "validation_error")
        issues = error["issues"]
        assert isinstance(issues, list)
        assert [i["path"] for i in issues] == [[name]], (value[:30], issues)
        assert issues[0]["code"] == ("too_small" if value.startswith("-") else "too_big")


async def test_the_change_feed_takes_its_largest_sequence_number(
    client: httpx.AsyncClient, ws: Workspace
) -> None:
    resp = await client.get("/v1/activity", params={"afterSeq": str(2**63 - 1)}, headers=ws.headers)
    assert resp.status_code == 200, resp.text
    assert resp.json() == {"activities": [], "nextAfterSeq": 2**63 - 1}


async def test_a_query_integer_is_digits_only(client: httpx.AsyncClient, ws: Workspace) -> None:
    for text in ("5.0", "1e1", "0x10", ""):
        resp = await client.get("/v1/activity", params={"limit": text}, headers=ws.headers)
        error = assert_envelope(resp, 400, "validation_error")
        assert error["issues"] == [
            {
                "code": "invalid_type",
                "path": ["limit"],
                "message": "Input should be an integer: decimal digits with an optional sign",
                "expected": "integer",
                "received": "string",
            }
        ], text
    ok = await client.get("/v1/activity", params={"limit": " +05 "}, headers=ws.headers)
    assert ok.status_code == 200 and len(ok.json()["activities"]) <= 5


async def test_a_repeated_parameter_is_refused_like_an_unknown_one(
    client: httpx.AsyncClient, ws: Workspace
) -> None:
    await create(client, ws, "deals", name="One")
    resp = await client.get(
        records_url("deals") + "?pageSize=5&pageSize=50&sortDirection=asc", headers=ws.headers
    )
    error = assert_envelope(resp, 400, "validation_error")
    assert error["issues"] == [
        {
            "code": "too_big",
            "path": ["pageSize"],
            "message": "Query parameter 'pageSize' was sent 2 times; it takes one value",
            "maximum": 1,
            "inclusive": True,
            "type": "array",
            "received": 2,
        }
    ]
    feed = await client.get("/v1/activity?limit=1&limit=1&limit=2", headers=ws.headers)
    error = assert_envelope(feed, 400, "validation_error")
    assert [(i["path"], i["received"]) for i in error["issues"]] == [(["limit"], 3)]
    # an unknown parameter sent twice is reported once, as unknown
    unknown = await client.get("/v1/activity?limt=1&limt=2", headers=ws.headers)
    error = assert_envelope(unknown, 400, "validation_error")
    assert [i["code"] for i in error["issues"]] == ["unrecognized_keys"]
    # each filter[<slug>] applies: two of them on one field both hold
    both = await client.get(
        records_url("deals") + "?filter[stage]=lead,won&filter[stage]=lead", headers=ws.headers
    )
    assert both.status_code == 200 and both.json()["total"] == 1


async def test_an_auto_number_start_is_bounded(client: httpx.AsyncClient, ws: Workspace) -> None:
    """The counter lives in the field's config as a JSON number: past 2^53 - 1 it is refused
    when the field is made (a start of 2^64 - 1 was taken, and the next create answered 500)."""
    modules = (await client.get("/v1/modules", headers=ws.headers)).json()["modules"]
    deals = next(m["id"] for m in modules if m["slug"] == "deals")
    headers = {**ws.headers, "Content-Type": "application/json"}
    for start in (2**53, 2**63, 2**64 - 1):
        body = {"label": "Ticket", "dataType": "autonumber", "config": {"autonumber": {}}}
        raw = json.dumps(body).replace("{}", '{"startFrom": ' + str(start) + "}")
        resp = await client.post(f"/api/modules/{deals}/fields", headers=headers, content=raw)
        error = assert_envelope(resp, 400, "validation_error")
        assert error["issues"] == [
            {
                "code": "too_big",
                "path": ["config", "autonumber", "startFrom"],
                "message": f"startFrom must be at most {2**53 - 1}",
                "maximum": 2**53 - 1,
                "inclusive": True,
                "type": "number",
            }
        ]
    config = {"autonumber": {"startFrom": 2**53 - 1}}
    body = {"label": "Ticket", "dataType": "autonumber", "config": config}
    made = await client.post(f"/api/modules/{deals}/fields", headers=ws.headers, json=body)
    assert made.status_code == 201, made.text
    record = await create(client, ws, "deals", BASE_FIELDS["deals"])
    assert record["fields"]["ticket"] == str(2**53 - 1)
