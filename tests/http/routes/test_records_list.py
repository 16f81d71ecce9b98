"""GET /modules/{slug}/records: pages, search, sorting, filters, advancedFilter, fields."""

from __future__ import annotations

import json
from typing import Any

import httpx

from fieldhouse.runtime import Runtime
from tests.conftest import Workspace, add_user
from tests.http.routes.test_template_admin import fields_of, module_id
from tests.http.test_auth import assert_envelope
from tests.http.test_records_crud import ALWAYS, create, make_label, make_type, records_url

URL = records_url("deals")

#: name -> extra fields of the seeded deals (created in this order).
DEALS: dict[str, dict[str, Any]] = {
    "Alpha": {
        "stage": "won",
        "amount": {"amount": 100},
        "probability": 90,
        "close-date": "2024-01-15",
    },
    "Beta": {
        "stage": "lost",
        "amount": {"amount": 250},
        "probability": 10,
        "close-date": "2024-03-01",
        "lost-reason": "Price too high",
    },
    "Gamma": {
        "stage": "lead",
        "amount": {"amount": 50},
        "probability": 40,
        "close-date": "2024-06-30",
    },
    "Delta": {"stage": "proposal"},
}


async def seed(client: httpx.AsyncClient, ws: Workspace) -> dict[str, str]:
    """The four deals above; name -> record id."""
    ids = {}
    for name, fields in DEALS.items():
        made = await create(client, ws, "deals", {"name": name, **fields}, name=name)
        ids[name] = made["recordId"]
    return ids


async def names(client: httpx.AsyncClient, ws: Workspace, **params: Any) -> list[str]:
    resp = await client.get(URL, headers=ws.headers, params=params)
    assert resp.status_code == 200, resp.text
    return [r["displayName"] for r in resp.json()["records"]]


async def adv(client: httpx.AsyncClient, ws: Workspace, root: dict[str, Any]) -> set[str]:
    return set(await names(client, ws, advancedFilter=json.dumps({"root": root})))


def cond(field: str, operator: str, **operand: Any) -> dict[str, Any]:
    return {"id": f"{field}-{operator}", "fieldSlug": field, "operator": operator, **operand}


def group(conjunction: str, *conditions: dict[str, Any]) -> dict[str, Any]:
    return {"id": "g", "conjunction": conjunction, "conditions": list(conditions)}


async def bad_query(client: httpx.AsyncClient, ws: Workspace, **params: Any) -> list[Any]:
    resp = await client.get(URL, headers=ws.headers, params=params)
    error = assert_envelope(resp, 400, "validation_error")
    return [i["path"] for i in error["issues"]]  # type: ignore[union-attr]


async def test_pages_are_stable_and_newest_first(client: httpx.AsyncClient, ws: Workspace) -> None:
    made = [(await create(client, ws, "tasks", name=f"T{i}"))["recordId"] for i in range(7)]
    url = records_url("tasks")
    seen: list[str] = []
    for page, size in ((1, 3), (2, 3), (3, 1)):
        body = (
            await client.get(url, headers=ws.headers, params={"page": page, "pageSize": 3})
        ).json()
        assert (body["page"], body["pageSize"], body["total"]) == (page, 3, 7)
        assert len(body["records"]) == size
        seen += [r["recordId"] for r in body["records"]]
    assert seen == made[::-1]
    default = (await client.get(url, headers=ws.headers)).json()
    assert (default["page"], default["pageSize"], default["total"]) == (1, 25, 7)
    assert [r["recordId"] for r in default["records"]] == seen
    past = (await client.get(url, headers=ws.headers, params={"page": 9})).json()
    assert past["records"] == [] and past["total"] == 7
    edges = await client.get(url, headers=ws.headers, params={"pageSize": 100})
    assert edges.status_code == 200


async def test_page_parameter_bounds(client: httpx.AsyncClient, ws: Workspace) -> None:
    assert await bad_query(client, ws, page=0) == [["page"]]
    assert await bad_query(client, ws, page="two") == [["page"]]
    assert await bad_query(client, ws, pageSize=0) == [["pageSize"]]
    assert await bad_query(client, ws, pageSize=101) == [["pageSize"]]
    assert await bad_query(client, ws, page=0, pageSize=101) == [["page"], ["pageSize"]]


