"""Records endpoints 8-13 through HTTP: create, read, update, delete, bulk, access control."""

from __future__ import annotations

import uuid
from typing import Any

import httpx

from fieldhouse.actors import admin_ops as ops
from fieldhouse.runtime import Runtime
from tests.conftest import Workspace, add_user
from tests.http.test_auth import assert_envelope

#: The smallest valid fields of each built-in module.
BASE_FIELDS: dict[str, dict[str, Any]] = {
    "contacts": {"first-name": "Ada"},
    "companies": {"name": "Acme"},
    "deals": {"name": "Deal", "stage": "lead"},
    "tasks": {"title": "Task", "status": "todo"},
}
ALWAYS = {"recordId", "moduleId", "moduleSlug", "displayName", "createdDateTime", "updatedDateTime"}


def records_url(module: str, record_id: str | None = None) -> str:
    base = f"/v1/modules/{module}/records"
    return base if record_id is None else f"{base}/{record_id}"


async def create(
    client: httpx.AsyncClient,
    ws: Workspace,
    module: str,
    fields: dict[str, Any] | None = None,
    name: str = "Record",
) -> dict[str, Any]:
    """Create a record (base fields plus `fields`) and return it."""
    body = {"displayName": name, "fields": {**BASE_FIELDS[module], **(fields or {})}}
    resp = await client.post(records_url(module), headers=ws.headers, json=body)
    assert resp.status_code == 201, resp.text
    record: dict[str, Any] = resp.json()["record"]
    return record


def issue_paths(error: dict[str, Any]) -> list[list[Any]]:
    return [i["path"] for i in error["issues"]]


async def make_label(client: httpx.AsyncClient, ws: Workspace, name: str) -> str:
    resp = await client.post("/api/labels", headers=ws.headers, json={"name": name})
    assert resp.status_code == 201, resp.text
    return str(resp.json()["id"])


async def make_type(client: httpx.AsyncClient, ws: Workspace, name: str) -> str:
    body = {"name": name, "moduleSlug": "deals"}
    resp = await client.post("/api/types", headers=ws.headers, json=body)
    assert resp.status_code == 201, resp.text
    return str(resp.json()["id"])


async def test_create_and_read(client: httpx.AsyncClient, ws: Workspace) -> None:
    made = await create(client, ws, "contacts", {"last-name": "Lovelace"}, name="Ada L")
    assert made["moduleSlug"] == "contacts" and made["displayName"] == "Ada L"
    assert made["fields"]["first-name"] == "Ada"
    assert made["fields"]["full-name"] == "Ada Lovelace"
    assert made["fields"]["lifecycle"] == "lead"  # select default
    assert made["labelIds"] == [] and made["typeIds"] == []
    assert made["createdByUserId"] == ws.owner_id == made["updatedByUserId"]
    assert made["createdDateTime"] == made["updatedDateTime"]
    got = await client.get(records_url("contacts", made["recordId"]), headers=ws.headers)
    assert got.status_code == 200
    assert got.json() == {"record": made}
    upper = made["recordId"].upper()
    again = await client.get(records_url("contacts", upper), headers=ws.headers)
    assert again.json()["record"]["recordId"] == made["recordId"]


async def test_create_body_rules(client: httpx.AsyncClient, ws: Workspace) -> None:
    url = records_url("companies")
    fields = BASE_FIELDS["companies"]
    for body, path, code in (
        ({"displayName": "", "fields": fields}, ["displayName"], "too_small"),
        ({"displayName": "x" * 501, "fields": fields}, ["displayName"], "too_big"),
        ({"fields": fields}, ["displayName"], "invalid_type"),
        ({"displayName": 5, "fields": fields}, ["displayName"], "invalid_type"),
        ({"displayName": "A", "fields": []}, ["fields"], "invalid_type"),
        ({"displayName": "A", "fields": fields, "labelIds": []}, [], "unrecognized_keys"),
        ({"displayName": "A", "fields": fields, "ownerUserId": "nope"}, ["ownerUserId"], None),
        (
            {"displayName": "A", "fields": fields, "ownerUserId": str(uuid.uuid4())},
            ["ownerUserId"],
            "invalid_reference",
        ),
    ):
        error = assert_envelope(
            await client.post(url, headers=ws.headers, json=body), 400, "validation_error"
        )
        assert issue_paths(error) == [path], (body, error)
        if code is not None:
            assert error["issues"][0]["code"] == code
    ok = {"displayName": "x" * 500, "fields": fields, "ownerUserId": ws.owner_id}
    resp = await client.post(url, headers=ws.headers, json=ok)
    assert resp.status_code == 201
    assert resp.json()["record"]["ownerUserId"] == ws.owner_id


