"""`serve --demo`'s data set: every module has records, the references between them resolve,
and the endpoints a newcomer tries first have something to show."""

from __future__ import annotations

from datetime import date
from typing import Any

import httpx

from fieldhouse.demo import COMPANIES, CONTACTS, DEALS, TASKS, create_demo
from fieldhouse.runtime import Runtime


async def test_the_demo_workspace_has_something_for_every_endpoint(
    runtime: Runtime, client: httpx.AsyncClient
) -> None:
    demo = await create_demo(runtime.actors, today=date(2026, 3, 2))
    assert dict(demo.counts) == {"companies": 8, "contacts": 24, "deals": 12, "tasks": 16}
    assert len(COMPANIES) + len(CONTACTS) + len(DEALS) + len(TASKS) == 60
    headers = {"Authorization": f"Bearer {demo.api_key}"}

    async def records(module: str, query: str = "") -> Any:
        url = f"/v1/modules/{module}/records?pageSize=100{query}"
        resp = await client.get(url, headers=headers)
        assert resp.status_code == 200, resp.text
        return resp.json()

    companies = {r["displayName"]: r for r in (await records("companies"))["records"]}
    deals = (await records("deals"))["records"]
    # each contact's company, each deal's company and contacts, each task's deal resolve
    for contact in (await records("contacts"))["records"]:
        assert contact["fields"]["company"]["displayName"] in companies
    for deal in deals:
        assert deal["fields"]["company"]["displayName"] in companies
        assert deal["fields"]["contacts"]
    for task in (await records("tasks"))["records"]:
        assert task["fields"]["related-deal"]["displayName"] in {d["displayName"] for d in deals}
    # rollups over the companies' deals, and a subsidiary
    assert sum(c["fields"]["deal-count"] for c in companies.values()) == 12
    assert companies["Fabrikam Software"]["fields"]["total-won-deal-value"] == 48000
    parent = companies["Fabrikam Cloud"]["fields"]["parent-company"]
    assert parent == companies["Fabrikam Software"]["recordId"]
    # a filter, a search and the agent answer with demo records
    won = await records("deals", "&filter[stage]=won")
    assert won["total"] == 3
    found = await client.post("/v1/search", headers=headers, json={"query": "migration"})
    assert "Contoso records migration" in {r["title"] for r in found.json()["results"]}
    asked = await client.post(
        "/v1/agents/messages",
        headers=headers,
        json={"message": "find deals over 10000 in stage won"},
    )
    assert asked.json()["response"].startswith("Found 3 deals record(s)")
    activity = await client.get("/v1/activity", headers=headers)
    assert activity.json()["activities"]