async def test_search(client: httpx.AsyncClient, ws: Workspace) -> None:
    await seed(client, ws)
    assert await names(client, ws, search="ALP") == ["Alpha"]
    assert await names(client, ws, search="price too") == ["Beta"]  # a field value
    assert await names(client, ws, search="nothing like it") == []
    assert set(await names(client, ws, search="a")) == set(DEALS)


async def test_search_ignores_field_keys(client: httpx.AsyncClient, ws: Workspace) -> None:
    await seed(client, ws)
    for word in ("amount", "stage", "close-date", "currency"):
        assert await names(client, ws, search=word) == [], word
    assert set(await names(client, ws, search="usd")) == {"Alpha", "Beta", "Gamma"}


async def test_sorting(client: httpx.AsyncClient, ws: Workspace) -> None:
    ids = await seed(client, ws)
    assert await names(client, ws, sortField="amount") == ["Gamma", "Alpha", "Beta", "Delta"]
    desc = await names(client, ws, sortField="amount", sortDirection="desc")
    assert desc == ["Beta", "Alpha", "Gamma", "Delta"]  # empty values last both ways
    assert await names(client, ws, sortField="displayName") == ["Alpha", "Beta", "Delta", "Gamma"]
    top = await names(client, ws, sortField="probability", sortDirection="desc")
    assert top[0] == "Alpha"
    assert await names(client, ws, sortField="created_at") == list(DEALS)
    newest = await names(client, ws, sortField="created_at", sortDirection="desc")
    assert newest == list(DEALS)[::-1]
    patch = {"fields": {"probability": 5}}
    await client.patch(records_url("deals", ids["Alpha"]), headers=ws.headers, json=patch)
    touched = await names(client, ws, sortField="updated_at", sortDirection="desc")
    assert touched[0] == "Alpha"
    assert await names(client, ws, sortField="updated_at") == ["Beta", "Gamma", "Delta", "Alpha"]
    assert await bad_query(client, ws, sortField="nope") == [["sortField"]]
    assert await bad_query(client, ws, sortField="amount", sortDirection="up") == [
        ["sortDirection"]
    ]


async def test_simple_filters(client: httpx.AsyncClient, ws: Workspace) -> None:
    await seed(client, ws)
    assert set(await names(client, ws, **{"filter[stage]": "won,lost"})) == {"Alpha", "Beta"}
    both = {"filter[stage]": "won,lost", "filter[probability]": "10"}
    assert await names(client, ws, **both) == ["Beta"]
    assert await names(client, ws, **{"filter[stage]": "Won"}) == []  # exact on the value
    assert await bad_query(client, ws, **{"filter[nope]": "x"}) == [["filter", "nope"]]


async def test_every_operator(client: httpx.AsyncClient, ws: Workspace) -> None:
    await seed(client, ws)
    expected: list[tuple[dict[str, Any], set[str]]] = [
        (cond("stage", "eq", value="won"), {"Alpha"}),
        (cond("stage", "neq", value="won"), {"Beta", "Gamma", "Delta"}),
        (cond("amount", "gt", value=50), {"Alpha", "Beta"}),
        (cond("amount", "gte", value=100), {"Alpha", "Beta"}),
        (cond("amount", "lt", value=100), {"Gamma"}),
        (cond("amount", "lte", value=100), {"Alpha", "Gamma"}),
        (cond("name", "contains", value="LPH"), {"Alpha"}),
        (cond("name", "notContains", value="eta"), {"Alpha", "Gamma", "Delta"}),
        (cond("name", "startsWith", value="ga"), {"Gamma"}),
        (cond("name", "endsWith", value="TA"), {"Beta", "Delta"}),
        (cond("stage", "in", values=["won", "lost"]), {"Alpha", "Beta"}),
        (cond("stage", "notIn", values=["won", "lost"]), {"Gamma", "Delta"}),
        (cond("amount", "isNull"), {"Delta"}),
        (cond("amount", "isNotNull"), {"Alpha", "Beta", "Gamma"}),
        (cond("amount", "between", values=[50, 100]), {"Alpha", "Gamma"}),
        (cond("close-date", "before", value="2024-03-01"), {"Alpha"}),
        (cond("close-date", "after", value="2024-03-01"), {"Gamma"}),
        (cond("created_at", "after", value="2000-01-01"), set(DEALS)),
    ]
    for condition, want in expected:
        assert await adv(client, ws, group("AND", condition)) == want, condition


