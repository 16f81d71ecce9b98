"""Module metadata endpoints 3-6 and the template catalog."""

from __future__ import annotations

import httpx

from fieldhouse.model.fields import DATA_TYPES
from fieldhouse.model.principal import SystemActor
from fieldhouse.model.templates import BUILTIN_TEMPLATES
from fieldhouse.runtime import Runtime
from tests.conftest import Workspace, add_user
from tests.http.test_auth import assert_envelope


async def test_modules_list(client: httpx.AsyncClient, ws: Workspace) -> None:
    modules = (await client.get("/v1/modules", headers=ws.headers)).json()["modules"]
    assert [m["slug"] for m in modules] == ["contacts", "companies", "deals", "tasks"]
    assert all(set(m) == {"id", "name", "slug"} for m in modules)


async def test_module_schema_and_fields(client: httpx.AsyncClient, ws: Workspace) -> None:
    resp = await client.get("/v1/modules/deals", headers=ws.headers)
    assert resp.status_code == 200
    body = resp.json()
    assert set(body) == {"module", "fields", "views", "references"}
    assert body["module"]["slug"] == "deals"
    assert body["module"]["templateSlug"] == "deals"
    assert body["module"]["templateVersion"] == "1.0.0"
    fields = (await client.get("/v1/modules/deals/fields", headers=ws.headers)).json()["fields"]
    assert fields == body["fields"]
    by_key = {f["key"]: f for f in fields}
    assert by_key["stage"]["type"] == "select"
    assert by_key["deal-number"]["config"]["autonumber"]["prefix"] == "DEAL-"
    assert all({"key", "label", "type", "required"} <= set(f) for f in fields)
    assert all(f["vendorManaged"] is True for f in fields)
    refs = {r["slug"]: r for r in body["references"]}
    assert refs["company"]["target"]["moduleSlug"] == "companies"
    assert refs["company"]["relationshipType"] == "many_to_one"
    assert refs["contacts"]["relationshipType"] == "many_to_many"
    companies = (await client.get("/v1/modules/companies", headers=ws.headers)).json()
    assert refs["company"]["target"]["moduleId"] == companies["module"]["id"]


async def test_all_data_types_are_installed(client: httpx.AsyncClient, ws: Workspace) -> None:
    seen: set[str] = set()
    for slug in ("contacts", "companies", "deals", "tasks"):
        fields = (await client.get(f"/v1/modules/{slug}/fields", headers=ws.headers)).json()
        seen |= {f["type"] for f in fields["fields"]}
    assert seen == {f.data_type for t in BUILTIN_TEMPLATES for f in t.fields}
    assert seen <= set(DATA_TYPES)


async def test_views(client: httpx.AsyncClient, ws: Workspace) -> None:
    views = (await client.get("/v1/modules/deals/views", headers=ws.headers)).json()["views"]
    assert views and all(v["vendorManaged"] for v in views)
    assert_envelope(
        await client.get("/v1/modules/nope/views", headers=ws.headers), 404, "not_found"
    )


async def test_unknown_and_invalid_module_slugs(client: httpx.AsyncClient, ws: Workspace) -> None:
    for path in ("/v1/modules/nope", "/v1/modules/nope/fields"):
        assert_envelope(await client.get(path, headers=ws.headers), 404, "not_found")
    long = "x" * 65
    error = assert_envelope(
        await client.get(f"/v1/modules/{long}", headers=ws.headers), 400, "validation_error"
    )
    assert error["issues"][0]["path"] == ["moduleSlug"]  # type: ignore[index]
    assert error["issues"][0]["maximum"] == 64  # type: ignore[index]


async def test_catalog_and_install(
    client: httpx.AsyncClient, runtime: Runtime, ws: Workspace
) -> None:
    catalog = (await client.get("/api/templates/catalog", headers=ws.headers)).json()
    entries = {e["templateSlug"]: e for e in catalog["templates"]}
    assert set(entries) >= {"contacts", "companies", "deals", "tasks"}
    deals = entries["deals"]
    assert deals["installed"] is True and deals["hasCustomizations"] is False
    assert set(deals) == {
        "templateSlug",
        "name",
        "description",
        "templateVersion",
        "installed",
        "installedModuleId",
        "hasCustomizations",
    }
    again = await client.post("/api/templates/deals/install", headers=ws.headers)
    assert_envelope(again, 409, "conflict")
    missing = await client.post("/api/templates/nothing/install", headers=ws.headers)
    assert_envelope(missing, 404, "not_found")
    member = await add_user(runtime, ws, "member")
    assert_envelope(
        await client.post("/api/templates/deals/install", headers=member.headers), 403, "forbidden"
    )


async def test_install_into_empty_workspace(client: httpx.AsyncClient, runtime: Runtime) -> None:
    from fieldhouse.actors import admin_ops as ops
    from fieldhouse.actors.bootstrap import create_workspace

    made = await create_workspace(runtime.actors, "Empty")
    key = await runtime.actors.ask(
        ops.CreateApiKey(made.user_id, None, by=SystemActor(made.account_id, "test"))
    )
    headers = {"Authorization": f"Bearer {key.api_key}"}
    assert (await client.get("/v1/modules", headers=headers)).json() == {"modules": []}
    resp = await client.post("/api/templates/tasks/install", headers=headers)
    assert resp.status_code == 201
    assert resp.json()["moduleSlug"] == "tasks"
    modules = (await client.get("/v1/modules", headers=headers)).json()["modules"]
    assert [m["slug"] for m in modules] == ["tasks"]
    entries = (await client.get("/api/templates/catalog", headers=headers)).json()["templates"]
    installed = {e["templateSlug"] for e in entries if e["installed"]}
    assert installed == {"tasks"}


async def test_labels_and_types(client: httpx.AsyncClient, runtime: Runtime, ws: Workspace) -> None:
    made = await client.post(
        "/api/labels", headers=ws.headers, json={"name": "VIP", "color": "red"}
    )
    assert made.status_code == 201
    label = made.json()
    assert label["name"] == "VIP" and label["color"] == "red"
    listed = (await client.get("/api/labels", headers=ws.headers)).json()["labels"]
    assert listed == [{"id": label["id"], "name": "VIP", "color": "red"}]
    dup = await client.post("/api/labels", headers=ws.headers, json={"name": "VIP"})
    assert_envelope(dup, 409, "conflict")
    typ = await client.post(
        "/api/types", headers=ws.headers, json={"name": "Partner", "moduleSlug": "companies"}
    )
    assert typ.status_code == 201
    assert (await client.get("/api/types", headers=ws.headers)).json()["types"][0][
        "name"
    ] == "Partner"
    member = await add_user(runtime, ws, "member")
    assert_envelope(await client.get("/api/labels", headers=member.headers), 403, "forbidden")
