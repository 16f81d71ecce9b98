"""The template catalog, template installation, labels and types: what each workspace sees of
its own, who may change them, and the refusals. (The main paths are in test_meta.py.)"""

from __future__ import annotations

import httpx

from fieldhouse.actors import admin_ops as ops
from fieldhouse.actors.bootstrap import create_workspace
from fieldhouse.model.principal import SystemActor
from fieldhouse.model.templates import BUILTIN_TEMPLATES
from fieldhouse.runtime import Runtime
from tests.conftest import Workspace, add_user
from tests.http.test_auth import assert_envelope


async def test_catalog_names_the_installed_module(
    runtime: Runtime, client: httpx.AsyncClient, ws: Workspace
) -> None:
    modules = (await client.get("/v1/modules", headers=ws.headers)).json()["modules"]
    ids = {m["slug"]: m["id"] for m in modules}
    viewer = await add_user(runtime, ws, "viewer")  # workspace:read is enough to look
    resp = await client.get("/api/templates/catalog", headers=viewer.headers)
    assert resp.status_code == 200
    entries = resp.json()["templates"]
    assert [e["templateSlug"] for e in entries] == [t.slug for t in BUILTIN_TEMPLATES]
    for entry, template in zip(entries, BUILTIN_TEMPLATES, strict=True):
        assert entry["name"] == template.name
        assert entry["templateVersion"] == template.version
        assert entry["installedModuleId"] == ids.get(template.slug)
        assert entry["installed"] is (template.slug in ids)


async def test_install_then_the_catalog_follows(
    runtime: Runtime, client: httpx.AsyncClient
) -> None:
    made = await create_workspace(runtime.actors, "Empty")
    key = await runtime.actors.ask(
        ops.CreateApiKey(made.user_id, None, by=SystemActor(made.account_id, "test"))
    )
    headers = {"Authorization": f"Bearer {key.api_key}"}
    before = (await client.get("/api/templates/catalog", headers=headers)).json()["templates"]
    assert all(e["installedModuleId"] is None and not e["installed"] for e in before)
    resp = await client.post("/api/templates/deals/install", headers=headers)
    assert resp.status_code == 201
    installed = resp.json()
    assert installed["moduleSlug"] == "deals"
    after = (await client.get("/api/templates/catalog", headers=headers)).json()["templates"]
    deals = next(e for e in after if e["templateSlug"] == "deals")
    assert deals["installedModuleId"] == installed["moduleId"]
    assert deals["hasCustomizations"] is False
    unknown = await client.post("/api/templates/Not_A_Slug/install", headers=headers)
    error = assert_envelope(unknown, 404, "not_found")
    assert error["message"] == "Template 'Not_A_Slug' not found"
    long = await client.post(f"/api/templates/{'x' * 65}/install", headers=headers)
    error = assert_envelope(long, 400, "validation_error")
    assert error["issues"] == [
        {
            "code": "too_big",
            "path": ["templateSlug"],
            "message": "templateSlug must be 1 to 64 characters",
            "maximum": 64,
            "inclusive": True,
            "type": "string",
        }
    ]


async def test_labels_and_types_belong_to_their_workspace(
    client: httpx.AsyncClient, ws: Workspace, other_ws: Workspace
) -> None:
    label = await client.post("/api/labels", headers=ws.headers, json={"name": "VIP"})
    assert label.status_code == 201 and label.json()["color"] is None
    # the same name is free in another workspace
    theirs = await client.post("/api/labels", headers=other_ws.headers, json={"name": "VIP"})
    assert theirs.status_code == 201 and theirs.json()["id"] != label.json()["id"]
    listed = (await client.get("/api/labels", headers=other_ws.headers)).json()["labels"]
    assert listed == [{"id": theirs.json()["id"], "name": "VIP", "color": None}]
    modules = (await client.get("/v1/modules", headers=ws.headers)).json()["modules"]
    companies = next(m["id"] for m in modules if m["slug"] == "companies")
    made = await client.post(
        "/api/types", headers=ws.headers, json={"name": "Partner", "moduleSlug": "companies"}
    )
    anywhere = await client.post("/api/types", headers=ws.headers, json={"name": "Any"})
    assert made.status_code == anywhere.status_code == 201
    types = (await client.get("/api/types", headers=ws.headers)).json()["types"]
    by_name = {t["name"]: t for t in types}
    assert by_name["Partner"] == {
        "id": made.json()["id"],
        "name": "Partner",
        "color": None,
        "moduleId": companies,
    }
    assert by_name["Any"]["moduleId"] is None
    assert (await client.get("/api/types", headers=other_ws.headers)).json() == {"types": []}


async def test_label_and_type_refusals(
    runtime: Runtime, client: httpx.AsyncClient, ws: Workspace
) -> None:
    long = await client.post("/api/labels", headers=ws.headers, json={"name": "x" * 101})
    error = assert_envelope(long, 400, "validation_error")
    issues = error["issues"]
    assert isinstance(issues, list) and [i["path"] for i in issues] == [["name"]]
    unknown = await client.post(
        "/api/types", headers=ws.headers, json={"name": "Partner", "moduleSlug": "nope"}
    )
    assert_envelope(unknown, 404, "not_found")
    assert (await client.get("/api/types", headers=ws.headers)).json() == {"types": []}
    member = await add_user(runtime, ws, "member")
    for method, path in (("POST", "/api/labels"), ("POST", "/api/types"), ("GET", "/api/types")):
        resp = await client.request(method, path, headers=member.headers, json={"name": "Mine"})
        assert_envelope(resp, 403, "forbidden")
    assert (await client.get("/api/labels", headers=ws.headers)).json() == {"labels": []}