async def test_nested_groups(client: httpx.AsyncClient, ws: Workspace) -> None:
    await seed(client, ws)
    tree = group(
        "OR",
        cond("stage", "eq", value="won"),
        group(
            "AND", cond("amount", "gt", value=100), cond("lost-reason", "contains", value="price")
        ),
    )
    assert await adv(client, ws, tree) == {"Alpha", "Beta"}
    tree = group("AND", cond("amount", "isNotNull"), group("OR", cond("stage", "eq", value="lead")))
    assert await adv(client, ws, tree) == {"Gamma"}
    assert await adv(client, ws, group("AND")) == set(DEALS)
    combined = {
        "advancedFilter": json.dumps({"root": group("AND", cond("amount", "gt", value=0))}),
        "filter[stage]": "won,lead",
        "search": "a",
    }
    assert set(await names(client, ws, **combined)) == {"Alpha", "Gamma"}


async def test_invalid_advanced_filters(client: httpx.AsyncClient, ws: Workspace) -> None:
    resp = await client.get(URL, headers=ws.headers, params={"advancedFilter": "{root:"})
    error = assert_envelope(resp, 400, "validation_error")
    assert error["message"] == "advancedFilter must be valid JSON"
    assert error["issues"] == [
        {
            "code": "custom",
            "path": ["advancedFilter"],
            "message": "advancedFilter must be valid JSON",
            "validation": "json",
        }
    ]
    root = ["advancedFilter", "root"]
    first = [*root, "conditions", 0]
    for tree, path in (
        (group("AND", cond("stage", "like", value="x")), [*first, "operator"]),
        (group("AND", cond("nope", "eq", value="x")), [*first, "fieldSlug"]),
        (group("AND", cond("amount", "between", values=[1])), [*first, "values"]),
        (group("AND", cond("amount", "gt", value="lots")), [*first, "value"]),
        (group("AND", cond("stage", "eq")), [*first, "value"]),
        (group("AND", cond("stage", "gt", value="a")), [*first, "operator"]),
        (group("AND", cond("stage", "in", value="won")), [*first, "values"]),
        ({"id": "g", "conjunction": "XOR", "conditions": []}, [*root, "conjunction"]),
    ):
        params = {"advancedFilter": json.dumps({"root": tree})}
        assert await bad_query(client, ws, **params) == [path], tree
    assert await bad_query(client, ws, advancedFilter="[]") == [["advancedFilter"]]
    assert await bad_query(client, ws, advancedFilter="{}") == [root]


async def test_label_and_type_filters(client: httpx.AsyncClient, ws: Workspace) -> None:
    ids = await seed(client, ws)
    vip, partner = await make_label(client, ws, "VIP"), await make_type(client, ws, "Partner")
    bulk = records_url("deals") + "/bulk"
    body = {"recordIds": [ids["Alpha"], ids["Beta"]], "addLabelIds": [vip]}
    assert (await client.post(bulk, headers=ws.headers, json=body)).status_code == 200
    body = {"recordIds": [ids["Beta"], ids["Gamma"]], "addTypeIds": [partner]}
    assert (await client.post(bulk, headers=ws.headers, json=body)).status_code == 200
    assert set(await names(client, ws, labelIds=vip)) == {"Alpha", "Beta"}
    assert set(await names(client, ws, typeIds=partner)) == {"Beta", "Gamma"}
    assert await names(client, ws, labelIds=vip, typeIds=partner) == ["Beta"]
    assert await bad_query(client, ws, labelIds="nope") == [["labelIds", 0]]


