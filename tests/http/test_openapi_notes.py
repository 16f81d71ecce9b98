"""What /openapi.json says beyond the models, checked against what the server does: each 409
an operation answers with is documented on it by code, the Idempotency-Key header's limits
are the ones the server keeps, and the conversions it documents are the ones it makes."""

from __future__ import annotations

from typing import Any

import httpx

from fieldhouse.runtime import Runtime
from tests.conftest import Workspace, add_user
from tests.http.routes.test_approvals import request_send
from tests.http.test_auth import assert_envelope
from tests.http.test_records_crud import BASE_FIELDS, create, records_url


async def _module_id(client: httpx.AsyncClient, ws: Workspace, slug: str) -> str:
    modules = (await client.get("/v1/modules", headers=ws.headers)).json()["modules"]
    return str(next(m["id"] for m in modules if m["slug"] == slug))


def _field_id(fields: list[dict[str, Any]], slug: str) -> str:
    return str(next(f["fieldId"] for f in fields if f["slug"] == slug))


async def test_every_409_the_server_sends_is_documented_on_its_operation(
    client: httpx.AsyncClient, runtime: Runtime, ws: Workspace
) -> None:
    doc = (await client.get("/v1/openapi.json")).json()
    deals = await _module_id(client, ws, "deals")
    contacts = await _module_id(client, ws, "contacts")
    code_field = {"label": "Code", "dataType": "text", "config": {"unique": True}}
    made = await client.post(f"/api/modules/{contacts}/fields", headers=ws.headers, json=code_field)
    assert made.status_code == 201, made.text
    first = await create(client, ws, "contacts", {"code": "A-1"})
    other = await create(client, ws, "contacts", {"code": "B-2"})
    fields = (await client.get("/v1/modules/deals/fields", headers=ws.headers)).json()["fields"]
    amount = _field_id(fields, "amount")  # weighted-value's formula reads it
    approval = await request_send(runtime, ws)
    admin = await add_user(runtime, ws, "admin")
    rejected = await client.post(f"/api/approvals/{approval}/reject", headers=admin.headers)
    assert rejected.status_code == 200, rejected.text
    contact = {"displayName": "Dup", "fields": {**BASE_FIELDS["contacts"], "code": "A-1"}}
    cases: list[tuple[str, str, str, dict[str, Any] | None, dict[str, str]]] = [
        ("POST", "/api/labels", "/api/labels", {"name": "VIP"}, ws.headers),
        ("POST", "/api/types", "/api/types", {"name": "Partner"}, ws.headers),
        (
            "POST",
            "/api/templates/{templateSlug}/install",
            "/api/templates/contacts/install",
            None,
            ws.headers,
        ),
        (
            "POST",
            "/api/modules/{moduleId}/fields",
            f"/api/modules/{deals}/fields",
            {"label": "Name", "dataType": "text"},
            ws.headers,
        ),
        (
            "DELETE",
            "/api/modules/{moduleId}/fields/{fieldId}",
            f"/api/modules/{deals}/fields/{amount}",
            None,
            ws.headers,
        ),
        ("POST", "/modules/{moduleSlug}/records", records_url("contacts"), contact, ws.headers),
        (
            "PATCH",
            "/modules/{moduleSlug}/records/{recordId}",
            records_url("contacts", other["recordId"]),
            {"fields": {"code": "A-1"}},
            ws.headers,
        ),
        (
            "POST",
            "/api/approvals/{approvalId}/approve",
            f"/api/approvals/{approval}/approve",
            None,
            admin.headers,
        ),
        (
            "POST",
            "/api/approvals/{approvalId}/reject",
            f"/api/approvals/{approval}/reject",
            None,
            admin.headers,
        ),
    ]
    for method, documented, url, body, headers in cases:
        if method == "POST" and url in ("/api/labels", "/api/types"):  # the first one is made
            assert (await client.post(url, headers=headers, json=body)).status_code == 201
        resp = await client.request(method, url, headers=headers, json=body)
        assert resp.status_code == 409, (url, resp.text)
        code = resp.json()["error"]["code"]
        answer = doc["paths"][documented][method.lower()]["responses"]["409"]
        assert code in answer["x-error-codes"], (documented, code, answer)
        assert f"`{code}` when " in answer["description"]
        assert answer["content"]["application/json"]["schema"] == {
            "$ref": "#/components/schemas/ErrorEnvelope"
        }
    assert first["fields"]["code"] == "A-1"
    # a keyed write documents the Idempotency-Key 409s beside its own
    create_op = doc["paths"]["/modules/{moduleSlug}/records"]["post"]["responses"]["409"]
    assert create_op["x-error-codes"] == [
        "uniqueness_violation",
        "idempotency_in_progress",
        "idempotency_response_lost",
    ]
    assert "Retry-After" in create_op["headers"]
    # an operation that never conflicts documents no 409
    assert "409" not in doc["paths"]["/modules/{moduleSlug}/records"]["get"]["responses"]