async def test_field_problems_are_one_issue_each(client: httpx.AsyncClient, ws: Workspace) -> None:
    body = {
        "displayName": "Deal",
        "fields": {
            "nope": 1,
            "deal-number": "DEAL-9",
            "weighted-value": 5,
            "stage": "nowhere",
            "probability": 500,
        },
    }
    resp = await client.post(records_url("deals"), headers=ws.headers, json=body)
    error = assert_envelope(resp, 400, "validation_error")
    by_path = {tuple(i["path"]): i["code"] for i in error["issues"]}
    assert by_path == {
        ("fields", "nope"): "unrecognized_keys",
        ("fields", "deal-number"): "read_only",
        ("fields", "weighted-value"): "read_only",
        ("fields", "stage"): "invalid_enum_value",
        ("fields", "probability"): "too_big",
        ("fields", "name"): "required",
    }
    rollup = {"displayName": "Co", "fields": {"name": "Co", "total-won-deal-value": 1}}
    resp = await client.post(records_url("companies"), headers=ws.headers, json=rollup)
    error = assert_envelope(resp, 400, "validation_error")
    assert error["issues"][0]["code"] == "read_only"
    assert issue_paths(error) == [["fields", "total-won-deal-value"]]
    blank = {"displayName": "C", "fields": {"first-name": "  "}}
    resp = await client.post(records_url("contacts"), headers=ws.headers, json=blank)
    error = assert_envelope(resp, 400, "validation_error")
    assert [(i["code"], i["path"]) for i in error["issues"]] == [
        ("required", ["fields", "first-name"])
    ]
    # nothing was created by the refused requests
    listed = await client.get(records_url("deals"), headers=ws.headers)
    assert listed.json()["total"] == 0


async def test_update_changes_only_what_is_supplied(
    client: httpx.AsyncClient, ws: Workspace
) -> None:
    made = await create(client, ws, "contacts", {"last-name": "Lovelace", "job-title": "Count"})
    url = records_url("contacts", made["recordId"])
    resp = await client.patch(url, headers=ws.headers, json={"fields": {"job-title": "Analyst"}})
    assert resp.status_code == 200
    after = resp.json()["record"]
    assert after["displayName"] == made["displayName"]
    assert after["fields"] == {**made["fields"], "job-title": "Analyst"}
    assert after["createdDateTime"] == made["createdDateTime"]
    assert after["updatedDateTime"] > made["updatedDateTime"]
    renamed = (await client.patch(url, headers=ws.headers, json={"displayName": "Ada"})).json()
    assert renamed["record"]["displayName"] == "Ada"
    assert renamed["record"]["fields"] == after["fields"]
    cleared = await client.patch(url, headers=ws.headers, json={"fields": {"last-name": None}})
    fields = cleared.json()["record"]["fields"]
    assert "last-name" not in fields and fields["full-name"] == "Ada"
    same = await client.patch(url, headers=ws.headers, json={})
    assert same.json()["record"] == cleared.json()["record"]
    for body, path in (
        ({"fields": {"first-name": None}}, ["fields", "first-name"]),
        ({"fields": {"full-name": "X"}}, ["fields", "full-name"]),
        ({"fields": {"nope": "X"}}, ["fields", "nope"]),
        ({"displayName": ""}, ["displayName"]),
        ({"displayName": None}, ["displayName"]),
        ({"fields": None}, ["fields"]),
        ({"ownerUserId": ws.owner_id}, []),
        ({"labelIds": []}, []),
    ):
        error = assert_envelope(
            await client.patch(url, headers=ws.headers, json=body), 400, "validation_error"
        )
        assert issue_paths(error) == [path], body
    final = await client.get(url, headers=ws.headers)
    assert final.json()["record"] == cleared.json()["record"]


async def test_delete_is_soft_and_final(client: httpx.AsyncClient, ws: Workspace) -> None:
    made = await create(client, ws, "companies")
    keep = await create(client, ws, "companies", name="Keep")
    url = records_url("companies", made["recordId"])
    resp = await client.delete(url, headers=ws.headers)
    assert resp.status_code == 204 and resp.content == b""
    for again in (
        await client.get(url, headers=ws.headers),
        await client.patch(url, headers=ws.headers, json={"displayName": "X"}),
        await client.delete(url, headers=ws.headers),
    ):
        assert_envelope(again, 404, "not_found")
    listed = (await client.get(records_url("companies"), headers=ws.headers)).json()
    assert [r["recordId"] for r in listed["records"]] == [keep["recordId"]]
    assert listed["total"] == 1


