"""References, linked ids and the picker as roles and workspaces limit them: a module the
role cannot see is 404 as if absent, a target it cannot see offers nothing to pick, and one
workspace's records never show through another's references. (The endpoints' main paths
are in test_records_links.py.)"""

from __future__ import annotations

import httpx

from fieldhouse.actors import admin_ops as ops
from fieldhouse.runtime import Runtime
from tests.conftest import Workspace, add_user
from tests.http.routes.test_records_links import refs_url
from tests.http.test_auth import assert_envelope
from tests.http.test_records_crud import create


async def role_seeing(runtime: Runtime, ws: Workspace, slug: str, *modules: str) -> Workspace:
    await runtime.actors.ask(
        ops.CreateRole(slug, frozenset(modules), frozenset(modules), by=ws.system)
    )
    return await add_user(runtime, ws, slug)


async def test_a_hidden_module_has_no_references(
    runtime: Runtime, client: httpx.AsyncClient, ws: Workspace
) -> None:
    company = await create(client, ws, "companies", name="Acme")
    deal = await create(client, ws, "deals", {"company": company["recordId"]})
    clerk = await role_seeing(runtime, ws, "clerk", "contacts")
    for path in ("", f"/company/records/{deal['recordId']}", "/company/picker"):
        resp = await client.get(refs_url("deals", path), headers=clerk.headers)
        error = assert_envelope(resp, 404, "not_found")
        assert error["message"] == "Module 'deals' not found"


async def test_a_hidden_target_offers_nothing_to_pick(
    runtime: Runtime, client: httpx.AsyncClient, ws: Workspace
) -> None:
    company = await create(client, ws, "companies", name="Acme")
    deal = await create(client, ws, "deals", {"company": company["recordId"]})
    seller = await role_seeing(runtime, ws, "seller", "deals")
    picked = await client.get(refs_url("deals", "/company/picker"), headers=seller.headers)
    assert picked.status_code == 200
    assert picked.json() == {
        "referenceSlug": "company",
        "targetType": "module",
        "targetModuleSlug": "companies",
        "items": [],
    }
    owner = await client.get(refs_url("deals", "/company/picker"), headers=ws.headers)
    assert [i["recordId"] for i in owner.json()["items"]] == [company["recordId"]]
    # the link itself belongs to the deal, which the role sees
    linked = await client.get(
        refs_url("deals", f"/company/records/{deal['recordId']}"), headers=seller.headers
    )
    assert linked.json() == {"targetRecordIds": [company["recordId"]]}


async def test_workspaces_do_not_see_each_others_records(
    client: httpx.AsyncClient, ws: Workspace, other_ws: Workspace
) -> None:
    ours = await create(client, ws, "companies", name="Ours Ltd")
    theirs = await create(client, other_ws, "companies", name="Theirs Ltd")
    deal = await create(client, other_ws, "deals", {"company": theirs["recordId"]})
    picked = await client.get(refs_url("deals", "/company/picker"), headers=ws.headers)
    assert [i["recordId"] for i in picked.json()["items"]] == [ours["recordId"]]
    url = refs_url("deals", f"/company/records/{deal['recordId']}")
    error = assert_envelope(await client.get(url, headers=ws.headers), 404, "not_found")
    assert error["message"] == f"Record {deal['recordId']} not found"
    assert (await client.get(url, headers=other_ws.headers)).json() == {
        "targetRecordIds": [theirs["recordId"]]
    }


async def test_record_ids_are_read_in_any_case(client: httpx.AsyncClient, ws: Workspace) -> None:
    company = await create(client, ws, "companies", name="Acme")
    deal = await create(client, ws, "deals", {"company": company["recordId"]})
    url = refs_url("deals", f"/company/records/{deal['recordId'].upper()}")
    resp = await client.get(url, headers=ws.headers)
    assert resp.status_code == 200
    assert resp.json() == {"targetRecordIds": [company["recordId"]]}
    unknown = refs_url("deals", f"/nope/records/{deal['recordId']}")
    error = assert_envelope(await client.get(unknown, headers=ws.headers), 404, "not_found")
    assert error["message"] == "Reference 'nope' not found in module 'deals'"
