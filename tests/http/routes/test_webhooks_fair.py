"""Fair delivery: a slow receiver holds up only its own webhook's deliveries."""

from __future__ import annotations

import httpx
import orjson
import pytest
import trio

from fieldhouse.config import Settings
from fieldhouse.webhooks import PER_ENDPOINT, SEND_TIMEOUT, WINDOW
from tests.conftest import Workspace
from tests.http.routes.webhook_support import (
    Receiver,
    allowing,
    deliveries,
    register,
    start_receivers,
)

RECORDS = "/v1/modules/contacts/records"
BODY = {"displayName": "Ada", "fields": {"first-name": "Ada"}}


@pytest.fixture
async def receivers(nursery: trio.Nursery) -> list[tuple[Receiver, str]]:
    return await start_receivers(nursery)


@pytest.fixture
async def settings(settings: Settings, receivers: list[tuple[Receiver, str]]) -> Settings:
    return allowing(settings, receivers)


async def test_a_held_receiver_does_not_delay_another_workspaces_deliveries(
    client: httpx.AsyncClient,
    ws: Workspace,
    other_ws: Workspace,
    receivers: list[tuple[Receiver, str]],
) -> None:
    (slow, slow_url), (quick, quick_url) = receivers
    slow.hold = trio.Event()
    held = await register(client, ws, slow_url + "/hook")
    await register(client, other_ws, quick_url + "/hook")
    for _ in range(PER_ENDPOINT + 2):
        await client.post(RECORDS, headers=ws.headers, json=BODY)
    await slow.wait_for(PER_ENDPOINT)  # as many as one webhook may have in flight
    await client.post(RECORDS, headers=other_ws.headers, json=BODY)
    with trio.fail_after(SEND_TIMEOUT / 2):  # (sent one at a time, it would wait for those)
        await quick.wait_for(1)
    # it arrived while the slow receiver still held every request it had been sent, and no
    # more than PER_ENDPOINT of those were sent at once
    assert slow.answered == 0 and len(slow.got) == PER_ENDPOINT
    log = await deliveries(client, ws, held["id"])
    assert len(log) == PER_ENDPOINT + 2 and all(d["attemptCount"] == 0 for d in log)
    slow.hold.set()
    await slow.wait_for(PER_ENDPOINT + 2)
    # each once: none of the held ones timed out and was sent again
    sent = [h["fieldhouse-delivery-id"] for _, h, _ in slow.got]
    assert len(set(sent)) == len(sent) == PER_ENDPOINT + 2


async def test_a_backlog_waits_in_the_activity_log_and_all_of_it_is_delivered(
    client: httpx.AsyncClient, ws: Workspace, receivers: list[tuple[Receiver, str]]
) -> None:
    """A webhook has at most WINDOW deliveries pending, so its backlog cannot crowd others
    out of the outbox; the rest follows as those are settled, in order, each once."""
    slow, url = receivers[0]
    slow.hold = trio.Event()
    hook = await register(client, ws, url + "/hook", eventTypes=["record_created"])
    made = [
        (await client.post(RECORDS, headers=ws.headers, json=BODY)).json()["record"]["recordId"]
        for _ in range(WINDOW + 5)
    ]
    await slow.wait_for(PER_ENDPOINT)
    with trio.fail_after(10):  # the dispatcher queues them a pass at a time: polled
        while True:
            log = await deliveries(client, ws, hook["id"])
            if len(log) >= WINDOW:
                break
            await trio.sleep(0.05)
    assert len(log) == WINDOW and all(d["status"] == "pending" for d in log)
    slow.hold.set()
    await slow.wait_for(WINDOW + 5)
    sent = [orjson.loads(body)["recordId"] for _, _, body in slow.got]
    assert sorted(sent) == sorted(made)
