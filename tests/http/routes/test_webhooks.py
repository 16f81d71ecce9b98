"""Signed webhooks delivered to a real receiving server on a loopback port."""

from __future__ import annotations

import itertools
from dataclasses import replace
from typing import Any

import httpx
import orjson
import pytest
import trio
from trio.testing import MockClock

from fieldhouse.actors.object_ops import ApplyObjects, ObjectWrite
from fieldhouse.config import Settings
from fieldhouse.model.activity import ActivityKind
from fieldhouse.runtime import Runtime, open_runtime
from fieldhouse.storage.objects import ObjectRow
from fieldhouse.webhooks import DELIVERY
from tests.conftest import Workspace, make_workspace
from tests.http.routes.webhook_support import (
    Receiver,
    allowing,
    deliveries,
    register,
    start_receivers,
    verify,
)
from tests.http.test_auth import assert_envelope

RECORDS = "/v1/modules/contacts/records"
BODY = {"displayName": "Ada", "fields": {"first-name": "Ada"}}


@pytest.fixture
def clock() -> MockClock:
    """Jumps over the backoff waits, but only once nothing ran for a real 50 ms (loopback I/O
    and store threads count as running)."""
    return MockClock(autojump_threshold=0.05)


@pytest.fixture
async def receivers(nursery: trio.Nursery) -> list[tuple[Receiver, str]]:
    return await start_receivers(nursery)


@pytest.fixture
async def settings(settings: Settings, receivers: list[tuple[Receiver, str]]) -> Settings:
    return allowing(settings, receivers)


@pytest.fixture
async def receiver_url(receivers: list[tuple[Receiver, str]]) -> tuple[Receiver, str]:
    receiver, url = receivers[0]
    receiver.fail = 2
    return receiver, url


async def test_signed_delivery_with_backoff_and_replay(
    client: httpx.AsyncClient, ws: Workspace, receiver_url: tuple[Receiver, str]
) -> None:
    receiver, url = receiver_url
    hook = await register(client, ws, url + "/hook")
    listed = (await client.get("/v1/webhooks", headers=ws.headers)).json()["webhooks"]
    assert [h["id"] for h in listed] == [hook["id"]] and "secret" not in listed[0]
    made = (await client.post(RECORDS, headers=ws.headers, json=BODY)).json()["record"]
    await receiver.wait_for(3)
    times = [t for t, _, _ in receiver.got]
    assert [round(b - a) for a, b in itertools.pairwise(times)] == [2, 4]
    bodies = {body for _, _, body in receiver.got}
    assert len(bodies) == 1  # every retry sends the same event
    _, headers, body = receiver.got[-1]
    verify(hook["secret"], headers, body)
    event = orjson.loads(body)
    assert event["activityType"] == "record_created" and event["recordId"] == made["recordId"]
    assert event["workspaceId"] == ws.account_id and headers["fieldhouse-webhook-id"] == hook["id"]
    deliveries_url = f"/v1/webhooks/{hook['id']}/deliveries"
    with trio.fail_after(60):
        while True:
            log = (await client.get(deliveries_url, headers=ws.headers)).json()["deliveries"]
            if log[0]["status"] == "delivered":
                break
            await trio.sleep(1)  # mock time: the dispatcher records the outcome meanwhile
    assert [a.get("statusCode") for a in log[0]["attempts"]] == [500, 500, 204]
    replay = await client.post(f"{deliveries_url}/{log[0]['id']}/replay", headers=ws.headers)
    assert replay.status_code == 200 and replay.json()["delivery"]["status"] == "pending"
    await receiver.wait_for(4)
    assert (
        receiver.got[-1][2] == body
        and receiver.got[-1][1]["fieldhouse-delivery-id"] == (log[0]["id"])
    )
    assert (
        await client.delete(f"/v1/webhooks/{hook['id']}", headers=ws.headers)
    ).status_code == 204
    await client.post(RECORDS, headers=ws.headers, json=BODY)
    assert_envelope(await client.get(deliveries_url, headers=ws.headers), 404, "not_found")


async def test_the_payload_id_is_the_delivery_id(
    client: httpx.AsyncClient, ws: Workspace, receivers: list[tuple[Receiver, str]]
) -> None:
    receiver, url = receivers[0]
    hook = await register(client, ws, url + "/hook")
    await client.post(RECORDS, headers=ws.headers, json=BODY)
    await receiver.wait_for(1)
    _, headers, body = receiver.got[0]
    payload = orjson.loads(body)
    assert payload["id"] == headers["fieldhouse-delivery-id"]
    assert [d["id"] for d in await deliveries(client, ws, hook["id"])] == [payload["id"]]
    # and the activity entry it reports keeps its own id
    activity = (await client.get("/v1/activity", headers=ws.headers)).json()["activities"]
    assert payload["activityId"] == activity[0]["id"] != payload["id"]


