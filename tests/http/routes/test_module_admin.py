"""Custom modules and fields through /api (issue 37 item 1): a module made with its fields is
usable at once through /v1 (records, formulas, references, search, aggregation, expansion, the
activity feed); fields are renamed and archived (hidden, refused on writes, values kept) and
brought back; modules are archived and brought back; every refusal is a precise envelope and
leaves nothing written; only owners and admins may do any of it."""

from __future__ import annotations

import copy
from typing import Any

import httpx
import pytest
import trio

from fieldhouse.actors import module_ops
from fieldhouse.runtime import Runtime
from tests.conftest import Workspace, add_user
from tests.http.routes.test_events import second_server, served, stream, take

PROJECTS: dict[str, Any] = {
    "slug": "projects",
    "name": "Projects",
    "fields": [
        {"label": "Title", "slug": "title", "dataType": "text", "isRequired": True},
        {"label": "Budget", "dataType": "number"},
        {
            "label": "Double budget",
            "slug": "double",
            "dataType": "formula",
            "config": {"formula": {"expression": "{budget} * 2", "resultType": "number"}},
        },
        {
            "label": "Phase",
            "dataType": "select",
            "config": {"options": ["planned", "running", "done"]},
        },
        {
            "label": "Client",
            "dataType": "reference",
            "config": {"reference": {"allowedModuleSlugs": ["companies"]}},
        },
    ],
}


def envelope(resp: httpx.Response, status: int) -> dict[str, Any]:
    """The error envelope of a refusal: code, message and status always there."""
    assert resp.status_code == status, resp.text
    body = resp.json()
    assert set(body) == {"error"}
    error: dict[str, Any] = body["error"]
    assert error["statusCode"] == status and error["code"] and error["message"]
    return error


async def create_projects(
    client: httpx.AsyncClient, ws: Workspace, body: dict[str, Any] | None = None
) -> dict[str, Any]:
    resp = await client.post("/api/modules", headers=ws.headers, json=body or PROJECTS)
    assert resp.status_code == 201, resp.text
    made: dict[str, Any] = resp.json()
    return made


async def new_project(
    http: httpx.AsyncClient, ws: Workspace, title: str, **fields: Any
) -> dict[str, Any]:
    body = {"displayName": title, "fields": {"title": title, **fields}}
    resp = await http.post("/v1/modules/projects/records", headers=ws.headers, json=body)
    assert resp.status_code == 201, resp.text
    record: dict[str, Any] = resp.json()["record"]
    return record


async def field_slugs(client: httpx.AsyncClient, ws: Workspace, module: str) -> list[str]:
    resp = await client.get(f"/v1/modules/{module}/fields", headers=ws.headers)
    assert resp.status_code == 200, resp.text
    return [f["slug"] for f in resp.json()["fields"]]


async def feed(client: httpx.AsyncClient, ws: Workspace) -> list[tuple[str, dict[str, Any]]]:
    resp = await client.get("/v1/activity?limit=50", headers=ws.headers)
    return [(a["activityType"], a["data"]) for a in resp.json()["activities"]]


