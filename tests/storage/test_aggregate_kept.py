"""Kept aggregates: after every kind of write, each answer equals a scan of the records."""

from __future__ import annotations

from typing import Any

import httpx

from fieldhouse.model.aggregate import parse_aggregate
from fieldhouse.model.listquery import parse_list_query
from fieldhouse.runtime import Runtime
from fieldhouse.storage import aggregate
from fieldhouse.storage.sqlquery import compile_list
from tests.conftest import Workspace
from tests.http.routes.test_aggregate import URL, seed
from tests.http.routes.test_template_admin import add_field, fields_of, module_id
from tests.http.test_records_crud import create, make_label

ALL = "count,sum:amount,avg:amount,min:amount,max:amount,min:probability,max:probability"
SHAPES: tuple[dict[str, str], ...] = (
    {"metrics": ALL},
    {"groupBy": "stage", "metrics": ALL},
    {"groupBy": "company", "metrics": "count,sum:amount"},
    {"groupBy": "owner", "metrics": "count,max:probability"},
    {"groupBy": "close-date:week", "metrics": "count,sum:amount"},
    {"groupBy": "close-date:month", "metrics": "min:amount"},
    {"groupBy": "close-date:day"},
    {"groupBy": "contract-period:month", "metrics": "count,avg:amount"},
    {"groupBy": "created_at:day", "metrics": "sum:amount"},
    {"groupBy": "updated_at:month"},
    {"groupBy": "close-date:month", "metrics": ALL, "filter[stage]": "won,lost"},
    {"metrics": "count,sum:amount", "filter[stage]": "lead"},
    {"groupBy": "stage", "metrics": "count", "search": "B"},  # a scan: the reference answer
)
DEALS = "/v1/modules/deals/records"


async def scratch(runtime: Runtime, ws: Workspace, params: dict[str, str]) -> dict[str, Any]:
    """The answer of a scan of the records (``storage.aggregate``), nothing kept."""
    store = runtime.store
    _, schemas = await store.load_schemas(ws.account_id)
    schema = schemas["deals"]
    spec = parse_aggregate(params.get("groupBy"), params.get("metrics"), schema)
    rest = [(k, v) for k, v in params.items() if k not in ("groupBy", "metrics")]
    query = parse_list_query(rest, schema)
    d = store._db.dialect
    compiled = compile_list(
        query, schema, d, account_id=ws.account_id, module_id=schema.module.module_id
    )
    return await store._db.read(aggregate.aggregate(d, compiled, spec), snapshot=True)


async def same_as_scan(
    client: httpx.AsyncClient, runtime: Runtime, ws: Workspace, *, unseen: str = "-"
) -> None:
    for params in SHAPES:
        if unseen in str(params):  # an archived field is refused
            continue
        resp = await client.get(URL, headers=ws.headers, params=params)
        assert resp.status_code == 200, resp.text
        body = resp.json()
        want = await scratch(runtime, ws, params)
        assert {"groups": body["groups"], "truncated": body["truncated"]} == want, params