async def test_webhook_rules(
    client: httpx.AsyncClient,
    ws: Workspace,
    other_ws: Workspace,
    receivers: list[tuple[Receiver, str]],
) -> None:
    bad = await client.post("/v1/webhooks", headers=ws.headers, json={"url": "not a url"})
    assert_envelope(bad, 400, "validation_error")
    body = {"url": "http://127.0.0.1:9/", "eventTypes": ["record_created", "record_create"]}
    unknown = await client.post("/v1/webhooks", headers=ws.headers, json=body)
    issues = assert_envelope(unknown, 400, "validation_error")["issues"]
    assert isinstance(issues, list) and len(issues) == 1
    issue = issues[0]
    assert issue["code"] == "invalid_enum_value" and issue["path"] == ["eventTypes", 1]
    assert issue["options"] == [kind.value for kind in ActivityKind]
    hook = await register(client, ws, receivers[0][1])
    theirs = await client.get(f"/v1/webhooks/{hook['id']}/deliveries", headers=other_ws.headers)
    assert_envelope(theirs, 404, "not_found")
    assert (await client.get("/v1/webhooks", headers=other_ws.headers)).json()["webhooks"] == []


async def test_a_webhook_gets_only_the_kinds_it_names(
    client: httpx.AsyncClient, ws: Workspace, receivers: list[tuple[Receiver, str]]
) -> None:
    receiver, url = receivers[0]
    hook = await register(client, ws, url + "/hook", eventTypes=["record_deleted"])
    assert hook["eventTypes"] == ["record_deleted"]
    made = (await client.post(RECORDS, headers=ws.headers, json=BODY)).json()["record"]
    await client.delete(f"{RECORDS}/{made['recordId']}", headers=ws.headers)
    await receiver.wait_for(1)
    event = orjson.loads(receiver.got[0][2])
    assert event["activityType"] == "record_deleted" and event["recordId"] == made["recordId"]
    # the create came first: had it matched, it would be queued before the delete
    log = (await client.get(f"/v1/webhooks/{hook['id']}/deliveries", headers=ws.headers)).json()
    assert [d["event"]["activityType"] for d in log["deliveries"]] == ["record_deleted"]


async def test_deliveries_survive_a_restart(
    settings: Settings, receivers: list[tuple[Receiver, str]]
) -> None:
    receiver, address = receivers[0]
    # the port nothing listens on is allowed too
    settings = replace(settings, webhook_allow_hosts=(*settings.webhook_allow_hosts, "127.0.0.1:1"))
    async with open_runtime(settings) as rt:
        ws = await make_workspace(rt)
        transport = httpx.ASGITransport(app=rt.app)  # type: ignore[arg-type]
        async with httpx.AsyncClient(transport=transport, base_url="http://fh.test") as client:
            # nothing listens on the port yet: the delivery waits in the outbox
            hook = await register(client, ws, "http://127.0.0.1:1/hook")
            await client.post(RECORDS, headers=ws.headers, json=BODY)
            url = f"/v1/webhooks/{hook['id']}/deliveries"
            with trio.fail_after(60):
                while True:
                    if (await client.get(url, headers=ws.headers)).json()["deliveries"]:
                        break
                    await trio.sleep(1)  # mock time: the dispatcher makes its attempt
    async with open_runtime(replace(settings)) as rt:
        # re-point the stored webhook at the receiver that now listens
        rows = await rt.store.list_objects(ws.account_id, "webhook")
        write = ObjectWrite(
            "webhook",
            rows[0].object_id,
            {"url": address + "/hook"},
            "active",
            mode="update",
            expect=("active",),
        )
        await rt.actors.ask(ApplyObjects((write,), by=ws.system))
        await receiver.wait_for(1)
    event = orjson.loads(receiver.got[0][2])
    assert event["activityType"] == "record_created"
    verify(hook["secret"], receiver.got[0][1], receiver.got[0][2])


def _delivered(hook_id: str, seq: int) -> dict[str, Any]:
    event = {"workspaceId": "w", "seq": seq, "activityType": "record_created"}
    return {"webhookId": hook_id, "event": event, "attemptCount": 1, "attempts": []}


async def test_a_hooks_log_holds_its_own_deliveries_among_many_of_another(
    client: httpx.AsyncClient,
    runtime: Runtime,
    ws: Workspace,
    receivers: list[tuple[Receiver, str]],
) -> None:
    _, url = receivers[0]
    mine = await register(client, ws, url + "/mine")
    busy = await register(client, ws, url + "/busy")
    at = "2026-01-01T00:00:00.000000Z"
    async with runtime.store.write(ws.account_id) as txn:
        await txn.put_object(
            ObjectRow(
                ws.account_id,
                DELIVERY,
                f"{mine['id']}-1",
                _delivered(mine["id"], 1),
                "failed",
                None,
                at,
                at,
            )
        )
        for seq in range(2, 1200):  # all newer than mine's, as a busy hook's would be
            later = f"2026-01-02T00:00:{seq % 60:02d}.{seq:06d}Z"
            await txn.put_object(
                ObjectRow(
                    ws.account_id,
                    DELIVERY,
                    f"{busy['id']}-{seq}",
                    _delivered(busy["id"], seq),
                    "delivered",
                    None,
                    later,
                    later,
                )
            )
    log = (await client.get(f"/v1/webhooks/{mine['id']}/deliveries", headers=ws.headers)).json()
    assert [d["id"] for d in log["deliveries"]] == [f"{mine['id']}-1"]
    theirs = await client.get(f"/v1/webhooks/{busy['id']}/deliveries", headers=ws.headers)
    ids = [d["id"] for d in theirs.json()["deliveries"]]
    assert len(ids) == 100 and all(i.startswith(busy["id"]) for i in ids)
