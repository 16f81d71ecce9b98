"""Template maintenance through HTTP: reset-to-template and custom field definitions."""

from __future__ import annotations

import uuid
from typing import Any, get_args

import httpx

from fieldhouse.http.template_models import DataType
from fieldhouse.model.fields import DATA_TYPES
from fieldhouse.model.schema import ModuleDef
from fieldhouse.runtime import Runtime
from tests.conftest import Workspace, add_user
from tests.http.test_auth import assert_envelope


async def module_id(client: httpx.AsyncClient, ws: Workspace, slug: str) -> str:
    resp = await client.get(f"/v1/modules/{slug}", headers=ws.headers)
    assert resp.status_code == 200, resp.text
    return str(resp.json()["module"]["id"])


async def fields_of(client: httpx.AsyncClient, ws: Workspace, slug: str) -> dict[str, Any]:
    resp = await client.get(f"/v1/modules/{slug}/fields", headers=ws.headers)
    return {f["slug"]: f for f in resp.json()["fields"]}


async def new_deal(client: httpx.AsyncClient, ws: Workspace, name: str) -> dict[str, Any]:
    body = {"displayName": name, "fields": {"name": name, "stage": "lead"}}
    resp = await client.post("/v1/modules/deals/records", headers=ws.headers, json=body)
    assert resp.status_code == 201, resp.text
    record: dict[str, Any] = resp.json()["record"]
    return record


async def get_deal(client: httpx.AsyncClient, ws: Workspace, record_id: str) -> dict[str, Any]:
    resp = await client.get(f"/v1/modules/deals/records/{record_id}", headers=ws.headers)
    assert resp.status_code == 200, resp.text
    record: dict[str, Any] = resp.json()["record"]
    return record


async def catalog_entry(client: httpx.AsyncClient, ws: Workspace, slug: str) -> dict[str, Any]:
    templates = (await client.get("/api/templates/catalog", headers=ws.headers)).json()
    entry: dict[str, Any] = {e["templateSlug"]: e for e in templates["templates"]}[slug]
    return entry


async def activity_types(client: httpx.AsyncClient, ws: Workspace, slug: str) -> list[Any]:
    resp = await client.get(f"/v1/modules/{slug}/activity?limit=50", headers=ws.headers)
    return [(a["activityType"], a["data"]) for a in resp.json()["activities"]]


async def add_field(
    client: httpx.AsyncClient, ws: Workspace, mid: str, body: dict[str, Any]
) -> httpx.Response:
    return await client.post(f"/api/modules/{mid}/fields", headers=ws.headers, json=body)


async def test_data_type_enum_matches_the_model() -> None:
    assert get_args(DataType) == DATA_TYPES