async def test_fields_trimming(client: httpx.AsyncClient, ws: Workspace) -> None:
    await seed(client, ws)
    resp = await client.get(URL, headers=ws.headers, params={"fields": "stage,amount"})
    records = resp.json()["records"]
    assert len(records) == 4
    for record in records:
        assert set(record) >= ALWAYS
        assert set(record["fields"]) <= {"stage", "amount"} and "stage" in record["fields"]
    assert await bad_query(client, ws, fields="stage,nope") == [["fields", 1]]


async def test_deleted_records_leave_the_list(client: httpx.AsyncClient, ws: Workspace) -> None:
    ids = await seed(client, ws)
    await client.delete(records_url("deals", ids["Alpha"]), headers=ws.headers)
    assert set(await names(client, ws)) == {"Beta", "Gamma", "Delta"}
    assert await names(client, ws, search="alpha") == []
    assert await names(client, ws, **{"filter[stage]": "won"}) == []


async def test_a_list_query_asked_again_follows_its_workspace_and_schema(
    client: httpx.AsyncClient, ws: Workspace, other_ws: Workspace
) -> None:
    """A list query is parsed and compiled once per module schema and workspace, then
    remembered: the same query string in another workspace, or after the field it filters
    on is deleted, is worked out again."""
    await seed(client, ws)
    await create(
        client, other_ws, "deals", {"name": "Theirs", "lost-reason": "Price too high"}, name="T"
    )
    query = {"filter[lost-reason]": "Price too high", "pageSize": "10"}
    assert await names(client, ws, **query) == ["Beta"]
    assert await names(client, ws, **query) == ["Beta"]
    assert await names(client, other_ws, **query) == ["T"]
    mid = await module_id(client, ws, "deals")
    lost = (await fields_of(client, ws, "deals"))["lost-reason"]
    gone = await client.delete(f"/api/modules/{mid}/fields/{lost['fieldId']}", headers=ws.headers)
    assert gone.status_code in (200, 204), gone.text
    resp = await client.get(URL, headers=ws.headers, params=query)
    error = assert_envelope(resp, 400, "validation_error")
    assert "Unknown field 'lost-reason'" in str(error)
    assert await names(client, other_ws, **query) == ["T"]


async def test_a_listed_record_reads_as_it_does_alone(
    runtime: Runtime, client: httpx.AsyncClient, ws: Workspace
) -> None:
    """A list page writes each record from its row, without reading it into the model first:
    what it writes is what GET of the one record writes, whole or with ``fields`` kept."""
    editor = await add_user(runtime, ws, "member")
    await seed(client, ws)
    label, kind = await make_label(client, ws, "Hot"), await make_type(client, ws, "Enterprise")
    made = await create(
        client,
        ws,
        "deals",
        {"name": "Omega", "stage": "won", "amount": {"amount": 12.5}, "probability": 55},
        name='Omega \u00e9\u4e2d \U0001f600 "quoted"',
    )
    bulk = records_url("deals") + "/bulk"
    body = {"recordIds": [made["recordId"]], "addLabelIds": [label], "addTypeIds": [kind]}
    tagged = await client.post(bulk, headers=editor.headers, json=body)
    assert tagged.status_code == 200, tagged.text
    for params in ({}, {"fields": "stage,amount"}):
        listed = await client.get(URL, headers=ws.headers, params={"pageSize": 100, **params})
        assert listed.status_code == 200, listed.text
        for record in listed.json()["records"]:
            alone = await client.get(f"{URL}/{record['recordId']}", headers=ws.headers)
            expected = alone.json()["record"]
            if params:
                expected["fields"] = {
                    k: v for k, v in expected["fields"].items() if k in ("stage", "amount")
                }
            assert record == expected
        omega = [r for r in listed.json()["records"] if r["recordId"] == made["recordId"]]
        assert omega[0]["labelIds"] == [label] and omega[0]["typeIds"] == [kind]
        assert omega[0]["updatedByUserId"] == editor.owner_id != omega[0]["createdByUserId"]
