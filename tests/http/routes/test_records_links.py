"""References (14), linked ids (15), picker (16), rollups, formulas, parents, auto-numbers."""

from __future__ import annotations

import uuid
from typing import Any

import httpx

from tests.conftest import Workspace
from tests.http.test_auth import assert_envelope
from tests.http.test_records_crud import create, records_url


def refs_url(module: str, rest: str = "") -> str:
    return f"/v1/modules/{module}/references{rest}"


async def patch(
    client: httpx.AsyncClient, ws: Workspace, module: str, record_id: str, fields: dict[str, Any]
) -> httpx.Response:
    url = records_url(module, record_id)
    return await client.patch(url, headers=ws.headers, json={"fields": fields})


async def fields_of(
    client: httpx.AsyncClient, ws: Workspace, module: str, record_id: str
) -> dict[str, Any]:
    resp = await client.get(records_url(module, record_id), headers=ws.headers)
    assert resp.status_code == 200, resp.text
    fields: dict[str, Any] = resp.json()["record"]["fields"]
    return fields


async def test_references_list(client: httpx.AsyncClient, ws: Workspace) -> None:
    resp = await client.get(refs_url("deals"), headers=ws.headers)
    assert resp.status_code == 200
    refs = {r["slug"]: r for r in resp.json()["references"]}
    assert set(refs) == {"company", "contacts"}
    company = refs["company"]
    assert company["sourceFieldSlug"] == "company" and company["targetType"] == "module"
    assert company["target"]["moduleSlug"] == "companies"
    assert company["relationshipType"] == "many_to_one"
    assert refs["contacts"]["relationshipType"] == "many_to_many"
    assert_envelope(await client.get(refs_url("nope"), headers=ws.headers), 404, "not_found")


async def test_linked_ids(client: httpx.AsyncClient, ws: Workspace) -> None:
    alice = await create(client, ws, "contacts", name="Alice")
    bob = await create(client, ws, "contacts", name="Bob")
    ids = [alice["recordId"], bob["recordId"]]
    deal = await create(client, ws, "deals", {"contacts": ids})
    assert [c["displayName"] for c in deal["fields"]["contacts"]] == ["Alice", "Bob"]
    url = refs_url("deals", f"/contacts/records/{deal['recordId']}")
    resp = await client.get(url, headers=ws.headers)
    assert resp.status_code == 200 and resp.json() == {"targetRecordIds": ids}
    empty = refs_url("deals", f"/company/records/{deal['recordId']}")
    assert (await client.get(empty, headers=ws.headers)).json() == {"targetRecordIds": []}
    await client.delete(records_url("contacts", alice["recordId"]), headers=ws.headers)
    resp = await client.get(url, headers=ws.headers)
    assert resp.json() == {"targetRecordIds": [bob["recordId"]]}
    await patch(client, ws, "deals", deal["recordId"], {"contacts": []})
    assert (await client.get(url, headers=ws.headers)).json() == {"targetRecordIds": []}
    for bad, status, code in (
        (refs_url("deals", f"/nope/records/{deal['recordId']}"), 404, "not_found"),
        (refs_url("deals", f"/contacts/records/{uuid.uuid4()}"), 404, "not_found"),
        (refs_url("deals", "/contacts/records/not-a-uuid"), 400, "validation_error"),
    ):
        assert_envelope(await client.get(bad, headers=ws.headers), status, code)
    await client.delete(records_url("deals", deal["recordId"]), headers=ws.headers)
    assert_envelope(await client.get(url, headers=ws.headers), 404, "not_found")