async def test_reset_undoes_customisations_and_keeps_next_value(
    client: httpx.AsyncClient, ws: Workspace
) -> None:
    mid = await module_id(client, ws, "deals")
    first = await new_deal(client, ws, "One")
    second = await new_deal(client, ws, "Two")
    assert [first["fields"]["deal-number"], second["fields"]["deal-number"]] == [
        "DEAL-00001",
        "DEAL-00002",
    ]
    vendor = await fields_of(client, ws, "deals")
    # remove a vendor field: the set differs, so the catalog reports customisations
    gone = await client.delete(
        f"/api/modules/{mid}/fields/{vendor['lost-reason']['fieldId']}", headers=ws.headers
    )
    assert gone.status_code == 204 and gone.content == b""
    assert (await catalog_entry(client, ws, "deals"))["hasCustomizations"] is True
    # edit a vendor field's label, and another's config (padding dropped)
    stage_url = f"/api/modules/{mid}/fields/{vendor['stage']['fieldId']}"
    relabel = await client.patch(stage_url, headers=ws.headers, json={"label": "Phase"})
    assert relabel.status_code == 200, relabel.text
    assert relabel.json()["field"]["label"] == "Phase"
    number_url = f"/api/modules/{mid}/fields/{vendor['deal-number']['fieldId']}"
    unpadded = {"autonumber": {"formatType": "prefix", "prefix": "DEAL-", "nextValue": 1}}
    edited = await client.patch(number_url, headers=ws.headers, json={"config": unpadded})
    assert edited.status_code == 200, edited.text
    assert edited.json()["field"]["config"]["autonumber"]["nextValue"] == 3  # counter kept
    assert (await new_deal(client, ws, "Three"))["fields"]["deal-number"] == "DEAL-3"
    # a user field, with a value
    made = await add_field(client, ws, mid, {"label": "Region", "dataType": "text"})
    assert made.status_code == 201, made.text
    await client.patch(
        f"/v1/modules/deals/records/{first['recordId']}",
        headers=ws.headers,
        json={"fields": {"region": "EMEA"}},
    )
    # label/config edits and user fields are not customisations in the SPEC's sense
    entry = await catalog_entry(client, ws, "deals")
    assert entry["hasCustomizations"] is True  # still: lost-reason is missing

    resp = await client.post(f"/api/modules/{mid}/reset-to-template", headers=ws.headers)
    assert resp.status_code == 200, resp.text
    assert resp.json() == {
        "success": True,
        "fieldsRemoved": 2,  # stage and deal-number updated back
        "fieldsAdded": 1,  # lost-reason
        "viewsAdded": 0,
        "referencesAdded": 0,
        "skippedSlugs": [],
    }
    after = await fields_of(client, ws, "deals")
    assert after["stage"]["label"] == "Stage"
    assert after["lost-reason"]["vendorManaged"] is True
    assert after["lost-reason"]["fieldId"] != vendor["lost-reason"]["fieldId"]
    assert after["region"] == made.json()  # user field untouched
    assert after["deal-number"]["config"]["autonumber"]["padding"] == 5
    assert after["deal-number"]["config"]["autonumber"]["nextValue"] == 4
    assert [f["slug"] for f in after.values() if f["vendorManaged"]] == list(vendor)
    assert (await catalog_entry(client, ws, "deals"))["hasCustomizations"] is False
    # existing records keep their numbers, new ones continue the sequence
    assert (await get_deal(client, ws, first["recordId"]))["fields"]["deal-number"] == (
        "DEAL-00001"
    )
    assert (await get_deal(client, ws, first["recordId"]))["fields"]["region"] == "EMEA"
    assert (await new_deal(client, ws, "Four"))["fields"]["deal-number"] == "DEAL-00004"

    feed = await activity_types(client, ws, "deals")
    reset = [data for kind, data in feed if kind == "template_reset"]
    assert reset and reset[0]["fieldsRemoved"] == 2 and reset[0]["templateSlug"] == "deals"
    kinds = {kind for kind, _ in feed}
    assert {"field_deleted", "field_updated", "field_created"} <= kinds

    again = await client.post(f"/api/modules/{mid}/reset-to-template", headers=ws.headers)
    assert again.json()["fieldsRemoved"] == 0 and again.json()["fieldsAdded"] == 0


async def test_reset_reinserts_a_reference_field_and_its_reference(
    client: httpx.AsyncClient, ws: Workspace
) -> None:
    mid = await module_id(client, ws, "deals")
    company = (await fields_of(client, ws, "deals"))["company"]
    resp = await client.delete(
        f"/api/modules/{mid}/fields/{company['fieldId']}", headers=ws.headers
    )
    assert resp.status_code == 204
    refs = (await client.get("/v1/modules/deals/references", headers=ws.headers)).json()
    assert "company" not in {r["slug"] for r in refs["references"]}
    reset = await client.post(f"/api/modules/{mid}/reset-to-template", headers=ws.headers)
    body = reset.json()
    assert (body["fieldsAdded"], body["referencesAdded"], body["viewsAdded"]) == (1, 1, 0)
    new_field = (await fields_of(client, ws, "deals"))["company"]
    refs = (await client.get("/v1/modules/deals/references", headers=ws.headers)).json()
    by_slug = {r["slug"]: r for r in refs["references"]}
    assert by_slug["company"]["sourceFieldId"] == new_field["fieldId"]
    assert by_slug["company"]["vendorManaged"] is True


