"""GET /modules/{slug}/aggregate: groups, metrics, exact sums, the list filters, bad input."""

from __future__ import annotations

from typing import Any

import httpx

from tests.conftest import Workspace
from tests.http.test_auth import assert_envelope
from tests.http.test_records_crud import create

URL = "/v1/modules/deals/aggregate"


async def agg(client: httpx.AsyncClient, ws: Workspace, **params: Any) -> dict[str, Any]:
    resp = await client.get(URL, headers=ws.headers, params=params)
    assert resp.status_code == 200, resp.text
    body: dict[str, Any] = resp.json()
    return body


async def seed(client: httpx.AsyncClient, ws: Workspace) -> dict[str, str]:
    acme = await create(client, ws, "companies", {"name": "Acme"}, name="Acme")
    globex = await create(client, ws, "companies", {"name": "Globex"}, name="Globex")
    rows = [
        # name, stage, amount, probability, close date (Monday 2024-01-15 starts its week)
        ("A", "won", 0.1, 10, "2024-01-15", acme),
        ("B", "won", 0.2, 20, "2024-01-21", acme),
        ("C", "lost", 1234567.89, 35, "2024-01-22", globex),
        ("D", "lead", None, None, None, None),
    ]
    for name, stage, amount, prob, close, company in rows:
        fields: dict[str, Any] = {"name": name, "stage": stage}
        if amount is not None:
            fields.update(amount={"amount": amount, "currency": "USD"}, probability=prob)
            fields.update({"close-date": close, "company": company["recordId"]})
        await create(client, ws, "deals", fields, name=name)
    return {"acme": acme["recordId"], "globex": globex["recordId"]}


async def test_groups_by_choice_with_exact_sums(client: httpx.AsyncClient, ws: Workspace) -> None:
    await seed(client, ws)
    body = await agg(
        client,
        ws,
        groupBy="stage",
        metrics="count,sum:amount,avg:amount,min:probability,max:probability",
    )
    assert body["total"] == 4 and body["truncated"] is False
    by_key = {g["key"]: g for g in body["groups"]}
    assert [g["key"] for g in body["groups"]] == ["lead", "lost", "won"]
    won = by_key["won"]["metrics"]
    # 0.1 + 0.2 is 0.3 here, not the 0.30000000000000004 of binary floats
    assert won == {
        "count": 2,
        "sum:amount": 0.3,
        "avg:amount": 0.15,
        "min:probability": 10,
        "max:probability": 20,
    }
    assert by_key["lead"]["metrics"] == {
        "count": 1,
        "sum:amount": 0,
        "avg:amount": None,
        "min:probability": None,
        "max:probability": None,
    }
    total = await agg(client, ws, metrics="sum:amount")
    assert total["groups"] == [{"key": None, "count": 4, "metrics": {"sum:amount": 1234568.19}}]


async def test_groups_by_reference_date_buckets_and_filters(
    client: httpx.AsyncClient, ws: Workspace
) -> None:
    ids = await seed(client, ws)
    body = await agg(client, ws, groupBy="company")
    assert sorted(
        ((g["key"], g.get("displayName"), g["count"]) for g in body["groups"]),
        key=lambda g: (g[0] is None, g[0] or ""),
    ) == sorted(
        [(ids["acme"], "Acme", 2), (ids["globex"], "Globex", 1), (None, None, 1)],
        key=lambda g: (g[0] is None, g[0] or ""),
    )
    assert body["groups"][-1]["key"] is None
    weeks = await agg(client, ws, groupBy="close-date:week")
    assert [(g["key"], g["count"]) for g in weeks["groups"]] == [
        ("2024-01-15", 2),
        ("2024-01-22", 1),
        (None, 1),
    ]
    days = await agg(client, ws, groupBy="close-date:day")
    assert [g["key"] for g in days["groups"]] == ["2024-01-15", "2024-01-21", "2024-01-22", None]
    months = await agg(client, ws, groupBy="close-date:month", metrics="sum:amount")
    assert months["groups"][0] == {
        "key": "2024-01-01",
        "count": 3,
        "metrics": {"sum:amount": 1234568.19},
    }
    # the list endpoint's filters and search choose the records
    won = await agg(client, ws, groupBy="company", **{"filter[stage]": "won"})
    assert [(g["key"], g["count"]) for g in won["groups"]] == [(ids["acme"], 2)]
    found = await agg(client, ws, search="glob", groupBy="stage")  # its company's name
    assert [(g["key"], g["count"]) for g in found["groups"]] == [("lost", 1)]
    none = await agg(client, ws, search="zzz", groupBy="stage")
    assert none["total"] == 0 and none["groups"] == []
    created = await agg(client, ws, groupBy="created_at:month")
    assert len(created["groups"]) == 1 and created["groups"][0]["count"] == 4


async def test_groups_by_person_and_boolean(client: httpx.AsyncClient, ws: Workspace) -> None:
    await create(client, ws, "deals", {"owner": ws.owner_id}, name="Mine")
    await create(client, ws, "deals", name="Nobody's")
    body = await agg(client, ws, groupBy="owner")
    assert [(g["key"], g["count"]) for g in body["groups"]] == [(ws.owner_id, 1), (None, 1)]
    assert body["groups"][0]["displayName"]
    await create(client, ws, "tasks", {"title": "t"}, name="t")
    resp = await client.get("/v1/modules/tasks/aggregate", headers=ws.headers)
    assert resp.json()["total"] == 1


async def test_bad_parameters_name_themselves(
    client: httpx.AsyncClient, ws: Workspace, other_ws: Workspace
) -> None:
    await seed(client, ws)
    for params, path in (
        ({"groupBy": "name"}, ["groupBy"]),
        ({"groupBy": "nope"}, ["groupBy"]),
        ({"groupBy": "contacts"}, ["groupBy"]),
        ({"groupBy": "close-date"}, ["groupBy"]),
        ({"groupBy": "close-date:year"}, ["groupBy"]),
        ({"groupBy": "stage:day"}, ["groupBy"]),
        ({"metrics": "sum:name"}, ["metrics", 0]),
        ({"metrics": "count,median:amount"}, ["metrics", 1]),
        ({"metrics": "avg:stage"}, ["metrics", 0]),
    ):
        resp = await client.get(URL, headers=ws.headers, params=params)
        error = assert_envelope(resp, 400, "validation_error")
        assert [i["path"] for i in error["issues"]] == [path], params  # type: ignore[union-attr]
    resp = await client.get(URL, headers=ws.headers, params={"pageSize": "5"})
    assert_envelope(resp, 400, "validation_error")
    # another workspace sees none of these records
    other = await agg(client, other_ws, groupBy="stage")
    assert other["total"] == 0