async def test_picker(client: httpx.AsyncClient, ws: Workspace) -> None:
    made = [await create(client, ws, "companies", name=f"Co {i:02d}") for i in range(22)]
    other = await create(client, ws, "companies", name="Zeta Widgets")
    url = refs_url("deals", "/company/picker")
    resp = await client.get(url, headers=ws.headers)
    assert resp.status_code == 200
    body = resp.json()
    assert body["referenceSlug"] == "company" and body["targetType"] == "module"
    assert body["targetModuleSlug"] == "companies"
    assert len(body["items"]) == 20  # default limit
    assert [i["displayName"] for i in body["items"]] == [f"Co {i:02d}" for i in range(20)]
    assert set(body["items"][0]) == {"recordId", "displayName", "fields"}
    assert body["items"][0]["fields"]["name"] == "Acme"
    found = await client.get(url, headers=ws.headers, params={"search": "widg", "limit": 5})
    assert [i["recordId"] for i in found.json()["items"]] == [other["recordId"]]
    few = await client.get(url, headers=ws.headers, params={"limit": 1})
    assert [i["recordId"] for i in few.json()["items"]] == [made[0]["recordId"]]
    many = await client.get(url, headers=ws.headers, params={"limit": 100})
    assert len(many.json()["items"]) == 23
    await client.delete(records_url("companies", made[0]["recordId"]), headers=ws.headers)
    again = await client.get(url, headers=ws.headers, params={"limit": 1})
    assert [i["recordId"] for i in again.json()["items"]] == [made[1]["recordId"]]
    for params in ({"limit": 0}, {"limit": 101}, {"limit": "x"}):
        resp = await client.get(url, headers=ws.headers, params=params)
        error = assert_envelope(resp, 400, "validation_error")
        assert [i["path"] for i in error["issues"]] == [["limit"]]  # type: ignore[union-attr]
    missing = refs_url("deals", "/nope/picker")
    assert_envelope(await client.get(missing, headers=ws.headers), 404, "not_found")


async def test_formula_follows_its_inputs(client: httpx.AsyncClient, ws: Workspace) -> None:
    deal = await create(client, ws, "deals", {"amount": {"amount": 1000}, "probability": 25})
    assert deal["fields"]["weighted-value"] == 250
    resp = await patch(client, ws, "deals", deal["recordId"], {"probability": 60})
    assert resp.json()["record"]["fields"]["weighted-value"] == 600
    resp = await patch(client, ws, "deals", deal["recordId"], {"amount": None})
    assert resp.json()["record"]["fields"].get("weighted-value") in (None, 0)


async def test_rollups_follow_linked_deals(client: httpx.AsyncClient, ws: Workspace) -> None:
    won = await create(client, ws, "deals", {"stage": "won", "amount": {"amount": 100}})
    won2 = await create(client, ws, "deals", {"stage": "won", "amount": {"amount": 50.5}})
    lost = await create(client, ws, "deals", {"stage": "lost", "amount": {"amount": 999}})
    ids = [won["recordId"], won2["recordId"], lost["recordId"]]
    company = await create(client, ws, "companies", {"deals": ids})
    cid = company["recordId"]
    assert company["fields"]["total-won-deal-value"] == 150.5
    assert company["fields"]["deal-count"] == 3
    await patch(client, ws, "deals", lost["recordId"], {"stage": "won"})
    assert (await fields_of(client, ws, "companies", cid))["total-won-deal-value"] == 1149.5
    await patch(client, ws, "deals", won["recordId"], {"amount": {"amount": 200}})
    assert (await fields_of(client, ws, "companies", cid))["total-won-deal-value"] == 1249.5
    await client.delete(records_url("deals", won2["recordId"]), headers=ws.headers)
    after = await fields_of(client, ws, "companies", cid)
    assert (after["total-won-deal-value"], after["deal-count"]) == (1199, 2)
    assert won2["recordId"] not in [d["recordId"] for d in after["deals"]]
    bulk = {"recordIds": [won["recordId"], lost["recordId"]]}
    await client.post(records_url("deals") + "/bulk-delete", headers=ws.headers, json=bulk)
    after = await fields_of(client, ws, "companies", cid)
    assert (after["total-won-deal-value"], after["deal-count"]) == (0, 0)
    linked = refs_url("companies", f"/deals/records/{cid}")
    assert (await client.get(linked, headers=ws.headers)).json() == {"targetRecordIds": []}