async def test_reset_skips_a_template_slug_held_by_a_user_field(
    client: httpx.AsyncClient, ws: Workspace
) -> None:
    mid = await module_id(client, ws, "deals")
    lost = (await fields_of(client, ws, "deals"))["lost-reason"]
    await client.delete(f"/api/modules/{mid}/fields/{lost['fieldId']}", headers=ws.headers)
    made = await add_field(
        client, ws, mid, {"label": "Why lost", "slug": "lost-reason", "dataType": "text"}
    )
    assert made.status_code == 201
    body = (await client.post(f"/api/modules/{mid}/reset-to-template", headers=ws.headers)).json()
    assert body["fieldsAdded"] == 0 and body["skippedSlugs"] == ["field:lost-reason"]
    assert (await fields_of(client, ws, "deals"))["lost-reason"]["vendorManaged"] is False


async def test_reset_errors(
    client: httpx.AsyncClient, runtime: Runtime, ws: Workspace, other_ws: Workspace
) -> None:
    url = "/api/modules/{}/reset-to-template"
    assert_envelope(
        await client.post(url.format(uuid.uuid4()), headers=ws.headers), 404, "not_found"
    )
    theirs = await module_id(client, other_ws, "deals")
    assert_envelope(await client.post(url.format(theirs), headers=ws.headers), 404, "not_found")
    error = assert_envelope(
        await client.post(url.format("not-a-uuid"), headers=ws.headers), 400, "validation_error"
    )
    assert error["issues"][0]["path"] == ["moduleId"]  # type: ignore[index]
    member = await add_user(runtime, ws, "member")
    mine = await module_id(client, ws, "deals")
    assert_envelope(await client.post(url.format(mine), headers=member.headers), 403, "forbidden")
    # a module that was not installed from a template
    plain = ModuleDef(str(uuid.uuid4()), ws.account_id, "Plain", "plain", created_at="x")
    async with runtime.store.write(ws.account_id) as txn:
        await txn.insert_module(plain)
        await txn.bump_schema_version()
    error = assert_envelope(
        await client.post(url.format(plain.module_id), headers=ws.headers), 409, "conflict"
    )
    assert "not installed from a template" in str(error["message"])


async def test_create_field_shapes_and_slugs(
    client: httpx.AsyncClient, runtime: Runtime, ws: Workspace, other_ws: Workspace
) -> None:
    mid = await module_id(client, ws, "deals")
    resp = await add_field(
        client, ws, mid, {"label": "Renewal Date!", "dataType": "date", "isRequired": False}
    )
    assert resp.status_code == 201, resp.text
    made = resp.json()
    assert (made["slug"], made["key"], made["name"]) == (
        "renewal-date",
        "renewal-date",
        "RenewalDate",
    )
    assert made["vendorManaged"] is False and made["type"] == "date"
    assert (await fields_of(client, ws, "deals"))["renewal-date"] == made
    deal = await new_deal(client, ws, "Dated")
    patched = await client.patch(
        f"/v1/modules/deals/records/{deal['recordId']}",
        headers=ws.headers,
        json={"fields": {"renewal-date": "2030-01-31"}},
    )
    assert patched.json()["record"]["fields"]["renewal-date"] == "2030-01-31"
    # slug clashes: derived or explicit, vendor or user field
    for body in (
        {"label": "Renewal date", "dataType": "text"},
        {"label": "Other", "slug": "stage", "dataType": "text"},
    ):
        assert_envelope(await add_field(client, ws, mid, body), 409, "conflict")
    bad = await add_field(
        client,
        ws,
        mid,
        {"label": "", "slug": "Bad_Slug", "dataType": "colour", "extra": 1},
    )
    error = assert_envelope(bad, 400, "validation_error")
    paths = {tuple(i["path"]) for i in error["issues"]}  # type: ignore[attr-defined]
    assert paths == {("label",), ("slug",), ("dataType",), ()}
    long = await add_field(client, ws, mid, {"label": "x" * 101, "dataType": "text"})
    assert_envelope(long, 400, "validation_error")
    theirs = await module_id(client, other_ws, "deals")
    body = {"label": "Sneaky", "dataType": "text"}
    assert_envelope(await add_field(client, ws, theirs, body), 404, "not_found")
    member = await add_user(runtime, ws, "member")
    assert_envelope(await add_field(client, member, mid, body), 403, "forbidden")


