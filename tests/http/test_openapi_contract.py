"""What /openapi.json says a client gets and needs, checked against what the server does:
id and timestamp formats, the scopes and role each operation checks, the event stream's
events, and the shape of a record's field values."""

from __future__ import annotations

import json
import re
import uuid
from typing import Any

import httpx
from jsonschema import Draft202012Validator, FormatChecker  # type: ignore[import-untyped]

from fieldhouse.model.fields import FIELD_TYPES
from fieldhouse.model.principal import SCOPES
from fieldhouse.runtime import Runtime
from tests.conftest import Workspace, add_user
from tests.http.agents_support import install_runtime

#: property names that hold an id which is not a UUID: a provider's tool call id, a webhook
#: delivery (<webhookId>-<seq>), a search hit's source (a record, or another source type)
NOT_UUIDS = {("RunToolCall", "callId"), ("Approval", "callId"), ("DeliveryOut", "id")}
NOT_UUIDS |= {("SearchResultItem", "sourceId"), ("ModuleSchemaResponse", "module")}
ID = re.compile(r"(^id$|Id$|Ids$)")
TIME = re.compile(r"(DateTime|At)$")


def _strings(schema: dict[str, Any]) -> list[dict[str, Any]]:
    """The string schemas a property may hold (through nullables and arrays)."""
    out: list[dict[str, Any]] = []
    for option in schema.get("anyOf", [schema]):
        if option.get("type") == "array":
            out += _strings(option["items"])
        elif option.get("type") == "string" or "string" in (option.get("type") or []):
            out.append(option)
    return out


async def test_every_id_and_timestamp_property_has_its_format(client: httpx.AsyncClient) -> None:
    doc = (await client.get("/v1/openapi.json")).json()
    checked = 0
    for name, schema in doc["components"]["schemas"].items():
        for prop, sub in schema.get("properties", {}).items():
            if (name, prop) in NOT_UUIDS or name.endswith("Query") or name.endswith("Body"):
                continue
            wanted = "uuid" if ID.search(prop) else "date-time" if TIME.search(prop) else None
            if wanted is None:
                continue
            strings = _strings(sub)
            assert strings, (name, prop)
            assert all(s.get("format") == wanted for s in strings), (name, prop, sub)
            checked += 1
    assert checked > 50
    for path, item in doc["paths"].items():
        for op in item.values():
            for param in op["parameters"]:
                name = param["name"]
                if param["in"] == "path" and name.endswith("Id") and name != "deliveryId":
                    assert param["schema"].get("format") == "uuid", (path, param)


def _validator(doc: dict[str, Any], model: str) -> Draft202012Validator:
    schema = {"$ref": f"#/components/schemas/{model}", "components": doc["components"]}
    return Draft202012Validator(schema, format_checker=FormatChecker())


async def test_what_the_server_sends_meets_those_formats(
    client: httpx.AsyncClient, runtime: Runtime, ws: Workspace
) -> None:
    """The declared formats hold for real answers: the ids are UUIDs, the times RFC 3339."""
    install_runtime(runtime)
    doc = (await client.get("/v1/openapi.json")).json()
    h = ws.headers
    label = await client.post("/v1/api/labels", json={"name": "Hot"}, headers=h)
    made = await client.post(
        "/v1/modules/deals/records",
        json={
            "displayName": "Alpha",
            "fields": {"name": "Alpha", "stage": "won", "amount": {"amount": 5}},
        },
        headers=h,
    )
    rid = made.json()["record"]["recordId"]
    bulk = await client.post(
        "/v1/modules/deals/records/bulk",
        json={"recordIds": [rid], "addLabelIds": [label.json()["id"]]},
        headers=h,
    )
    hook = await client.post(
        "/v1/webhooks", json={"url": "https://example.com/hook", "eventTypes": []}, headers=h
    )
    chat = await client.post(
        "/v1/agents/messages",
        json={"message": "send an email to bob@example.com about Pricing"},
        headers=h,
    )
    run_id = chat.json()["runId"]
    answers = {
        "NamedItem": label,
        "RecordEnvelope": made,
        "RecordList": bulk,
        "WebhookEnvelope": hook,
        "AgentResponse": chat,
        "Identity": await client.get("/v1/me", headers=h),
        "ModuleList": await client.get("/v1/modules", headers=h),
        "FieldList": await client.get("/v1/modules/deals/fields", headers=h),
        "ReferenceList": await client.get("/v1/modules/deals/references", headers=h),
        "RecordPage": await client.get("/v1/modules/deals/records", headers=h),
        "ActivityList": await client.get("/v1/activity", headers=h),
        "GroupedActivityList": await client.get(
            f"/v1/modules/deals/records/{rid}/activity", headers=h
        ),
        "AgentRun": await client.get(f"/v1/agents/runs/{run_id}", headers=h),
        "ApprovalList": await client.get("/v1/api/approvals", headers=h),
        "Catalog": await client.get("/v1/api/templates/catalog", headers=h),
    }
    for model, resp in answers.items():
        assert resp.status_code in (200, 201), (model, resp.text)
        errors = [e.message for e in _validator(doc, model).iter_errors(resp.json())]
        assert errors == [], model
    # the answers were not empty: the formats were met, not skipped
    assert answers["ActivityList"].json()["activities"]
    assert answers["ApprovalList"].json()["approvals"]
    assert answers["RecordList"].json()["records"][0]["labelIds"] == [label.json()["id"]]
    # and a value that is not a UUID would fail the check
    bad = {**made.json(), "record": {**made.json()["record"], "recordId": "42"}}
    assert not _validator(doc, "RecordEnvelope").is_valid(bad)


