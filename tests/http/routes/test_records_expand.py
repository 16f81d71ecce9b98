"""?expand= on GET record and the list: referenced records inline, within view rights."""

from __future__ import annotations

from typing import Any

import httpx

from fieldhouse.actors import admin_ops as ops
from fieldhouse.runtime import Runtime
from tests.conftest import Workspace, add_user
from tests.http.test_auth import assert_envelope
from tests.http.test_records_crud import create, records_url


def brief(record: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return {
        "recordId": record["recordId"],
        "moduleSlug": record["moduleSlug"],
        "displayName": record["displayName"],
        "fields": fields,
    }


async def seed(client: httpx.AsyncClient, ws: Workspace) -> dict[str, dict[str, Any]]:
    acme = await create(client, ws, "companies", {"industry": "software"}, name="Acme")
    alice = await create(client, ws, "contacts", name="Alice")
    bob = await create(client, ws, "contacts", name="Bob")
    links = {"company": acme["recordId"], "contacts": [bob["recordId"], alice["recordId"]]}
    linked = await create(client, ws, "deals", links, name="Linked")
    bare = await create(client, ws, "deals", name="Bare")
    return {"acme": acme, "alice": alice, "bob": bob, "linked": linked, "bare": bare}


async def test_list_and_get_expand_references(client: httpx.AsyncClient, ws: Workspace) -> None:
    made = await seed(client, ws)
    industry = made["acme"]["fields"]["industry"]
    params = {"expand": "company,contacts", "expandFields": "company.industry"}
    resp = await client.get(records_url("deals"), headers=ws.headers, params=params)
    assert resp.status_code == 200, resp.text
    got = {r["displayName"]: r["expanded"] for r in resp.json()["records"]}
    assert got == {
        "Linked": {
            "company": brief(made["acme"], industry=industry),
            "contacts": [brief(made["bob"]), brief(made["alice"])],  # in link order
        },
        "Bare": {"company": None, "contacts": []},
    }
    url = records_url("deals", made["linked"]["recordId"])
    one = await client.get(url, headers=ws.headers, params={"expand": "contacts"})
    assert one.json()["record"]["expanded"] == {
        "contacts": [brief(made["bob"]), brief(made["alice"])]
    }
    plain = await client.get(url, headers=ws.headers)
    assert "expanded" not in plain.json()["record"]
    # a deleted record is left out
    await client.delete(records_url("contacts", made["alice"]["recordId"]), headers=ws.headers)
    one = await client.get(url, headers=ws.headers, params={"expand": "contacts"})
    assert one.json()["record"]["expanded"] == {"contacts": [brief(made["bob"])]}


async def test_expansion_keeps_to_view_rights(
    client: httpx.AsyncClient, runtime: Runtime, ws: Workspace
) -> None:
    made = await seed(client, ws)
    await runtime.actors.ask(
        ops.CreateRole(
            "sales", frozenset({"deals", "companies"}), frozenset({"deals"}), by=ws.system
        ),
    )
    sales = await add_user(runtime, ws, "sales")
    url = records_url("deals", made["linked"]["recordId"])
    params = {"expand": "company,contacts", "expandFields": "contacts.email"}
    resp = await client.get(url, headers=sales.headers, params=params)
    assert resp.status_code == 200, resp.text
    assert resp.json()["record"]["expanded"] == {"company": brief(made["acme"]), "contacts": None}


async def test_bad_expansions_name_the_parameter(client: httpx.AsyncClient, ws: Workspace) -> None:
    await seed(client, ws)
    for params, path in (
        ({"expand": "nope"}, ["expand", 0]),
        ({"expand": "company,stage"}, ["expand", 1]),
        ({"expand": "company", "expandFields": "company.nope"}, ["expandFields", 0]),
        ({"expand": "company", "expandFields": "contacts.email"}, ["expandFields", 0]),
        ({"expandFields": "company.name"}, ["expandFields"]),
    ):
        resp = await client.get(records_url("deals"), headers=ws.headers, params=params)
        error = assert_envelope(resp, 400, "validation_error")
        assert [i["path"] for i in error["issues"]] == [path], params  # type: ignore[union-attr]


async def test_every_bad_expansion_is_named_in_the_order_given(
    client: httpx.AsyncClient, ws: Workspace
) -> None:
    """Pins _expansions' issues (issue 35's split keeps them): the references first, then the
    chosen fields, each with its message; a repeated reference keeps its chosen fields."""
    made = await seed(client, ws)
    params = {
        "expand": "company,nope,company",
        "expandFields": "company.nope,contacts.email,,company.industry",
    }
    resp = await client.get(records_url("deals"), headers=ws.headers, params=params)
    error = assert_envelope(resp, 400, "validation_error")
    assert [(i["path"], i["message"]) for i in error["issues"]] == [  # type: ignore[union-attr]
        (["expand", 1], "'nope' is not a reference of module 'deals' to records"),
        (["expandFields", 0], "Unknown field 'nope' of module 'companies'"),
        (["expandFields", 1], "'contacts' is not in expand"),
    ]
    params = {"expand": "company,company", "expandFields": "company.industry"}
    url = f"{records_url('deals')}/{made['linked']['recordId']}"
    resp = await client.get(url, headers=ws.headers, params=params)
    assert resp.json()["record"]["expanded"] == {
        "company": brief(made["acme"], industry=made["acme"]["fields"]["industry"])
    }
