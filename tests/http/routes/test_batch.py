"""Bulk create and upsert (POST .../records/batch) and the change feed (afterSeq)."""

from __future__ import annotations

from typing import Any

import httpx

from tests.conftest import Workspace
from tests.http.routes.test_template_admin import add_field, module_id
from tests.http.test_auth import assert_envelope

BATCH = "/v1/modules/contacts/records/batch"


def person(first: str, **fields: Any) -> dict[str, Any]:
    return {"displayName": first, "fields": {"first-name": first, **fields}}


async def count(client: httpx.AsyncClient, ws: Workspace) -> int:
    resp = await client.get("/v1/modules/contacts/records", headers=ws.headers)
    total: int = resp.json()["total"]
    return total


async def unique_field(client: httpx.AsyncClient, ws: Workspace) -> None:
    mid = await module_id(client, ws, "contacts")
    body = {"label": "External id", "dataType": "text", "config": {"unique": True}}
    made = await add_field(client, ws, mid, body)
    assert made.status_code == 201, made.text


async def test_batch_creates_all_in_order(client: httpx.AsyncClient, ws: Workspace) -> None:
    body = {"records": [person(f"P{i}") for i in range(100)]}
    resp = await client.post(BATCH, headers=ws.headers, json=body)
    assert resp.status_code == 201, resp.text
    out = resp.json()
    assert [r["displayName"] for r in out["records"]] == [f"P{i}" for i in range(100)]
    assert [r["action"] for r in out["results"]] == ["created"] * 100
    assert await count(client, ws) == 100


async def test_one_invalid_record_writes_nothing(client: httpx.AsyncClient, ws: Workspace) -> None:
    body = {"records": [person("Ok"), {"displayName": "No name", "fields": {}}, person("Ok2")]}
    resp = await client.post(BATCH, headers=ws.headers, json=body)
    error = assert_envelope(resp, 400, "validation_error")
    assert error["data"] == {"invalidIndexes": [1]}
    assert [i["path"][:2] for i in error["issues"]] == [["records", 1]]  # type: ignore[index, union-attr]
    assert await count(client, ws) == 0


async def test_batch_limits(client: httpx.AsyncClient, ws: Workspace) -> None:
    too_many = {"records": [person(f"P{i}") for i in range(101)]}
    assert_envelope(
        await client.post(BATCH, headers=ws.headers, json=too_many), 400, "validation_error"
    )
    assert_envelope(
        await client.post(BATCH, headers=ws.headers, json={"records": []}), 400, "validation_error"
    )
    assert await count(client, ws) == 0


async def test_upsert_by_unique_field(client: httpx.AsyncClient, ws: Workspace) -> None:
    await unique_field(client, ws)
    first = {"records": [person("Ada", **{"external-id": "c-1"})]}
    made = await client.post(BATCH + "?upsertBy=external-id", headers=ws.headers, json=first)
    assert made.status_code == 201, made.text
    rid = made.json()["results"][0]["recordId"]
    again = {
        "records": [
            person("Ada", **{"external-id": "c-1", "job-title": "Countess"}),
            person("Bob", **{"external-id": "c-2"}),
        ]
    }
    resp = await client.post(BATCH + "?upsertBy=external-id", headers=ws.headers, json=again)
    assert resp.status_code == 201, resp.text
    results = resp.json()["results"]
    assert [(r["action"], r["recordId"] == rid) for r in results] == [
        ("updated", True),
        ("created", False),
    ]
    assert resp.json()["records"][0]["fields"]["job-title"] == "Countess"
    only_updates = {"records": [person("Bob", **{"external-id": "c-2", "job-title": "X"})]}
    resp = await client.post(BATCH + "?upsertBy=external-id", headers=ws.headers, json=only_updates)
    assert resp.status_code == 200 and resp.json()["results"][0]["action"] == "updated"
    assert await count(client, ws) == 2
    # the unique field is enforced on plain creates too
    dup = {"displayName": "Eve", "fields": {"first-name": "Eve", "external-id": "c-1"}}
    resp = await client.post("/v1/modules/contacts/records", headers=ws.headers, json=dup)
    assert_envelope(resp, 409, "uniqueness_violation")


async def test_upsert_refuses_a_field_that_is_not_unique(
    client: httpx.AsyncClient, ws: Workspace
) -> None:
    body = {"records": [person("Ada")]}
    resp = await client.post(BATCH + "?upsertBy=first-name", headers=ws.headers, json=body)
    error = assert_envelope(resp, 400, "bad_request")
    assert "not unique" in str(error["message"])
    resp = await client.post(BATCH + "?upsertBy=nope", headers=ws.headers, json=body)
    assert "has no field 'nope'" in str(assert_envelope(resp, 400, "bad_request")["message"])
    await unique_field(client, ws)
    missing = await client.post(BATCH + "?upsertBy=external-id", headers=ws.headers, json=body)
    error = assert_envelope(missing, 400, "validation_error")
    assert error["issues"][0]["path"] == ["records", 0, "fields", "external-id"]  # type: ignore[index]
    assert await count(client, ws) == 0


async def test_change_feed_resumes_exactly(client: httpx.AsyncClient, ws: Workspace) -> None:
    body = {"records": [person(f"P{i}") for i in range(7)]}
    assert (await client.post(BATCH, headers=ws.headers, json=body)).status_code == 201
    start = await client.get("/v1/activity", headers=ws.headers, params={"limit": 50})
    newest = max(a["seq"] for a in start.json()["activities"])
    seen: list[int] = []
    after = newest - 7
    while True:
        resp = await client.get(
            "/v1/activity", headers=ws.headers, params={"afterSeq": after, "limit": 3}
        )
        assert resp.status_code == 200, resp.text
        page = resp.json()
        if not page["activities"]:
            assert page["nextAfterSeq"] == after
            break
        seen += [a["seq"] for a in page["activities"]]
        after = page["nextAfterSeq"]
    assert seen == list(range(newest - 6, newest + 1))
    more = {"records": [person("Late")]}
    assert (await client.post(BATCH, headers=ws.headers, json=more)).status_code == 201
    resp = await client.get("/v1/activity", headers=ws.headers, params={"afterSeq": after})
    assert [a["data"]["displayName"] for a in resp.json()["activities"]] == ["Late"]
    bad = await client.get("/v1/activity", headers=ws.headers, params={"afterSeq": -1})
    assert_envelope(bad, 400, "validation_error")