def _fill(path: str) -> str:
    """A concrete path: a module slug that exists, fresh UUIDs for the ids."""

    def value(match: re.Match[str]) -> str:
        name = match.group(1)
        if name == "moduleSlug":
            return "deals"
        return str(uuid.uuid4()) if name.endswith("Id") else "nothing-here"

    return "/v1" + re.sub(r"\{(\w+)\}", value, path)


async def test_every_operation_names_the_scopes_and_role_it_checks(
    client: httpx.AsyncClient, runtime: Runtime, ws: Workspace
) -> None:
    """Walk every documented operation: without one of the scopes it names it is 403; without
    the role it names it is 403; with exactly those scopes and that role it is not."""
    doc = (await client.get("/v1/openapi.json")).json()
    keys: dict[tuple[str, tuple[str, ...]], str] = {}

    async def key(role: str, scopes: tuple[str, ...]) -> dict[str, str]:
        if (role, scopes) not in keys:
            keys[role, scopes] = (await add_user(runtime, ws, role, scopes)).key
        return {"Authorization": f"Bearer {keys[role, scopes]}"}

    walked = 0
    for path, item in doc["paths"].items():
        for method, op in item.items():
            if op.get("security") == []:
                continue
            walked += 1
            scopes = tuple(op["x-required-scopes"])
            assert op["security"] == [{"bearerAuth": list(scopes)}], op["operationId"]
            assert op["x-required-scope"] in scopes
            roles = op.get("x-required-role")
            assert all(f"`{s}`" in op["description"] for s in scopes), op["operationId"]
            url = _fill(path)

            async def call(headers: dict[str, str], url: str = url, method: str = method) -> Any:
                return await client.request(method.upper(), url, headers=headers, json={})

            for missing in scopes:
                rest = tuple(s for s in SCOPES if s != missing)
                resp = await call(await key("owner", rest))
                assert resp.status_code == 403, (op["operationId"], missing, resp.text)
            if roles is not None:
                assert roles == ["admin", "owner"]
                assert "admin or owner" in op["description"]
                resp = await call(await key("member", scopes))
                assert resp.status_code == 403, (op["operationId"], resp.text)
                assert "owners and admins" in resp.json()["error"]["message"]
            answers = op.get("responses", {}).get("200", {}).get("content", {})
            if method == "get" and "text/event-stream" in answers:
                continue  # a read-only stream answers 200 and goes on until the client goes
            allowed = await call(await key(roles[0] if roles else "member", scopes))
            assert allowed.status_code not in (401, 403), (op["operationId"], allowed.text)
    assert walked > 40
    approve = doc["paths"]["/api/approvals/{approvalId}/approve"]["post"]
    assert approve["x-required-scopes"] == list(SCOPES)