async def test_missing_and_malformed_record_ids(client: httpx.AsyncClient, ws: Workspace) -> None:
    missing = records_url("deals", str(uuid.uuid4()))
    assert_envelope(await client.get(missing, headers=ws.headers), 404, "not_found")
    patched = await client.patch(missing, headers=ws.headers, json={"displayName": "X"})
    assert_envelope(patched, 404, "not_found")
    assert_envelope(await client.delete(missing, headers=ws.headers), 404, "not_found")
    bad = records_url("deals", "not-a-uuid")
    for resp in (
        await client.get(bad, headers=ws.headers),
        await client.delete(bad, headers=ws.headers),
    ):
        error = assert_envelope(resp, 400, "validation_error")
        assert issue_paths(error) == [["recordId"]]
    unknown_module = records_url("nope", str(uuid.uuid4()))
    assert_envelope(await client.get(unknown_module, headers=ws.headers), 404, "not_found")


async def test_bulk_labels_and_types(client: httpx.AsyncClient, ws: Workspace) -> None:
    one, two = await create(client, ws, "deals"), await create(client, ws, "deals")
    vip, hot = await make_label(client, ws, "VIP"), await make_label(client, ws, "Hot")
    partner = await make_type(client, ws, "Partner")
    url = records_url("deals") + "/bulk"
    ids = [one["recordId"], two["recordId"], one["recordId"]]
    body = {"recordIds": ids, "addLabelIds": [vip, hot], "addTypeIds": [partner]}
    resp = await client.post(url, headers=ws.headers, json=body)
    assert resp.status_code == 200
    records = resp.json()["records"]
    assert [r["recordId"] for r in records] == [one["recordId"], two["recordId"]]
    assert all(r["labelIds"] == [vip, hot] and r["typeIds"] == [partner] for r in records)
    assert all(r["fields"] == one["fields"] for r in records[:1])
    body = {"recordIds": [one["recordId"]], "removeLabelIds": [vip], "removeTypeIds": [partner]}
    resp = await client.post(url, headers=ws.headers, json=body)
    assert resp.json()["records"][0]["labelIds"] == [hot]
    assert resp.json()["records"][0]["typeIds"] == []
    got = (await client.get(records_url("deals", two["recordId"]), headers=ws.headers)).json()
    assert got["record"]["labelIds"] == [vip, hot]


async def test_bulk_update_errors_change_nothing(client: httpx.AsyncClient, ws: Workspace) -> None:
    live, gone = await create(client, ws, "deals"), await create(client, ws, "deals")
    await client.delete(records_url("deals", gone["recordId"]), headers=ws.headers)
    vip = await make_label(client, ws, "VIP")
    url = records_url("deals") + "/bulk"
    stranger = str(uuid.uuid4())
    body = {"recordIds": [live["recordId"]], "addLabelIds": [vip, stranger]}
    error = assert_envelope(
        await client.post(url, headers=ws.headers, json=body), 400, "validation_error"
    )
    assert issue_paths(error) == [["addLabelIds", 1]]
    assert error["issues"][0]["id"] == stranger
    body = {"recordIds": [live["recordId"]], "addTypeIds": [vip]}  # a label is not a type
    error = assert_envelope(
        await client.post(url, headers=ws.headers, json=body), 400, "validation_error"
    )
    assert issue_paths(error) == [["addTypeIds", 0]]
    missing = str(uuid.uuid4())
    body = {"recordIds": [live["recordId"], gone["recordId"], missing], "addLabelIds": [vip]}
    error = assert_envelope(await client.post(url, headers=ws.headers, json=body), 404, "not_found")
    assert error["data"] == {"missingRecordIds": [gone["recordId"], missing]}
    got = await client.get(records_url("deals", live["recordId"]), headers=ws.headers)
    assert got.json()["record"]["labelIds"] == []
    for bad, path in (
        ({"recordIds": []}, ["recordIds"]),
        ({"recordIds": [live["recordId"]] * 101}, ["recordIds"]),
        ({"recordIds": ["nope"]}, ["recordIds", 0]),
        ({"recordIds": [live["recordId"]], "fields": {}}, []),
        ({}, ["recordIds"]),
    ):
        error = assert_envelope(
            await client.post(url, headers=ws.headers, json=bad), 400, "validation_error"
        )
        assert issue_paths(error) == [path], bad