async def test_formula_fields_are_checked_at_definition(
    client: httpx.AsyncClient, ws: Workspace
) -> None:
    mid = await module_id(client, ws, "deals")
    deal = await new_deal(client, ws, "acme renewal")
    broken = await add_field(
        client,
        ws,
        mid,
        {
            "label": "Broken",
            "dataType": "formula",
            "config": {"formula": {"expression": "{name} + ("}},
        },
    )
    error = assert_envelope(broken, 400, "validation_error")
    issue = error["issues"][0]  # type: ignore[index]
    assert (
        issue["path"] == ["config", "formula", "expression"] and issue["code"] == "invalid_formula"
    )
    unknown = await add_field(
        client,
        ws,
        mid,
        {
            "label": "Ghost",
            "dataType": "formula",
            "config": {"formula": {"expression": "{phantom}"}},
        },
    )
    assert assert_envelope(unknown, 400, "validation_error")["issues"][0]["code"] == "unknown_field"  # type: ignore[index]
    good = await add_field(
        client,
        ws,
        mid,
        {
            "label": "Shout",
            "dataType": "formula",
            "config": {"formula": {"expression": "UPPER({name})"}},
        },
    )
    assert good.status_code == 201, good.text
    assert good.json()["config"]["formula"]["referencedFields"] == ["name"]
    # existing records get the computed value at once
    assert (await get_deal(client, ws, deal["recordId"]))["fields"]["shout"] == "ACME RENEWAL"
    # a broken expression is refused on change, too
    url = f"/api/modules/{mid}/fields/{good.json()['fieldId']}"
    again = await client.patch(
        url, headers=ws.headers, json={"config": {"formula": {"expression": "UPPER("}}}
    )
    assert_envelope(again, 400, "validation_error")


async def test_rollup_select_and_autonumber_configs(
    client: httpx.AsyncClient, ws: Workspace
) -> None:
    mid = await module_id(client, ws, "deals")

    async def issues(body: dict[str, Any]) -> list[tuple[Any, ...]]:
        error = assert_envelope(await add_field(client, ws, mid, body), 400, "validation_error")
        return [tuple(i["path"]) for i in error["issues"]]  # type: ignore[attr-defined]

    rollup = {"linkedFieldSlug": "stage", "aggregation": "COUNTALL", "aggregateFieldSlug": None}
    assert await issues({"label": "R", "dataType": "rollup", "config": {"rollup": rollup}}) == [
        ("config", "rollup", "linkedFieldSlug")
    ]
    ok = await add_field(
        client,
        ws,
        mid,
        {
            "label": "Contact count",
            "dataType": "rollup",
            "config": {"rollup": {**rollup, "linkedFieldSlug": "contacts"}},
        },
    )
    assert ok.status_code == 201, ok.text
    assert await issues({"label": "S", "dataType": "select", "config": {"options": []}}) == [
        ("config", "options")
    ]
    assert await issues({"label": "S", "dataType": "multi_select"}) == [("config", "options")]
    assert await issues(
        {"label": "S", "dataType": "select", "config": {"options": ["a", {"label": "x"}, "a"]}}
    ) == [("config", "options", 1), ("config", "options", 2)]
    picked = await add_field(
        client,
        ws,
        mid,
        {
            "label": "Tier",
            "dataType": "select",
            "config": {"options": ["gold", {"value": "silver"}]},
        },
    )
    assert picked.status_code == 201
    bad_auto = {"formatType": "weird", "padding": 21, "startFrom": -1}
    assert await issues(
        {"label": "N", "dataType": "autonumber", "config": {"autonumber": bad_auto}}
    ) == [
        ("config", "autonumber", "formatType"),
        ("config", "autonumber", "padding"),
        ("config", "autonumber", "startFrom"),
    ]
    plain = await add_field(client, ws, mid, {"label": "Seq", "dataType": "autonumber"})
    assert plain.json()["config"] == {"autonumber": {"formatType": "none"}}