async def test_the_event_stream_is_declared_with_its_events(client: httpx.AsyncClient) -> None:
    doc = (await client.get("/v1/openapi.json")).json()
    schemas = doc["components"]["schemas"]
    for path in ("/agents/messages", "/agents/runs/{runId}/resume"):
        content = doc["paths"][path]["post"]["responses"]["200"]["content"]
        assert content["application/json"]["schema"]["$ref"].endswith("/AgentResponse")
        events = content["text/event-stream"]["schema"]["oneOf"]
        named = {}
        for e in events:  # the data line is text holding JSON of its contentSchema
            data = e["properties"]["data"]
            assert (data["type"], data["contentMediaType"]) == ("string", "application/json")
            named[e["properties"]["event"]["const"]] = data["contentSchema"]
        assert set(named) == {"open", "tool_call", "approval_required", "token", "error", "done"}
        assert named["done"] == {"$ref": "#/components/schemas/AgentResponse"}
        for name, data in named.items():
            if name != "done":
                assert data == {"$ref": f"#/components/schemas/AgentEvent_{name}"}
                assert data["$ref"].rsplit("/", 1)[1] in schemas


async def test_an_event_the_server_streams_meets_its_declared_schema(
    client: httpx.AsyncClient, runtime: Runtime, ws: Workspace
) -> None:
    install_runtime(runtime)
    doc = (await client.get("/v1/openapi.json")).json()
    stream = doc["paths"]["/agents/messages"]["post"]["responses"]["200"]["content"]
    events = stream["text/event-stream"]["schema"]["oneOf"]
    # the event as it arrives (its data a line of text), and that text's JSON against the
    # contentSchema of the event's branch
    outer = Draft202012Validator({"oneOf": events}, format_checker=FormatChecker())
    inner = {
        e["properties"]["event"]["const"]: Draft202012Validator(
            {**e["properties"]["data"]["contentSchema"], "components": doc["components"]},
            format_checker=FormatChecker(),
        )
        for e in events
    }
    resp = await client.post(
        "/v1/agents/messages?stream=true",
        json={"message": "send an email to bob@example.com about Pricing"},
        headers=ws.headers,
    )
    assert resp.headers["content-type"].startswith("text/event-stream")
    seen = []
    for block in resp.text.split("\n\n"):
        lines = dict(line.split(": ", 1) for line in block.splitlines() if not line.startswith(":"))
        if "event" not in lines:
            continue
        assert outer.is_valid(lines), lines
        assert inner[lines["event"]].is_valid(json.loads(lines["data"])), lines
        seen.append(lines["event"])
    assert seen[0] == "open" and "approval_required" in seen and seen[-1] == "done"
    assert not inner["open"].is_valid({"runId": "not-a-uuid"})
    assert not outer.is_valid({"event": "open", "data": {"runId": "an object, not text"}})


async def test_record_field_values_link_the_field_value_schemas(
    client: httpx.AsyncClient, ws: Workspace
) -> None:
    doc = (await client.get("/v1/openapi.json")).json()
    schemas = doc["components"]["schemas"]
    for model in ("Record", "PickerItem"):
        values = schemas[model]["properties"]["fields"]["additionalProperties"]["anyOf"]
        refs = {v["$ref"].rsplit("/", 1)[1] for v in values if "$ref" in v}
        assert refs == {f"FieldValue_{name}" for name in FIELD_TYPES}
        assert {"type": "null"} in values
    # every value of a real record meets the schema of its field's type
    made = await client.post(
        "/v1/modules/companies/records",
        json={
            "displayName": "Borealis",
            "fields": {
                "name": "Borealis",
                "website": "https://borealis.example",
                "headquarters": [{"value": {"street": "1 Pier", "city": "Oslo"}}],
                "annual-revenue": {"amount": 1200, "currency": "EUR"},
                "phone": "+4722334455",
                "health": 4,
            },
        },
        headers=ws.headers,
    )
    assert made.status_code == 201, made.text
    fields = (await client.get("/v1/modules/companies/fields", headers=ws.headers)).json()
    types = {f["key"]: f["type"] for f in fields["fields"]}
    record = made.json()["record"]
    for slug, value in record["fields"].items():
        if value is None:
            continue
        validator = _validator(doc, f"FieldValue_{types[slug]}")
        assert validator.is_valid(value), (slug, types[slug], value)
    assert types["headquarters"] == "address"
    assert not _validator(doc, "FieldValue_address").is_valid("1 Pier, Oslo")