async def test_a_new_module_is_usable_at_once(client: httpx.AsyncClient, ws: Workspace) -> None:
    made = await create_projects(client, ws)
    module = made["module"]
    assert module["slug"] == "projects" and module["vendorManaged"] is False
    assert module["templateSlug"] is None and module["isActive"] is True
    assert [f["slug"] for f in made["fields"]] == ["title", "budget", "double", "phase", "client"]
    assert all(f["vendorManaged"] is False and f["archived"] is False for f in made["fields"])
    # /v1 reads it: the module list, its schema, its fields, its reference
    listed = (await client.get("/v1/modules", headers=ws.headers)).json()["modules"]
    assert {"id": module["id"], "name": "Projects", "slug": "projects"} in listed
    schema = (await client.get("/v1/modules/projects", headers=ws.headers)).json()
    assert schema["fields"] == made["fields"]
    (client_ref,) = schema["references"]
    assert client_ref["slug"] == "client"
    assert client_ref["target"]["moduleSlug"] == "companies"
    # records: validated by the new fields, the formula computed, a reference to a company
    company = await client.post(
        "/v1/modules/companies/records",
        headers=ws.headers,
        json={"displayName": "Initech", "fields": {"name": "Initech"}},
    )
    assert company.status_code == 201, company.text
    company_id = company.json()["record"]["recordId"]
    record = await new_project(client, ws, "Rocket", budget=21, phase="running", client=company_id)
    assert record["fields"]["double"] == 42
    assert record["fields"]["client"]["recordId"] == company_id
    bad = await client.post(
        "/v1/modules/projects/records",
        headers=ws.headers,
        json={"displayName": "X", "fields": {"title": "X", "phase": "someday"}},
    )
    assert bad.status_code == 400
    assert bad.json()["error"]["issues"][0]["path"] == ["fields", "phase"]
    # list with a filter, expansion, aggregation and search find it
    listed_records = await client.get(
        "/v1/modules/projects/records",
        headers=ws.headers,
        params={"filter[phase]": "running", "expand": "client"},
    )
    assert listed_records.status_code == 200, listed_records.text
    (row,) = listed_records.json()["records"]
    assert row["expanded"]["client"]["displayName"] == "Initech"
    totals = await client.get(
        "/v1/modules/projects/aggregate",
        headers=ws.headers,
        params={"groupBy": "phase", "metrics": "count,sum:budget"},
    )
    assert totals.status_code == 200, totals.text
    (group,) = totals.json()["groups"]
    assert group["key"] == "running" and group["count"] == 1
    found = await client.post("/v1/search", headers=ws.headers, json={"query": "Rocket"})
    assert [r["sourceId"] for r in found.json()["results"]] == [record["recordId"]]
    # the activity feed has the creation, before the record's
    kinds = [kind for kind, _ in await feed(client, ws)]
    assert kinds.index("record_created") < kinds.index("module_created")
    created = next(data for kind, data in await feed(client, ws) if kind == "module_created")
    assert created["slug"] == "projects" and len(created["fields"]) == 5


async def test_module_refusals_name_the_problem_and_write_nothing(
    client: httpx.AsyncClient, ws: Workspace
) -> None:
    async def refused(body: dict[str, Any], status: int) -> dict[str, Any]:
        resp = await client.post("/api/modules", headers=ws.headers, json=body)
        assert resp.status_code == status, resp.text
        envelope(resp, status)
        error: dict[str, Any] = resp.json()["error"]
        return error

    def with_field(**change: Any) -> dict[str, Any]:
        body = copy.deepcopy(PROJECTS)
        body["fields"].append({"label": "Extra", "dataType": "text", **change})
        return body

    error = await refused({**PROJECTS, "slug": "Big Projects"}, 400)
    assert error["issues"][0]["path"] == ["slug"]
    error = await refused({**PROJECTS, "slug": "contacts"}, 409)
    assert "built-in template" in error["message"]
    error = await refused(with_field(slug="title"), 400)
    assert error["issues"][0]["path"] == ["fields", 5, "slug"]
    assert "fields[0]" in error["issues"][0]["message"]
    error = await refused(with_field(dataType="colour"), 400)
    assert error["issues"][0]["path"][:3] == ["fields", 5, "dataType"]
    error = await refused(with_field(dataType="select", config={"options": "a,b"}), 400)
    assert error["issues"][0]["path"][:3] == ["fields", 5, "config"]
    error = await refused(
        with_field(dataType="formula", config={"formula": {"expression": "{nope} + 1"}}), 400
    )
    assert error["issues"][0]["path"][:3] == ["fields", 5, "config"]
    error = await refused(
        with_field(dataType="reference", config={"reference": {"allowedModuleSlugs": ["planets"]}}),
        400,
    )
    assert error["issues"][0]["path"] == ["fields", 5, "config", "reference", "allowedModuleSlugs"]
    assert "planets" in error["issues"][0]["message"]
    too_many = {**PROJECTS, "fields": [{"label": f"F{i}", "dataType": "text"} for i in range(201)]}
    error = await refused(too_many, 400)
    assert error["issues"][0]["path"] == ["fields"]
    # nothing of any of them was written: the slug is free, and the good body is taken
    assert (await client.get("/v1/modules/projects", headers=ws.headers)).status_code == 404
    await create_projects(client, ws)
    error = await refused(PROJECTS, 409)
    assert error["data"]["slug"] == "projects" and error["data"]["archived"] is False