async def test_backfill_numbers_existing_records_oldest_first(
    client: httpx.AsyncClient, ws: Workspace
) -> None:
    mid = await module_id(client, ws, "deals")
    deals = [await new_deal(client, ws, name) for name in ("A", "B", "C", "D")]
    gone = await client.delete(
        f"/v1/modules/deals/records/{deals[1]['recordId']}", headers=ws.headers
    )
    assert gone.status_code == 204
    config = {"autonumber": {"formatType": "prefix", "prefix": "T-", "padding": 3, "startFrom": 10}}
    made = await add_field(
        client, ws, mid, {"label": "Ticket", "dataType": "autonumber", "config": config}
    )
    assert made.status_code == 201, made.text
    url = f"/api/modules/{mid}/fields/{made.json()['fieldId']}"
    resp = await client.patch(url, headers=ws.headers, json={"backfillExisting": True})
    assert resp.status_code == 200, resp.text
    assert resp.json()["backfilled"] == 3
    assert resp.json()["field"]["config"]["autonumber"]["nextValue"] == 13
    numbers = [
        (await get_deal(client, ws, d["recordId"]))["fields"]["ticket"]
        for d in (deals[0], deals[2], deals[3])
    ]
    assert numbers == ["T-010", "T-011", "T-012"]
    assert (await new_deal(client, ws, "E"))["fields"]["ticket"] == "T-013"
    again = await client.patch(url, headers=ws.headers, json={"backfillExisting": True})
    assert again.json()["backfilled"] == 0
    feed = await activity_types(client, ws, "deals")
    counts = [data["count"] for kind, data in feed if kind == "field_backfilled"]
    assert counts == [0, 3]
    # only auto-number fields can be backfilled
    stage = (await fields_of(client, ws, "deals"))["stage"]
    wrong = await client.patch(
        f"/api/modules/{mid}/fields/{stage['fieldId']}",
        headers=ws.headers,
        json={"backfillExisting": True},
    )
    error = assert_envelope(wrong, 400, "validation_error")
    assert error["issues"][0]["path"] == ["backfillExisting"]  # type: ignore[index]


async def test_patch_field_rules(
    client: httpx.AsyncClient, runtime: Runtime, ws: Workspace, other_ws: Workspace
) -> None:
    mid = await module_id(client, ws, "deals")
    fields = await fields_of(client, ws, "deals")
    url = f"/api/modules/{mid}/fields/{fields['lost-reason']['fieldId']}"
    resp = await client.patch(url, headers=ws.headers, json={"isRequired": True})
    field = resp.json()["field"]
    assert (field["isRequired"], field["required"], field["label"]) == (True, True, "Lost reason")
    assert field["config"] == fields["lost-reason"]["config"]
    for body in ({"dataType": "text"}, {"slug": "why"}):
        error = assert_envelope(
            await client.patch(url, headers=ws.headers, json=body), 400, "validation_error"
        )
        assert error["issues"][0]["code"] == "unrecognized_keys"  # type: ignore[index]
    missing = f"/api/modules/{mid}/fields/{uuid.uuid4()}"
    assert_envelope(await client.patch(missing, headers=ws.headers, json={}), 404, "not_found")
    contacts_field = next(iter((await fields_of(client, ws, "contacts")).values()))
    elsewhere = f"/api/modules/{mid}/fields/{contacts_field['fieldId']}"
    assert_envelope(await client.patch(elsewhere, headers=ws.headers, json={}), 404, "not_found")
    bad = await client.patch(f"/api/modules/{mid}/fields/nope", headers=ws.headers, json={})
    assert assert_envelope(bad, 400, "validation_error")["issues"][0]["path"] == ["fieldId"]  # type: ignore[index]
    theirs = await module_id(client, other_ws, "deals")
    their_url = f"/api/modules/{theirs}/fields/{fields['lost-reason']['fieldId']}"
    assert_envelope(await client.patch(their_url, headers=ws.headers, json={}), 404, "not_found")
    member = await add_user(runtime, ws, "member")
    assert_envelope(await client.patch(url, headers=member.headers, json={}), 403, "forbidden")