async def test_parent_depth_and_cycles(client: httpx.AsyncClient, ws: Workspace) -> None:
    # tasks.parent-task has maxDepth 3
    root = await create(client, ws, "tasks", name="root")
    mid = await create(client, ws, "tasks", {"parent-task": root["recordId"]}, name="mid")
    leaf = await create(client, ws, "tasks", {"parent-task": mid["recordId"]}, name="leaf")
    assert leaf["fields"]["parent-task"] == mid["recordId"]
    body = {"displayName": "deep", "fields": {"title": "d", "status": "todo"}}
    body["fields"]["parent-task"] = leaf["recordId"]
    resp = await client.post(records_url("tasks"), headers=ws.headers, json=body)
    error = assert_envelope(resp, 400, "validation_error")
    assert [(i["code"], i["path"]) for i in error["issues"]] == [  # type: ignore[union-attr]
        ("too_big", ["fields", "parent-task"])
    ]
    for record, parent in ((root, leaf), (root, mid), (mid, mid)):
        resp = await patch(
            client, ws, "tasks", record["recordId"], {"parent-task": parent["recordId"]}
        )
        error = assert_envelope(resp, 400, "validation_error")
        assert [(i["code"], i["path"]) for i in error["issues"]] == [  # type: ignore[union-attr]
            ("cycle", ["fields", "parent-task"])
        ]
    # moving a record moves its children: a two-level subtree cannot go under `mid`
    top = await create(client, ws, "tasks", name="top")
    await create(client, ws, "tasks", {"parent-task": top["recordId"]}, name="child")
    resp = await patch(client, ws, "tasks", top["recordId"], {"parent-task": mid["recordId"]})
    error = assert_envelope(resp, 400, "validation_error")
    assert error["issues"][0]["code"] == "too_big"  # type: ignore[index]
    resp = await patch(client, ws, "tasks", top["recordId"], {"parent-task": root["recordId"]})
    assert resp.status_code == 200
    deal = await create(client, ws, "deals")
    resp = await patch(client, ws, "tasks", leaf["recordId"], {"parent-task": deal["recordId"]})
    assert_envelope(resp, 400, "validation_error")
    await client.delete(records_url("tasks", root["recordId"]), headers=ws.headers)
    resp = await patch(client, ws, "tasks", leaf["recordId"], {"parent-task": root["recordId"]})
    assert_envelope(resp, 400, "validation_error")


async def test_autonumbers_are_never_reused(client: httpx.AsyncClient, ws: Workspace) -> None:
    made = [await create(client, ws, "deals") for _ in range(3)]
    assert [d["fields"]["deal-number"] for d in made] == ["DEAL-00001", "DEAL-00002", "DEAL-00003"]
    await client.delete(records_url("deals", made[2]["recordId"]), headers=ws.headers)
    refused = {"displayName": "D", "fields": {"name": "D", "stage": "nope"}}
    resp = await client.post(records_url("deals"), headers=ws.headers, json=refused)
    assert resp.status_code == 400
    fourth = await create(client, ws, "deals")
    assert fourth["fields"]["deal-number"] == "DEAL-00004"
    renamed = await client.patch(
        records_url("deals", fourth["recordId"]), headers=ws.headers, json={"displayName": "X"}
    )
    assert renamed.json()["record"]["fields"]["deal-number"] == "DEAL-00004"
    listed = await client.get(
        records_url("deals"), headers=ws.headers, params={"sortField": "deal-number"}
    )
    numbers = [r["fields"]["deal-number"] for r in listed.json()["records"]]
    assert numbers == ["DEAL-00001", "DEAL-00002", "DEAL-00004"]  # the gap stays


async def test_sequence_by_type(client: httpx.AsyncClient, ws: Workspace) -> None:
    kinds = ["call", "meeting", "call", "follow-up", "to-do", None, "follow-up"]
    numbers = []
    for kind in kinds:
        extra = {} if kind is None else {"task-type": kind}
        numbers.append((await create(client, ws, "tasks", extra))["fields"]["task-number"])
    assert numbers == [
        "CALL-0001-T",
        "MTG-0001-T",
        "CALL-0002-T",
        "FUP-0001-T",
        "TASK-0001-T",
        "TASK-0002-T",  # the default type, to-do, has no sequence of its own
        "FUP-0002-T",
    ]