async def test_the_idempotency_key_limits_are_documented_and_kept(
    client: httpx.AsyncClient, ws: Workspace
) -> None:
    doc = (await client.get("/v1/openapi.json")).json()
    op = doc["paths"]["/modules/{moduleSlug}/records"]["post"]
    (header,) = [p for p in op["parameters"] if p["name"] == "Idempotency-Key"]
    assert header["in"] == "header" and header["required"] is False
    assert header["schema"] == {
        "type": "string",
        "minLength": 1,
        "maxLength": 255,
        "pattern": "^[ -~]+$",
    }
    for words in ("1 to 255 printable characters", "400 bad_request", "24 hours", "422"):
        assert words in header["description"], words
    body = {"displayName": "Ada", "fields": BASE_FIELDS["contacts"]}
    for key in ("k" * 256, "bad\x01key"):
        headers = {**ws.headers, "Idempotency-Key": key}
        resp = await client.post(records_url("contacts"), headers=headers, json=body)
        error = assert_envelope(resp, 400, "bad_request")
        assert error["message"] == "Idempotency-Key must be 1 to 255 printable characters"
    headers = {**ws.headers, "Idempotency-Key": "~" * 255}
    first = await client.post(records_url("contacts"), headers=headers, json=body)
    again = await client.post(records_url("contacts"), headers=headers, json=body)
    assert first.status_code == again.status_code == 201
    assert again.headers["Idempotent-Replayed"] == "true" and again.json() == first.json()


async def test_the_documented_coercions_are_the_ones_made(
    client: httpx.AsyncClient, ws: Workspace
) -> None:
    doc = (await client.get("/v1/openapi.json")).json()
    said = doc["info"]["description"]
    assert 'In a JSON body a property takes its schema\'s JSON type only: "5" is not' in said
    assert "a query parameter sent twice is refused (400)" in said
    # a JSON body's number is a JSON number, its boolean a JSON boolean
    for body in ({"query": "x", "limit": "5"}, {"query": "x", "minSimilarity": "0.5"}):
        resp = await client.post("/v1/search", headers=ws.headers, json=body)
        error = assert_envelope(resp, 400, "validation_error")
        [issue] = error["issues"]
        assert issue["code"] == "invalid_type" and issue["received"] == "string"
        assert issue["message"] == "Input should be a number, not a string"
    deals = await _module_id(client, ws, "deals")
    field = {"label": "Flag", "dataType": "text", "isRequired": "true"}
    resp = await client.post(f"/api/modules/{deals}/fields", headers=ws.headers, json=field)
    error = assert_envelope(resp, 400, "validation_error")
    assert [(i["path"], i["expected"]) for i in error["issues"]] == [(["isRequired"], "boolean")]
    # a record value written in another shape than it is read: the value's schema says so
    time_value = doc["components"]["schemas"]["FieldValue_time"]["description"]
    assert "optionally after the time designator T (T09:30)" in time_value
    task = await create(client, ws, "tasks", {"due-time": "T09:30"})
    assert task["fields"]["due-time"] == "09:30:00"
    duration = doc["components"]["schemas"]["FieldValue_duration"]["description"]
    assert "PT1H30M" in duration
    deal = await create(client, ws, "deals", {"sales-cycle": "PT1H30M"})
    assert deal["fields"]["sales-cycle"] == 5400