async def test_answers_equal_a_scan_after_every_write(
    client: httpx.AsyncClient, runtime: Runtime, ws: Workspace
) -> None:
    ids = await seed(client, ws)
    await same_as_scan(client, runtime, ws)  # registers (and backfills) what is kept
    # creates, one with an owner and a contract period
    made = await create(
        client,
        ws,
        "deals",
        {
            "stage": "won",
            "amount": {"amount": 7.25, "currency": "USD"},
            "probability": 90,
            "close-date": "2024-03-04",
            "contract-period": {"start": "2024-05-01", "end": "2024-06-01"},
            "owner": ws.owner_id,
            "company": ids["globex"],
        },
        name="E",
    )
    await same_as_scan(client, runtime, ws)
    # an update moving a record between groups and changing its numbers
    url = f"{DEALS}/{made['recordId']}"
    changed = {"stage": "lost", "amount": {"amount": 0.05, "currency": "USD"}, "probability": 5}
    resp = await client.patch(url, headers=ws.headers, json={"fields": changed})
    assert resp.status_code == 200, resp.text
    await same_as_scan(client, runtime, ws)
    # a batch of creates (one transaction)
    batch = {
        "records": [
            {"displayName": "F", "fields": {"name": "F", "stage": "lead", "probability": 50}},
            {"displayName": "H", "fields": {"name": "H", "stage": "won", "owner": ws.owner_id}},
        ]
    }
    resp = await client.post(f"{DEALS}/batch", headers=ws.headers, json=batch)
    assert resp.status_code in (200, 201), resp.text
    await same_as_scan(client, runtime, ws)
    # bulk label changes (the records' rows are written again)
    every = [r["recordId"] for r in (await client.get(DEALS, headers=ws.headers)).json()["records"]]
    body = {"recordIds": every, "addLabelIds": [await make_label(client, ws, "Hot")]}
    resp = await client.post(f"{DEALS}/bulk", headers=ws.headers, json=body)
    assert resp.status_code == 200, resp.text
    await same_as_scan(client, runtime, ws)
    # a delete and a bulk delete
    resp = await client.delete(f"{DEALS}/{every[0]}", headers=ws.headers)
    assert resp.status_code == 204
    await same_as_scan(client, runtime, ws)
    body = {"recordIds": every[1:3]}
    resp = await client.post(f"{DEALS}/bulk-delete", headers=ws.headers, json=body)
    assert resp.status_code == 200, resp.text
    await same_as_scan(client, runtime, ws)
    # a field archived (its values kept, unseen) and back
    mid = await module_id(client, ws, "deals")
    period = (await fields_of(client, ws, "deals"))["contract-period"]["fieldId"]
    resp = await client.patch(
        f"/api/modules/{mid}/fields/{period}", headers=ws.headers, json={"archived": True}
    )
    assert resp.status_code == 200, resp.text
    await same_as_scan(client, runtime, ws, unseen="contract-period")
    live = f"{DEALS}/{every[-1]}"
    resp = await client.patch(live, headers=ws.headers, json={"fields": {"probability": 1}})
    assert resp.status_code == 200, resp.text
    resp = await client.patch(
        f"/api/modules/{mid}/fields/{period}", headers=ws.headers, json={"archived": False}
    )
    assert resp.status_code == 200, resp.text
    await same_as_scan(client, runtime, ws)


async def test_a_custom_field_grouped_then_deleted(
    client: httpx.AsyncClient, runtime: Runtime, ws: Workspace
) -> None:
    mid = await module_id(client, ws, "deals")
    made = await add_field(client, ws, mid, {"label": "Hot", "dataType": "boolean"})
    assert made.status_code == 201, made.text
    for n, hot in enumerate((True, False, True, None)):
        fields: dict[str, Any] = {"stage": "won", "probability": n * 10}
        if hot is not None:
            fields["hot"] = hot
        await create(client, ws, "deals", fields, name=f"D{n}")
    params = {"groupBy": "hot", "metrics": "count,sum:probability,min:probability"}
    resp = await client.get(URL, headers=ws.headers, params=params)
    assert resp.status_code == 200, resp.text
    assert [(g["key"], g["count"]) for g in resp.json()["groups"]] == [
        (False, 1),
        (True, 2),
        (None, 1),
    ]
    assert resp.json()["groups"][1]["metrics"]["min:probability"] == 0
    # the field deleted: its values leave the records, and a field of that name comes back empty
    gone = await client.delete(
        f"/api/modules/{mid}/fields/{made.json()['fieldId']}", headers=ws.headers
    )
    assert gone.status_code in (200, 204), gone.text
    again = await add_field(client, ws, mid, {"label": "Hot", "dataType": "boolean"})
    assert again.status_code == 201, again.text
    resp = await client.get(URL, headers=ws.headers, params=params)
    assert [(g["key"], g["count"]) for g in resp.json()["groups"]] == [(None, 4)]
    want = await scratch(runtime, ws, params)
    assert resp.json()["groups"] == want["groups"]