async def test_the_module_limit_is_a_409(
    client: httpx.AsyncClient, ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    held = len((await client.get("/api/modules", headers=ws.headers)).json()["modules"])
    monkeypatch.setattr(module_ops, "MAX_MODULES", held + 1)
    await create_projects(client, ws, {"slug": "one", "name": "One"})
    resp = await client.post("/api/modules", headers=ws.headers, json={"slug": "two", "name": "2"})
    envelope(resp, 409)
    assert resp.json()["error"]["data"] == {"limit": held + 1}


async def test_a_field_is_archived_with_its_values_kept_and_brought_back(
    client: httpx.AsyncClient, ws: Workspace
) -> None:
    made = await create_projects(client, ws)
    mid = made["module"]["id"]
    phase = next(f for f in made["fields"] if f["slug"] == "phase")
    record = await new_project(client, ws, "Rocket", phase="running", budget=5)
    url = f"/api/modules/{mid}/fields/{phase['fieldId']}"

    resp = await client.patch(url, headers=ws.headers, json={"archived": True})
    assert resp.status_code == 200, resp.text
    assert resp.json()["field"]["archived"] is True
    assert "phase" not in await field_slugs(client, ws, "projects")
    one = await client.get(f"/v1/modules/projects/records/{record['recordId']}", headers=ws.headers)
    assert "phase" not in one.json()["record"]["fields"]
    assert one.json()["record"]["fields"]["budget"] == 5
    page = await client.get("/v1/modules/projects/records", headers=ws.headers)
    assert "phase" not in page.json()["records"][0]["fields"]
    # writes naming it are refused, naming it; filters and aggregations do not know it
    write = await client.patch(
        f"/v1/modules/projects/records/{record['recordId']}",
        headers=ws.headers,
        json={"fields": {"phase": "done"}},
    )
    envelope(write, 400)
    (issue,) = write.json()["error"]["issues"]
    assert issue["path"] == ["fields", "phase"] and "archived" in issue["message"]
    filtered = await client.get(
        "/v1/modules/projects/records", headers=ws.headers, params={"filter[phase]": "running"}
    )
    assert filtered.status_code == 400
    # an update of another field keeps the archived value and does not show it
    other = await client.patch(
        f"/v1/modules/projects/records/{record['recordId']}",
        headers=ws.headers,
        json={"fields": {"budget": 7}},
    )
    assert other.status_code == 200, other.text
    assert "phase" not in other.json()["record"]["fields"]
    # its slug stays taken
    again = await client.post(
        f"/api/modules/{mid}/fields",
        headers=ws.headers,
        json={"label": "Phase", "dataType": "text"},
    )
    envelope(again, 409)
    assert "archived" in again.json()["error"]["message"]
    # an archived field's config does not change
    config = await client.patch(url, headers=ws.headers, json={"config": {"options": ["x"]}})
    envelope(config, 409)

    back = await client.patch(url, headers=ws.headers, json={"archived": False})
    assert back.status_code == 200 and back.json()["field"]["archived"] is False
    assert "phase" in await field_slugs(client, ws, "projects")
    one = await client.get(f"/v1/modules/projects/records/{record['recordId']}", headers=ws.headers)
    assert one.json()["record"]["fields"]["phase"] == "running"
    assert one.json()["record"]["fields"]["budget"] == 7
    kinds = [kind for kind, data in await feed(client, ws) if data.get("slug") == "phase"]
    assert kinds[:2] == ["field_unarchived", "field_archived"]


async def test_a_field_others_compute_from_is_not_archived(
    client: httpx.AsyncClient, ws: Workspace
) -> None:
    made = await create_projects(client, ws)
    budget = next(f for f in made["fields"] if f["slug"] == "budget")
    resp = await client.patch(
        f"/api/modules/{made['module']['id']}/fields/{budget['fieldId']}",
        headers=ws.headers,
        json={"archived": True},
    )
    envelope(resp, 409)
    assert resp.json()["error"]["data"] == {"dependentFields": ["projects.double"]}
    assert "budget" in await field_slugs(client, ws, "projects")


async def test_a_rename_changes_label_and_name_and_keeps_the_slug(
    client: httpx.AsyncClient, ws: Workspace
) -> None:
    made = await create_projects(client, ws)
    record = await new_project(client, ws, "Rocket", budget=3)
    budget = next(f for f in made["fields"] if f["slug"] == "budget")
    resp = await client.patch(
        f"/api/modules/{made['module']['id']}/fields/{budget['fieldId']}",
        headers=ws.headers,
        json={"label": "Cost", "name": "Cost"},
    )
    assert resp.status_code == 200, resp.text
    field = resp.json()["field"]
    assert (field["label"], field["name"], field["slug"]) == ("Cost", "Cost", "budget")
    one = await client.get(f"/v1/modules/projects/records/{record['recordId']}", headers=ws.headers)
    assert one.json()["record"]["fields"]["budget"] == 3
    bad = await client.patch(
        f"/api/modules/{made['module']['id']}/fields/{budget['fieldId']}",
        headers=ws.headers,
        json={"name": "not pascal"},
    )
    envelope(bad, 400)


async def test_a_module_is_archived_and_brought_back(
    client: httpx.AsyncClient, ws: Workspace
) -> None:
    made = await create_projects(client, ws)
    mid = made["module"]["id"]
    record = await new_project(client, ws, "Zeppelin", phase="planned", budget=9)
    gone = await client.delete(f"/api/modules/{mid}", headers=ws.headers)
    assert gone.status_code == 204 and gone.content == b""

    listed = (await client.get("/v1/modules", headers=ws.headers)).json()["modules"]
    assert "projects" not in {m["slug"] for m in listed}
    for path in (
        "/v1/modules/projects",
        "/v1/modules/projects/records",
        f"/v1/modules/projects/records/{record['recordId']}",
        "/v1/modules/projects/aggregate?groupBy=phase",
    ):
        envelope(await client.get(path, headers=ws.headers), 404)
    found = await client.post("/v1/search", headers=ws.headers, json={"query": "Zeppelin"})
    assert found.json()["results"] == []
    # the workspace feed keeps the module's entries, not its records'
    entries = (await client.get("/v1/activity?limit=50", headers=ws.headers)).json()
    assert entries["activities"][0]["activityType"] == "module_archived"
    assert record["recordId"] not in {a["recordId"] for a in entries["activities"]}
    polled = await client.get("/v1/activity?afterSeq=0&limit=50", headers=ws.headers)
    seqs = [a["seq"] for a in polled.json()["activities"]]
    assert polled.json()["nextAfterSeq"] == entries["activities"][0]["seq"] == seqs[-1]
    everything = (await client.get("/api/modules", headers=ws.headers)).json()["modules"]
    assert {
        k: v
        for m in everything
        if m["id"] == mid
        for k, v in m.items()
        if k in ("slug", "isActive")
    } == {"slug": "projects", "isActive": False}
    taken = await client.post("/api/modules", headers=ws.headers, json=PROJECTS)
    envelope(taken, 409)
    assert taken.json()["error"]["data"]["archived"] is True
    # archiving again changes nothing; renaming works while archived
    assert (await client.delete(f"/api/modules/{mid}", headers=ws.headers)).status_code == 204

    back = await client.patch(
        f"/api/modules/{mid}", headers=ws.headers, json={"archived": False, "name": "Work"}
    )
    assert back.status_code == 200, back.text
    assert back.json()["module"]["isActive"] is True and back.json()["module"]["name"] == "Work"
    one = await client.get(f"/v1/modules/projects/records/{record['recordId']}", headers=ws.headers)
    assert one.status_code == 200 and one.json()["record"]["fields"]["double"] == 18
    kinds = [kind for kind, _ in await feed(client, ws)][:4]
    assert kinds[:3] == ["module_unarchived", "module_updated", "module_archived"]


async def test_a_module_others_link_to_is_not_archived(
    client: httpx.AsyncClient, ws: Workspace
) -> None:
    made = await create_projects(client, ws)
    companies = (await client.get("/v1/modules/companies", headers=ws.headers)).json()
    resp = await client.delete(f"/api/modules/{companies['module']['id']}", headers=ws.headers)
    envelope(resp, 409)
    assert "projects.client" in resp.json()["error"]["data"]["referencingFields"]
    # a record of an archived module cannot be linked to from elsewhere
    tasks = await client.post(
        "/api/modules",
        headers=ws.headers,
        json={
            "slug": "milestones",
            "name": "Milestones",
            "fields": [
                {
                    "label": "Any",
                    "dataType": "reference",
                    "config": {"reference": {"allowedModuleSlugs": []}},
                }
            ],
        },
    )
    assert tasks.status_code == 201, tasks.text
    record = await new_project(client, ws, "Hidden")
    assert (
        await client.delete(f"/api/modules/{made['module']['id']}", headers=ws.headers)
    ).status_code == 204
    link = await client.post(
        "/v1/modules/milestones/records",
        headers=ws.headers,
        json={"displayName": "M1", "fields": {"any": record["recordId"]}},
    )
    envelope(link, 400)
    assert "does not exist" in link.json()["error"]["issues"][0]["message"]


async def test_an_archived_vendor_field_is_a_customisation_reset_undoes(
    client: httpx.AsyncClient, ws: Workspace
) -> None:
    deals = (await client.get("/v1/modules/deals", headers=ws.headers)).json()
    lost = next(f for f in deals["fields"] if f["slug"] == "lost-reason")
    mid = deals["module"]["id"]
    resp = await client.patch(
        f"/api/modules/{mid}/fields/{lost['fieldId']}", headers=ws.headers, json={"archived": True}
    )
    assert resp.status_code == 200, resp.text
    catalog = (await client.get("/api/templates/catalog", headers=ws.headers)).json()
    entry = next(e for e in catalog["templates"] if e["templateSlug"] == "deals")
    assert entry["hasCustomizations"] is True
    reset = await client.post(f"/api/modules/{mid}/reset-to-template", headers=ws.headers)
    assert reset.status_code == 200, reset.text
    assert "lost-reason" in await field_slugs(client, ws, "deals")
    catalog = (await client.get("/api/templates/catalog", headers=ws.headers)).json()
    entry = next(e for e in catalog["templates"] if e["templateSlug"] == "deals")
    assert entry["hasCustomizations"] is False


async def test_members_are_refused_and_workspaces_kept_apart(
    client: httpx.AsyncClient, runtime: Runtime, ws: Workspace, other_ws: Workspace
) -> None:
    made = await create_projects(client, ws)
    mid = made["module"]["id"]
    fid = made["fields"][0]["fieldId"]
    member = await add_user(runtime, ws, "member")
    calls = [
        ("GET", "/api/modules", None),
        ("POST", "/api/modules", {**PROJECTS, "slug": "other"}),
        ("PATCH", f"/api/modules/{mid}", {"archived": True}),
        ("DELETE", f"/api/modules/{mid}", None),
        ("POST", f"/api/modules/{mid}/fields", {"label": "X", "dataType": "text"}),
        ("PATCH", f"/api/modules/{mid}/fields/{fid}", {"archived": True}),
    ]
    for method, path, body in calls:
        resp = await client.request(method, path, headers=member.headers, json=body)
        envelope(resp, 403)
        # another workspace's owner does not find this one's module
        if path != "/api/modules":
            resp = await client.request(method, path, headers=other_ws.headers, json=body)
            assert resp.status_code == 404, (method, path, resp.text)
    assert "projects" in {
        m["slug"] for m in (await client.get("/v1/modules", headers=ws.headers)).json()["modules"]
    }
    theirs = (await client.get("/api/modules", headers=other_ws.headers)).json()["modules"]
    assert "projects" not in {m["slug"] for m in theirs}


async def test_a_module_made_through_one_server_is_used_through_another(
    client: httpx.AsyncClient, runtime: Runtime, ws: Workspace
) -> None:
    """Two runtimes over one database (two servers, or two workers), the second serving on a
    loopback port from a task of its own (its store lives in its own asyncio loop on
    PostgreSQL): it has already answered this key (its credential and schema snapshot are
    remembered) when the first makes the module, and uses it at once."""

    async with trio.open_nursery() as nursery:
        other: httpx.AsyncClient = await nursery.start(second_server, runtime)
        assert (await other.get("/v1/modules/projects", headers=ws.headers)).status_code == 404
        await create_projects(client, ws)
        resp = await other.get("/v1/modules/projects", headers=ws.headers)
        assert resp.status_code == 200, resp.text
        made = await other.post(
            "/v1/modules/projects/records",
            headers=ws.headers,
            json={"displayName": "Via two", "fields": {"title": "Via two", "budget": 4}},
        )
        assert made.status_code == 201, made.text
        assert made.json()["record"]["fields"]["double"] == 8
        page = await client.get("/v1/modules/projects/records", headers=ws.headers)
        assert [r["displayName"] for r in page.json()["records"]] == ["Via two"]
        nursery.cancel_scope.cancel()


async def test_an_archived_fields_words_leave_search_and_come_back(
    client: httpx.AsyncClient, ws: Workspace
) -> None:
    made = await create_projects(client, ws)
    mid = made["module"]["id"]
    notes = await client.post(
        f"/api/modules/{mid}/fields",
        headers=ws.headers,
        json={"label": "Notes", "dataType": "textarea"},
    )
    assert notes.status_code == 201, notes.text
    record = await new_project(client, ws, "Rocket", notes="quasar telemetry")

    async def search() -> list[dict[str, Any]]:
        resp = await client.post("/v1/search", headers=ws.headers, json={"query": "quasar"})
        assert resp.status_code == 200, resp.text
        results: list[dict[str, Any]] = resp.json()["results"]
        return results

    def by_words(results: list[dict[str, Any]]) -> list[str]:
        """What the query's words find (a vector made from the old text may still rank the
        record by meaning until it is embedded again, without a snippet)."""
        return [r["sourceId"] for r in results if r["metadata"]["keywordScore"] is not None]

    assert by_words(await search()) == [record["recordId"]]
    url = f"/api/modules/{mid}/fields/{notes.json()['fieldId']}"
    assert (await client.patch(url, headers=ws.headers, json={"archived": True})).is_success
    results = await search()
    assert by_words(results) == []
    assert all("quasar" not in (r["snippet"] or "") for r in results)
    assert (await client.patch(url, headers=ws.headers, json={"archived": False})).is_success
    assert by_words(await search()) == [record["recordId"]]


async def test_an_archived_field_can_be_deleted_and_its_slug_used_again(
    client: httpx.AsyncClient, ws: Workspace
) -> None:
    made = await create_projects(client, ws)
    mid = made["module"]["id"]
    client_field = next(f for f in made["fields"] if f["slug"] == "client")
    url = f"/api/modules/{mid}/fields/{client_field['fieldId']}"
    assert (await client.patch(url, headers=ws.headers, json={"archived": True})).is_success
    refs = await client.get("/v1/modules/projects/references", headers=ws.headers)
    assert refs.json()["references"] == []  # hidden with its source field
    gone = await client.delete(url, headers=ws.headers)
    assert gone.status_code == 204, gone.text
    again = await client.post(
        f"/api/modules/{mid}/fields",
        headers=ws.headers,
        json={
            "label": "Client",
            "dataType": "reference",
            "config": {"reference": {"allowedModuleSlugs": ["companies"]}},
        },
    )
    assert again.status_code == 201, again.text
    refs = await client.get("/v1/modules/projects/references", headers=ws.headers)
    assert [r["slug"] for r in refs.json()["references"]] == ["client"]


async def test_an_archived_modules_records_leave_the_event_stream(
    runtime: Runtime, ws: Workspace
) -> None:
    async with served(runtime) as http:
        start = (await http.get("/v1/activity?limit=1", headers=ws.headers)).json()
        after = start["activities"][0]["seq"]
        made = await create_projects(http, ws)
        await new_project(http, ws, "Secret")
        gone = await http.delete(f"/api/modules/{made['module']['id']}", headers=ws.headers)
        assert gone.status_code == 204
        async with stream(http, ws, params={"afterSeq": after}) as events:
            seen = await take(events, 2)
        assert [name for name, _, _ in seen] == ["module_created", "module_archived"]
        assert seen[1][1] == seen[0][1] + 2  # the record's entry between them stays unsent


async def test_an_archived_fields_values_leave_the_event_stream(
    runtime: Runtime, ws: Workspace
) -> None:
    async with served(runtime) as http:
        made = await create_projects(http, ws)
        record = await new_project(http, ws, "Rocket", phase="running", budget=2)
        phase = next(f for f in made["fields"] if f["slug"] == "phase")
        url = f"/api/modules/{made['module']['id']}/fields/{phase['fieldId']}"
        assert (await http.patch(url, headers=ws.headers, json={"archived": True})).is_success
        feed = (await http.get("/v1/activity?limit=50", headers=ws.headers)).json()
        created = next(a for a in feed["activities"] if a["recordId"] == record["recordId"])
        async with stream(http, ws, params={"afterSeq": created["seq"] - 1}) as events:
            (seen, *_) = await take(events, 1)
        assert seen[0] == "record_created"
        assert "phase" not in seen[2]["values"] and seen[2]["values"]["budget"] == 2


async def test_the_picker_leaves_an_archived_fields_values_out(
    client: httpx.AsyncClient, ws: Workspace
) -> None:
    await create_projects(client, ws)
    companies = (await client.get("/v1/modules/companies", headers=ws.headers)).json()
    website = next(f for f in companies["fields"] if f["slug"] == "website")
    made = await client.post(
        "/v1/modules/companies/records",
        headers=ws.headers,
        json={
            "displayName": "Initech",
            "fields": {"name": "Initech", "website": "https://initech.test"},
        },
    )
    assert made.status_code == 201, made.text
    url = f"/api/modules/{companies['module']['id']}/fields/{website['fieldId']}"
    assert (await client.patch(url, headers=ws.headers, json={"archived": True})).is_success
    picked = await client.get("/v1/modules/projects/references/client/picker", headers=ws.headers)
    assert picked.status_code == 200, picked.text
    (item,) = picked.json()["items"]
    assert item["fields"]["name"] == "Initech" and "website" not in item["fields"]


async def test_a_module_comes_back_only_after_the_modules_it_links_to(
    client: httpx.AsyncClient, ws: Workspace
) -> None:
    clients = await create_projects(
        client,
        ws,
        {"slug": "clients", "name": "Clients", "fields": [{"label": "Name", "dataType": "text"}]},
    )
    jobs = await create_projects(
        client,
        ws,
        {
            "slug": "jobs",
            "name": "Jobs",
            "fields": [
                {
                    "label": "Client",
                    "dataType": "reference",
                    "config": {"reference": {"allowedModuleSlugs": ["clients"]}},
                }
            ],
        },
    )
    clients_url = f"/api/modules/{clients['module']['id']}"
    jobs_url = f"/api/modules/{jobs['module']['id']}"
    envelope(await client.delete(clients_url, headers=ws.headers), 409)
    assert (await client.delete(jobs_url, headers=ws.headers)).status_code == 204
    assert (await client.delete(clients_url, headers=ws.headers)).status_code == 204
    back = await client.patch(jobs_url, headers=ws.headers, json={"archived": False})
    assert envelope(back, 409)["data"] == {"archivedTargets": ["jobs.client -> clients"]}
    for url in (clients_url, jobs_url):
        resp = await client.patch(url, headers=ws.headers, json={"archived": False})
        assert resp.status_code == 200, resp.text


async def test_reset_skips_a_template_field_an_archived_user_field_holds_the_slug_of(
    client: httpx.AsyncClient, ws: Workspace
) -> None:
    deals = (await client.get("/v1/modules/deals", headers=ws.headers)).json()
    mid = deals["module"]["id"]
    lost = next(f for f in deals["fields"] if f["slug"] == "lost-reason")
    gone = await client.delete(f"/api/modules/{mid}/fields/{lost['fieldId']}", headers=ws.headers)
    assert gone.status_code == 204
    mine = await client.post(
        f"/api/modules/{mid}/fields",
        headers=ws.headers,
        json={"label": "Lost reason", "slug": "lost-reason", "dataType": "text"},
    )
    assert mine.status_code == 201, mine.text
    url = f"/api/modules/{mid}/fields/{mine.json()['fieldId']}"
    assert (await client.patch(url, headers=ws.headers, json={"archived": True})).is_success
    reset = await client.post(f"/api/modules/{mid}/reset-to-template", headers=ws.headers)
    assert reset.status_code == 200, reset.text
    assert "field:lost-reason" in reset.json()["skippedSlugs"]
    assert "lost-reason" not in await field_slugs(client, ws, "deals")  # still archived
