"""Activity feeds 18-20: entries, order, filters, limits, grouping, access, concurrency."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import httpx
import trio

from fieldhouse.actors import admin_ops as ops
from fieldhouse.model.activity import ActivityKind
from fieldhouse.runtime import Runtime
from tests.conftest import Workspace, add_user
from tests.http.test_auth import assert_envelope
from tests.http.test_records_crud import BASE_FIELDS, create, make_label, make_type, records_url


async def feed(
    client: httpx.AsyncClient, ws: Workspace, path: str = "/v1/activity", **params: Any
) -> list[dict[str, Any]]:
    resp = await client.get(path, headers=ws.headers, params=params)
    assert resp.status_code == 200, resp.text
    activities: list[dict[str, Any]] = resp.json()["activities"]
    return activities


async def bad_limit(client: httpx.AsyncClient, ws: Workspace, path: str, **params: Any) -> None:
    resp = await client.get(path, headers=ws.headers, params=params)
    error = assert_envelope(resp, 400, "validation_error")
    assert [i["path"] for i in error["issues"]] == [list(params)]  # type: ignore[union-attr]


async def unknown_kind(client: httpx.AsyncClient, ws: Workspace, path: str) -> None:
    """A kind no writer produces is a 400 naming the known ones, not an empty feed."""
    params = {"activityTypes": "record_created,nothing"}
    resp = await client.get(path, headers=ws.headers, params=params)
    error = assert_envelope(resp, 400, "validation_error")
    assert error["issues"] == [
        {
            "code": "invalid_enum_value",
            "path": ["activityTypes"],
            "message": "Unknown activity type 'nothing'",
            "options": [kind.value for kind in ActivityKind],
            "received": "nothing",
        }
    ]


async def test_each_kind_of_entry(client: httpx.AsyncClient, ws: Workspace) -> None:
    deal = await create(client, ws, "deals", {"amount": {"amount": 100}, "probability": 10})
    rid = deal["recordId"]
    patch = {"displayName": "Renamed", "fields": {"probability": 20}}
    await client.patch(records_url("deals", rid), headers=ws.headers, json=patch)
    label, kind = await make_label(client, ws, "VIP"), await make_type(client, ws, "Partner")
    bulk = {"recordIds": [rid], "addLabelIds": [label], "addTypeIds": [kind]}
    await client.post(records_url("deals") + "/bulk", headers=ws.headers, json=bulk)
    await client.delete(records_url("deals", rid), headers=ws.headers)
    entries = await feed(client, ws, limit=5)
    assert [e["activityType"] for e in entries] == [
        "record_deleted",
        "record_typed",
        "record_labelled",
        "record_updated",
        "record_created",
    ]
    seqs = [e["seq"] for e in entries]
    assert seqs == list(range(seqs[0], seqs[0] - 5, -1))
    for entry in entries:
        assert entry["recordId"] == rid and entry["moduleId"] == deal["moduleId"]
        assert entry["userId"] == ws.owner_id
        assert datetime.fromisoformat(entry["createdDateTime"].replace("Z", "+00:00"))
    deleted, typed, labelled, updated, created = (e["data"] for e in entries)
    assert created["displayName"] == deal["displayName"]
    assert set(created["fields"]) >= {"name", "stage", "amount", "deal-number"}
    assert updated["changedFields"] == ["displayName", "probability", "weighted-value"]
    assert updated["changes"]["probability"] == {"before": 10, "after": 20}
    assert updated["changes"]["displayName"] == {"before": deal["displayName"], "after": "Renamed"}
    assert labelled == {"added": [label], "removed": []}
    assert typed == {"added": [kind], "removed": []}
    assert deleted == {"displayName": "Renamed"}
    record_feed = await feed(client, ws, records_url("deals", rid) + "/activity")
    assert [g["activities"][0]["seq"] for g in record_feed] == seqs


async def test_no_op_writes_leave_no_entry(client: httpx.AsyncClient, ws: Workspace) -> None:
    deal = await create(client, ws, "deals")
    url = records_url("deals", deal["recordId"])
    await client.patch(url, headers=ws.headers, json={"fields": {"stage": "lead"}})
    await client.post(
        url.rsplit("/", 1)[0] + "/bulk", headers=ws.headers, json={"recordIds": [deal["recordId"]]}
    )
    gone = {"recordIds": [deal["recordId"]]}
    await client.post(records_url("deals") + "/bulk-delete", headers=ws.headers, json=gone)
    await client.post(records_url("deals") + "/bulk-delete", headers=ws.headers, json=gone)
    entries = await feed(client, ws, limit=3)
    assert [e["activityType"] for e in entries][:2] == ["record_deleted", "record_created"]


async def test_filters_and_limits(client: httpx.AsyncClient, ws: Workspace) -> None:
    made = [await create(client, ws, "tasks", name=f"T{i}") for i in range(22)]
    await create(client, ws, "contacts")
    await client.delete(records_url("tasks", made[0]["recordId"]), headers=ws.headers)
    assert len(await feed(client, ws)) == 20
    assert len(await feed(client, ws, limit=25)) == 25
    deleted = await feed(client, ws, activityTypes="record_deleted")
    assert [e["recordId"] for e in deleted] == [made[0]["recordId"]]
    both = await feed(client, ws, activityTypes="record_deleted, record_created", limit=3)
    assert [e["activityType"] for e in both] == [
        "record_deleted",
        "record_created",
        "record_created",
    ]
    kinds = "record_created,record_deleted"
    module = await feed(client, ws, "/v1/modules/tasks/activity", limit=50, activityTypes=kinds)
    assert len(module) == 23 and {e["moduleId"] for e in module} == {made[0]["moduleId"]}
    one = await feed(client, ws, "/v1/modules/tasks/activity", limit=1)
    assert one == module[:1]
    for path in ("/v1/activity", "/v1/modules/tasks/activity"):
        await unknown_kind(client, ws, path)
    for path in ("/v1/activity", "/v1/modules/tasks/activity"):
        for limit in (0, 51, "many"):
            await bad_limit(client, ws, path, limit=limit)
    record = records_url("tasks", made[1]["recordId"]) + "/activity"
    assert len(await feed(client, ws, record, limit=200)) == 1
    for limit in (0, 201):
        await bad_limit(client, ws, record, limit=limit)
    for minutes in (0, 61):
        await bad_limit(client, ws, record, groupWithinMinutes=minutes)
    missing = "/v1/modules/nope/activity"
    assert_envelope(await client.get(missing, headers=ws.headers), 404, "not_found")


async def test_record_feed_grouping(client: httpx.AsyncClient, ws: Workspace) -> None:
    deal = await create(client, ws, "deals")
    url = records_url("deals", deal["recordId"])
    for probability in (10, 20, 30):
        await client.patch(url, headers=ws.headers, json={"fields": {"probability": probability}})
    plain = await feed(client, ws, url + "/activity")
    assert [(g["activityType"], g["count"]) for g in plain] == [("record_updated", 1)] * 3 + [
        ("record_created", 1)
    ]
    grouped = await feed(client, ws, url + "/activity", groupWithinMinutes=60)
    assert [(g["activityType"], g["count"]) for g in grouped] == [
        ("record_updated", 3),
        ("record_created", 1),
    ]
    updates = grouped[0]
    seqs = [a["seq"] for a in updates["activities"]]
    assert seqs == sorted(seqs, reverse=True) and len(set(seqs)) == 3
    assert updates["userId"] == ws.owner_id and updates["recordId"] == deal["recordId"]
    assert updates["startedDateTime"] <= updates["endedDateTime"]
    assert [a["data"]["changes"]["probability"]["after"] for a in updates["activities"]] == [
        30,
        20,
        10,
    ]
    limited = await feed(client, ws, url + "/activity", limit=2, groupWithinMinutes=1)
    assert [(g["activityType"], g["count"]) for g in limited] == [("record_updated", 2)]


async def test_feeds_follow_workspace_and_role(
    client: httpx.AsyncClient, runtime: Runtime, ws: Workspace, other_ws: Workspace
) -> None:
    mine = await create(client, ws, "contacts")
    await create(client, ws, "deals")
    theirs = await create(client, other_ws, "contacts")
    first_mine = await feed(client, ws, records_url("contacts", mine["recordId"]) + "/activity")
    first_theirs = await feed(
        client, other_ws, records_url("contacts", theirs["recordId"]) + "/activity"
    )
    # each workspace numbers its own entries
    assert first_mine[0]["activities"][0]["seq"] == first_theirs[0]["activities"][0]["seq"]
    ids = {e["recordId"] for e in await feed(client, ws, limit=50)}
    assert mine["recordId"] in ids and theirs["recordId"] not in ids
    await runtime.actors.ask(
        ops.CreateRole("sales", frozenset({"deals"}), frozenset({"deals"}), by=ws.system)
    )
    sales = await add_user(runtime, ws, "sales")
    deal = {"displayName": "D", "fields": BASE_FIELDS["deals"]}
    made = await client.post(records_url("deals"), headers=sales.headers, json=deal)
    visible = await feed(client, sales, limit=50)
    assert visible and {e["recordId"] for e in visible} >= {made.json()["record"]["recordId"]}
    assert mine["recordId"] not in {e["recordId"] for e in visible}
    assert visible[0]["userId"] == sales.owner_id
    hidden = "/v1/modules/contacts/activity"
    assert_envelope(await client.get(hidden, headers=sales.headers), 404, "not_found")
    record = records_url("contacts", mine["recordId"]) + "/activity"
    assert_envelope(await client.get(record, headers=sales.headers), 404, "not_found")
    assert_envelope(await client.get(record, headers=other_ws.headers), 404, "not_found")


async def test_concurrent_creates_are_numbered_in_order(
    client: httpx.AsyncClient, runtime: Runtime, ws: Workspace
) -> None:
    made: list[dict[str, Any]] = []

    async def one(i: int) -> None:
        body = {"displayName": f"D{i}", "fields": {"name": f"D{i}", "stage": "lead"}}
        resp = await client.post(records_url("deals"), headers=ws.headers, json=body)
        assert resp.status_code == 201, resp.text
        made.append(resp.json()["record"])

    async with trio.open_nursery() as nursery:
        for i in range(200):
            nursery.start_soon(one, i)
    numbers = sorted(r["fields"]["deal-number"] for r in made)
    assert numbers == [f"DEAL-{n:05d}" for n in range(1, 201)]
    # every create left one record_created entry; their sequence numbers are gap-free and
    # follow the auto-number order (the actor applied the creates one after another)
    entries = await runtime.store.list_activity(
        ws.account_id,
        module_ids=[made[0]["moduleId"]],
        record_id=None,
        types=["record_created"],
        limit=500,
    )
    seq_of = {e["recordId"]: e["seq"] for e in entries}
    assert len(entries) == 200 and set(seq_of) == {r["recordId"] for r in made}
    seqs = sorted(seq_of.values())
    assert seqs == list(range(seqs[0], seqs[0] + 200))
    by_number = sorted(made, key=lambda r: r["fields"]["deal-number"])
    assert [seq_of[r["recordId"]] for r in by_number] == seqs
    sample = by_number[-1]["recordId"]
    [group] = await feed(client, ws, records_url("deals", sample) + "/activity")
    assert group["activities"][0]["seq"] == seqs[-1]
    newest = await feed(client, ws, "/v1/modules/deals/activity", limit=50)
    assert [e["seq"] for e in newest] == seqs[::-1][:50]
    total = (await client.get(records_url("deals"), headers=ws.headers)).json()["total"]
    assert total == 200
