"""Idempotency-Key: retries get the first answer, never a duplicate."""

from __future__ import annotations

import httpx
import trio

from fieldhouse.runtime import Runtime
from tests.conftest import Workspace, add_user
from tests.http.test_auth import assert_envelope

URL = "/v1/modules/contacts/records"
BODY = {"displayName": "Ada", "fields": {"first-name": "Ada"}}


def keyed(ws: Workspace, key: str) -> dict[str, str]:
    return {**ws.headers, "Idempotency-Key": key}


async def total(client: httpx.AsyncClient, ws: Workspace) -> int:
    resp = await client.get(URL, headers=ws.headers)
    count: int = resp.json()["total"]
    return count


async def test_a_retry_returns_the_first_answer(client: httpx.AsyncClient, ws: Workspace) -> None:
    first = await client.post(URL, headers=keyed(ws, "k-1"), json=BODY)
    assert first.status_code == 201 and "Idempotent-Replayed" not in first.headers
    again = await client.post(URL, headers=keyed(ws, "k-1"), json=BODY)
    assert again.status_code == 201 and again.headers["Idempotent-Replayed"] == "true"
    assert again.json() == first.json()
    assert await total(client, ws) == 1
    # a new key is a new request
    assert (await client.post(URL, headers=keyed(ws, "k-2"), json=BODY)).status_code == 201
    assert await total(client, ws) == 2


async def test_same_key_other_body_is_refused(client: httpx.AsyncClient, ws: Workspace) -> None:
    assert (await client.post(URL, headers=keyed(ws, "k"), json=BODY)).status_code == 201
    other = {**BODY, "displayName": "Bob"}
    resp = await client.post(URL, headers=keyed(ws, "k"), json=other)
    error = assert_envelope(resp, 422, "idempotency_key_reused")
    assert "different request" in str(error["message"])
    assert await total(client, ws) == 1


async def test_errors_are_replayed_and_deletes_too(
    client: httpx.AsyncClient, ws: Workspace
) -> None:
    bad = {"displayName": "No name", "fields": {}}
    first = await client.post(URL, headers=keyed(ws, "bad"), json=bad)
    assert_envelope(first, 400, "validation_error")
    again = await client.post(URL, headers=keyed(ws, "bad"), json=bad)
    assert again.status_code == 400 and again.json() == first.json()
    made = (await client.post(URL, headers=ws.headers, json=BODY)).json()["record"]
    url = f"{URL}/{made['recordId']}"
    assert (await client.delete(url, headers=keyed(ws, "del"))).status_code == 204
    replay = await client.delete(url, headers=keyed(ws, "del"))
    assert replay.status_code == 204 and replay.headers["Idempotent-Replayed"] == "true"
    assert (await client.delete(url, headers=keyed(ws, "del-2"))).status_code == 404


async def test_keys_belong_to_their_key(
    runtime: Runtime, client: httpx.AsyncClient, ws: Workspace, other_ws: Workspace
) -> None:
    member = await add_user(runtime, ws, "admin")
    for who in (ws, member, other_ws):
        resp = await client.post(URL, headers=keyed(who, "shared"), json=BODY)
        assert resp.status_code == 201 and "Idempotent-Replayed" not in resp.headers
    assert await total(client, ws) == 2 and await total(client, other_ws) == 1
    resp = await client.post(URL, headers=keyed(ws, "x" * 256), json=BODY)
    assert_envelope(resp, 400, "bad_request")


async def test_concurrent_retries_run_once(client: httpx.AsyncClient, ws: Workspace) -> None:
    statuses: list[int] = []

    async def send() -> None:
        resp = await client.post(URL, headers=keyed(ws, "race"), json=BODY)
        statuses.append(resp.status_code)
        if resp.status_code == 409:
            assert resp.json()["error"]["code"] == "idempotency_in_progress"
            assert resp.headers["Retry-After"] == "1"

    async with trio.open_nursery() as nursery:
        for _ in range(8):
            nursery.start_soon(send)
    assert 201 in statuses and set(statuses) <= {201, 409}
    assert await total(client, ws) == 1
    final = await client.post(URL, headers=keyed(ws, "race"), json=BODY)
    assert final.status_code == 201 and final.headers["Idempotent-Replayed"] == "true"