async def test_delete_field_rules(
    client: httpx.AsyncClient, runtime: Runtime, ws: Workspace, other_ws: Workspace
) -> None:
    mid = await module_id(client, ws, "deals")
    made = (await add_field(client, ws, mid, {"label": "Region", "dataType": "text"})).json()
    deal = await new_deal(client, ws, "Regional")
    await client.patch(
        f"/v1/modules/deals/records/{deal['recordId']}",
        headers=ws.headers,
        json={"fields": {"region": "EU"}},
    )
    member = await add_user(runtime, ws, "member")
    url = f"/api/modules/{mid}/fields/{made['fieldId']}"
    assert_envelope(await client.delete(url, headers=member.headers), 403, "forbidden")
    theirs = await module_id(client, other_ws, "deals")
    assert_envelope(
        await client.delete(f"/api/modules/{theirs}/fields/{made['fieldId']}", headers=ws.headers),
        404,
        "not_found",
    )
    assert (await client.delete(url, headers=ws.headers)).status_code == 204
    assert "region" not in (await get_deal(client, ws, deal["recordId"]))["fields"]
    assert "region" not in await fields_of(client, ws, "deals")
    assert_envelope(await client.delete(url, headers=ws.headers), 404, "not_found")
    # a field other fields compute from stays
    amount = (await fields_of(client, ws, "deals"))["amount"]
    error = assert_envelope(
        await client.delete(f"/api/modules/{mid}/fields/{amount['fieldId']}", headers=ws.headers),
        409,
        "conflict",
    )
    assert error["data"] == {  # type: ignore[comparison-overlap]
        "dependentFields": ["deals.weighted-value", "companies.total-won-deal-value"]
    }
    feed = await activity_types(client, ws, "deals")
    deleted = [data for kind, data in feed if kind == "field_deleted"]
    assert deleted[0]["slug"] == "region" and deleted[0]["valuesCleared"] == 1


async def test_has_customizations_follows_the_vendor_sets(
    client: httpx.AsyncClient, ws: Workspace
) -> None:
    mid = await module_id(client, ws, "tasks")
    fields = await fields_of(client, ws, "tasks")
    first = next(iter(fields.values()))
    url = f"/api/modules/{mid}/fields/{first['fieldId']}"
    assert (
        await client.patch(url, headers=ws.headers, json={"label": "Renamed"})
    ).status_code == 200
    assert (
        await add_field(client, ws, mid, {"label": "Mine", "dataType": "boolean"})
    ).status_code == 201
    # SPEC: only a removed or an extra vendor-managed item counts; user items are ignored
    assert (await catalog_entry(client, ws, "tasks"))["hasCustomizations"] is False
    body = (await client.post(f"/api/modules/{mid}/reset-to-template", headers=ws.headers)).json()
    assert (body["fieldsRemoved"], body["fieldsAdded"]) == (1, 0)
    assert (await fields_of(client, ws, "tasks"))[first["slug"]]["label"] == first["label"]
    assert "mine" in await fields_of(client, ws, "tasks")


async def test_create_field_takes_the_spec_field_definition_structure(
    client: httpx.AsyncClient, ws: Workspace
) -> None:
    mid = await module_id(client, ws, "deals")
    definition = {
        "name": "RenewalNotes",
        "slug": "renewal-notes",
        "label": "Renewal notes",
        "dataType": "textarea",
        "config": {},
        "isRequired": False,
        "privacyLevel": "role",
        "sortOrder": 3,
    }
    resp = await add_field(client, ws, mid, definition)
    assert resp.status_code == 201, resp.text
    made = resp.json()
    assert {k: made[k] for k in definition} == definition
    assert (await fields_of(client, ws, "deals"))["renewal-notes"] == made
    # the same rules as the rest of the structure: PascalCase name, the privacy enum
    bad = await add_field(
        client,
        ws,
        mid,
        {**definition, "slug": "other", "name": "not-pascal", "privacyLevel": "public"},
    )
    error = assert_envelope(bad, 400, "validation_error")
    paths = {tuple(i["path"]) for i in error["issues"]}  # type: ignore[attr-defined]
    assert paths == {("name",), ("privacyLevel",)}