async def test_bulk_delete(client: httpx.AsyncClient, ws: Workspace) -> None:
    made = [await create(client, ws, "tasks", name=f"T{i}") for i in range(3)]
    other = await create(client, ws, "deals")
    url = records_url("tasks") + "/bulk-delete"
    ids = [made[0]["recordId"], made[1]["recordId"], made[0]["recordId"], other["recordId"]]
    resp = await client.post(url, headers=ws.headers, json={"recordIds": ids})
    assert resp.status_code == 200 and resp.json() == {"deletedCount": 2}
    again = await client.post(url, headers=ws.headers, json={"recordIds": ids})
    assert again.json() == {"deletedCount": 0}
    listed = (await client.get(records_url("tasks"), headers=ws.headers)).json()
    assert [r["recordId"] for r in listed["records"]] == [made[2]["recordId"]]
    still = await client.get(records_url("deals", other["recordId"]), headers=ws.headers)
    assert still.status_code == 200  # another module's id is not touched
    for bad in ({"recordIds": []}, {"recordIds": [other["recordId"]] * 101}, {"ids": []}):
        assert_envelope(
            await client.post(url, headers=ws.headers, json=bad), 400, "validation_error"
        )


async def test_other_workspace_sees_404s(
    client: httpx.AsyncClient, ws: Workspace, other_ws: Workspace
) -> None:
    deal = await create(client, ws, "deals")
    theirs = other_ws.headers
    url = records_url("deals", deal["recordId"])
    assert_envelope(await client.get(url, headers=theirs), 404, "not_found")
    patched = await client.patch(url, headers=theirs, json={"displayName": "Mine"})
    assert_envelope(patched, 404, "not_found")
    assert_envelope(await client.delete(url, headers=theirs), 404, "not_found")
    bulk = {"recordIds": [deal["recordId"]]}
    resp = await client.post(records_url("deals") + "/bulk", headers=theirs, json=bulk)
    assert assert_envelope(resp, 404, "not_found")["data"] == {
        "missingRecordIds": [deal["recordId"]]
    }
    resp = await client.post(records_url("deals") + "/bulk-delete", headers=theirs, json=bulk)
    assert resp.json() == {"deletedCount": 0}
    linked = f"/v1/modules/deals/references/company/records/{deal['recordId']}"
    assert_envelope(await client.get(linked, headers=theirs), 404, "not_found")
    activity = url + "/activity"
    assert_envelope(await client.get(activity, headers=theirs), 404, "not_found")
    link = {"displayName": "T", "fields": {"title": "T", "status": "todo"}}
    link["fields"]["related-deal"] = deal["recordId"]
    resp = await client.post(records_url("tasks"), headers=theirs, json=link)
    error = assert_envelope(resp, 400, "validation_error")
    assert issue_paths(error) == [["fields", "related-deal"]]
    unchanged = await client.get(url, headers=ws.headers)
    assert unchanged.json()["record"] == deal


async def test_role_permissions(client: httpx.AsyncClient, runtime: Runtime, ws: Workspace) -> None:
    await runtime.actors.ask(
        ops.CreateRole(
            "sales", frozenset({"deals", "companies"}), frozenset({"deals"}), by=ws.system
        ),
    )
    sales = await add_user(runtime, ws, "sales")
    viewer = await add_user(runtime, ws, "viewer")
    company = await create(client, ws, "companies")
    contact = await create(client, ws, "contacts")
    hidden = records_url("contacts", contact["recordId"])
    assert_envelope(await client.get(hidden, headers=sales.headers), 404, "not_found")
    assert_envelope(
        await client.get(records_url("contacts"), headers=sales.headers), 404, "not_found"
    )
    body = {"displayName": "C", "fields": BASE_FIELDS["contacts"]}
    post = await client.post(records_url("contacts"), headers=sales.headers, json=body)
    assert_envelope(post, 404, "not_found")
    assert_envelope(await client.delete(hidden, headers=sales.headers), 404, "not_found")
    company_url = records_url("companies", company["recordId"])
    assert (await client.get(company_url, headers=sales.headers)).status_code == 200
    body = {"displayName": "C", "fields": BASE_FIELDS["companies"]}
    ids = {"recordIds": [company["recordId"]]}
    for who in (sales, viewer):
        for resp in (
            await client.post(records_url("companies"), headers=who.headers, json=body),
            await client.patch(company_url, headers=who.headers, json={"displayName": "X"}),
            await client.delete(company_url, headers=who.headers),
            await client.post(records_url("companies") + "/bulk", headers=who.headers, json=ids),
            await client.post(
                records_url("companies") + "/bulk-delete", headers=who.headers, json=ids
            ),
        ):
            assert_envelope(resp, 403, "forbidden")
    deal = {"displayName": "D", "fields": BASE_FIELDS["deals"]}
    made = await client.post(records_url("deals"), headers=sales.headers, json=deal)
    assert made.status_code == 201
    assert made.json()["record"]["createdByUserId"] == sales.owner_id
    assert (await client.get(company_url, headers=ws.headers)).json()["record"] == company
    reader = await add_user(runtime, ws, "member", scopes=("records:read",))
    resp = await client.post(records_url("deals"), headers=reader.headers, json=deal)
    assert_envelope(resp, 403, "forbidden")
