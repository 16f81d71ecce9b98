"""POST /v1/search through HTTP: freshness, permissions, fallback, validation."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import httpx
import pytest

from fieldhouse.actors import admin_ops as ops
from fieldhouse.config import Settings
from fieldhouse.runtime import Runtime, open_runtime
from fieldhouse.search.service import SearchService
from tests.conftest import Workspace, add_user, make_workspace
from tests.http.test_auth import assert_envelope

REQUIRED = {"companies": "name", "tasks": "title"}
WAIT = 30.0  # a safety net for a stuck indexer, never slept


def search_of(runtime: Runtime) -> SearchService:
    assert runtime.search is not None
    return runtime.search


async def create(
    client: httpx.AsyncClient, ws: Workspace, module: str, name: str, **fields: Any
) -> str:
    fields.setdefault(REQUIRED[module], name)
    if module == "tasks":
        fields.setdefault("status", "todo")
    resp = await client.post(
        f"/v1/modules/{module}/records",
        json={"displayName": name, "fields": fields},
        headers=ws.headers,
    )
    assert resp.status_code == 201, resp.text
    return str(resp.json()["record"]["recordId"])


async def find(
    client: httpx.AsyncClient, ws: Workspace, query: str, **extra: Any
) -> dict[str, Any]:
    resp = await client.post("/v1/search", json={"query": query, **extra}, headers=ws.headers)
    assert resp.status_code == 200, resp.text
    body: dict[str, Any] = resp.json()
    return body


async def fresh(runtime: Runtime, ws: Workspace) -> None:
    assert await search_of(runtime).wait_fresh(ws.account_id, WAIT)


async def test_created_record_is_found(
    client: httpx.AsyncClient, runtime: Runtime, ws: Workspace
) -> None:
    rid = await create(
        client, ws, "companies", "Borealis Shipping", description="Cold-chain freight to Norway"
    )
    await create(client, ws, "companies", "Sunny Bakery", description="Bread and cakes")
    await fresh(runtime, ws)
    body = await find(client, ws, "freight")
    assert body["fallback"] is False
    assert body["total"] >= 1
    top = body["results"][0]
    assert top == {
        "sourceType": "module_record",
        "sourceId": rid,
        "title": "Borealis Shipping",
        "snippet": top["snippet"],
        "metadata": top["metadata"],
        "score": top["score"],
        "link": f"/v1/modules/companies/records/{rid}",
    }
    assert "Cold-chain <mark>freight</mark> to Norway" in top["snippet"]
    assert top["metadata"]["moduleSlug"] == "companies"
    assert 0 < top["score"] <= 1
    # the link is the record's own API path
    assert (await client.get(top["link"], headers=ws.headers)).status_code == 200


async def test_paraphrase_finds_by_meaning(
    client: httpx.AsyncClient, runtime: Runtime, ws: Workspace
) -> None:
    rid = await create(client, ws, "tasks", "Book flights and a hotel for the Berlin conference")
    await create(client, ws, "tasks", "Renew the office printer lease")
    await fresh(runtime, ws)
    body = await find(client, ws, "arrange travel for the trip to Germany")
    assert body["results"][0]["sourceId"] == rid
    assert body["results"][0]["metadata"]["keywordScore"] is None
    # nothing is similar enough at the strictest threshold
    assert (await find(client, ws, "arrange travel", minSimilarity=1))["results"] == []


async def test_update_and_delete_follow(
    client: httpx.AsyncClient, runtime: Runtime, ws: Workspace
) -> None:
    rid = await create(client, ws, "tasks", "Call the plumber")
    await fresh(runtime, ws)
    resp = await client.patch(
        f"/v1/modules/tasks/records/{rid}",
        json={"displayName": "Call the electrician", "fields": {"title": "Call the electrician"}},
        headers=ws.headers,
    )
    assert resp.status_code == 200
    await fresh(runtime, ws)
    assert [r["title"] for r in (await find(client, ws, "electrician"))["results"]] == [
        "Call the electrician"
    ]
    assert (await find(client, ws, "plumber", minSimilarity=0.9))["results"] == []
    resp = await client.delete(f"/v1/modules/tasks/records/{rid}", headers=ws.headers)
    assert resp.status_code == 204
    await fresh(runtime, ws)
    body = await find(client, ws, "electrician")
    assert body["results"] == [] and body["total"] == 0


async def test_labels_are_searchable(
    client: httpx.AsyncClient, runtime: Runtime, ws: Workspace
) -> None:
    rid = await create(client, ws, "tasks", "Quarterly review")
    label = await runtime.actors.ask(ops.CreateLabel("Escalated", by=ws.system))
    resp = await client.post(
        "/v1/modules/tasks/records/bulk",
        json={"recordIds": [rid], "addLabelIds": [label["id"]]},
        headers=ws.headers,
    )
    assert resp.status_code == 200, resp.text
    await fresh(runtime, ws)
    assert [r["sourceId"] for r in (await find(client, ws, "escalated"))["results"]][:1] == [rid]


async def test_results_follow_role_and_workspace(
    client: httpx.AsyncClient, runtime: Runtime, ws: Workspace
) -> None:
    await create(client, ws, "companies", "Zephyr Turbines", description="wind turbines")
    await create(client, ws, "tasks", "Inspect the Zephyr turbines")
    await runtime.actors.ask(
        ops.CreateRole("task-only", frozenset({"tasks"}), frozenset(), by=ws.system)
    )
    limited = await add_user(runtime, ws, "task-only")
    other = await make_workspace(runtime, "Globex")
    await create(client, other, "companies", "Zephyr Other", description="wind turbines")
    await fresh(runtime, ws)
    await fresh(runtime, other)
    mine = await find(client, ws, "zephyr turbines")
    assert {r["metadata"]["moduleSlug"] for r in mine["results"]} == {"companies", "tasks"}
    assert "Zephyr Other" not in [r["title"] for r in mine["results"]]
    only_tasks = await find(client, limited, "zephyr turbines")
    assert [r["metadata"]["moduleSlug"] for r in only_tasks["results"]] == ["tasks"]
    theirs = await find(client, other, "zephyr turbines")
    assert [r["title"] for r in theirs["results"]] == ["Zephyr Other"]


async def test_types_and_limit(client: httpx.AsyncClient, runtime: Runtime, ws: Workspace) -> None:
    for i in range(4):
        await create(client, ws, "tasks", f"Order toner cartridge {i}")
    await fresh(runtime, ws)
    assert len((await find(client, ws, "toner", limit=2))["results"]) == 2
    assert (await find(client, ws, "toner", limit=2))["total"] >= 4
    assert len((await find(client, ws, "toner", types=["module_record"]))["results"]) == 4
    body = await find(client, ws, "toner", types=["collab_doc"])
    assert body == {"results": [], "total": 0, "fallback": False}


async def test_found_by_its_words_when_its_write_is_acknowledged(
    client: httpx.AsyncClient, runtime: Runtime, ws: Workspace
) -> None:
    # no waiting: the record's words are written by its own transaction, its vector follows
    rid = await create(client, ws, "tasks", "Water the plants")
    body = await find(client, ws, "plants")
    assert [r["sourceId"] for r in body["results"]] == [rid]
    assert body["fallback"] is False
    assert body["coverage"]["vectorsWaiting"] in (0, 1)
    await fresh(runtime, ws)
    body = await find(client, ws, "plants")
    assert body["coverage"] == {"vectors": True, "vectorsWaiting": 0, "vectorShare": 1.0}
    assert body["results"][0]["metadata"]["similarity"] is not None


async def test_fallback_when_search_is_off(settings: Settings) -> None:
    async with open_runtime(replace(settings, search_enabled=False)) as rt:
        assert rt.search is None
        ws = await make_workspace(rt)
        transport = httpx.ASGITransport(app=rt.app)  # type: ignore[arg-type]
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
            await create(client, ws, "tasks", "Water the plants")
            body = await find(client, ws, "plants")
    assert body == {"results": [], "total": 0, "fallback": True}


async def test_scope_required(client: httpx.AsyncClient, runtime: Runtime, ws: Workspace) -> None:
    narrow = await add_user(runtime, ws, "member", ("workspace:read",))
    resp = await client.post("/v1/search", json={"query": "x"}, headers=narrow.headers)
    assert_envelope(resp, 403, "forbidden")
    resp = await client.post("/v1/search", json={"query": "x"})
    assert_envelope(resp, 401, "unauthorized")


@pytest.mark.parametrize(
    ("body", "path"),
    [
        ({"query": ""}, ["query"]),
        ({"query": "x" * 1001}, ["query"]),
        ({}, ["query"]),
        ({"query": "x", "limit": 51}, ["limit"]),
        ({"query": "x", "limit": 0}, ["limit"]),
        ({"query": "x", "types": ["module_record"] * 21}, ["types"]),
        ({"query": "x", "types": ["t" * 65]}, ["types", 0]),
        ({"query": "x", "minSimilarity": 1.5}, ["minSimilarity"]),
        ({"query": "x", "page": 2}, []),  # unrecognized_keys, on the object
    ],
)
async def test_invalid_bodies(
    client: httpx.AsyncClient, ws: Workspace, body: dict[str, Any], path: list[Any]
) -> None:
    resp = await client.post("/v1/search", json=body, headers=ws.headers)
    assert_envelope(resp, 400, "validation_error")
    issues = resp.json()["error"]["issues"]
    assert [issue["path"] for issue in issues] == [path]
    if "page" in body:
        assert issues[0]["code"] == "unrecognized_keys" and issues[0]["keys"] == ["page"]


async def test_list_search_param_reads_its_writes(
    client: httpx.AsyncClient, runtime: Runtime, ws: Workspace
) -> None:
    rid = await create(client, ws, "companies", "Borealis Shipping")
    await create(client, ws, "companies", "Sunny Bakery")
    url = "/v1/modules/companies/records"
    resp = await client.get(url, params={"search": "REALIS"}, headers=ws.headers)
    assert [r["recordId"] for r in resp.json()["records"]] == [rid]
