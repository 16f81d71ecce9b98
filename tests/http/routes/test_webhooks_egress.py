"""Where webhooks may point: internal targets refused at registration and at delivery, the
allow-list, the scope that changes webhooks, and URL credentials kept out of answers."""

from __future__ import annotations

import base64

import httpx
import pytest
import trio

from fieldhouse.actors.object_ops import ApplyObjects, ObjectWrite
from fieldhouse.config import Settings
from fieldhouse.runtime import Runtime
from fieldhouse.webhooks import WEBHOOK
from tests.conftest import Workspace, add_user
from tests.http.routes.webhook_support import (
    Receiver,
    allowing,
    deliveries,
    register,
    settled,
    start_receivers,
)
from tests.http.test_auth import assert_envelope

RECORDS = "/v1/modules/contacts/records"
BODY = {"displayName": "Ada", "fields": {"first-name": "Ada"}}
HOOKS = "/v1/webhooks"


@pytest.fixture
async def receivers(nursery: trio.Nursery) -> list[tuple[Receiver, str]]:
    return await start_receivers(nursery)


@pytest.fixture
async def settings(settings: Settings, receivers: list[tuple[Receiver, str]]) -> Settings:
    """Only the first receiver is allowed: the second is a loopback port nobody named."""
    return allowing(settings, receivers[:1])


# every kind of internal target, as a URL and the start of the message that refuses it
REFUSED = [
    ("http://127.0.0.1:8080/hook", "127.0.0.1 is a loopback address"),
    ("http://2130706433/", "127.0.0.1 is a loopback address"),  # 127.0.0.1 as one number
    ("http://0x7f.1/", "127.0.0.1 is a loopback address"),
    ("http://[::1]:8080/", "::1 is a loopback address"),
    ("http://[::ffff:127.0.0.1]/", "::ffff:7f00:1 is a loopback address"),
    ("http://localhost:8080/", "localhost is a loopback name"),
    ("https://LOCALHOST./", "localhost. is a loopback name"),
    ("http://admin.localhost/", "admin.localhost is a loopback name"),
    ("http://10.0.0.1/", "10.0.0.1 is a private address"),
    ("http://172.16.5.4:9200/", "172.16.5.4 is a private address"),
    ("http://192.168.1.1/", "192.168.1.1 is a private address"),
    ("http://[fd12:3456::1]/", "fd12:3456::1 is a private address"),
    ("http://[64:ff9b::a00:1]/", "64:ff9b::a00:1 is a private address"),
    ("http://169.254.169.254/latest/meta-data/", "169.254.169.254 is a cloud metadata address"),
    ("http://[fd00:ec2::254]/", "fd00:ec2::254 is a cloud metadata address"),
    ("http://100.100.100.200/", "100.100.100.200 is a cloud metadata address"),
    ("http://169.254.10.1/", "169.254.10.1 is a link-local address"),
    ("http://[fe80::1]/", "fe80::1 is a link-local address"),
    ("http://224.0.0.251/", "224.0.0.251 is a multicast address"),
    ("http://[ff02::1]/", "ff02::1 is a multicast address"),
    ("http://0.0.0.0:8080/", "0.0.0.0 is the unspecified address"),
    ("http://[::]/", ":: is the unspecified address"),
    ("http://100.64.0.1/", "100.64.0.1 is not a public address"),
]


async def test_internal_targets_are_refused_at_registration(
    client: httpx.AsyncClient, ws: Workspace
) -> None:
    for url, message in REFUSED:
        resp = await client.post(HOOKS, headers=ws.headers, json={"url": url})
        issues = assert_envelope(resp, 400, "validation_error")["issues"]
        assert isinstance(issues, list) and len(issues) == 1, url
        assert issues[0]["code"] == "refused_target" and issues[0]["path"] == ["url"], url
        assert issues[0]["message"] == (
            f"{message}: a webhook may only target public addresses (the server's operator"
            " can allow a host with FIELDHOUSE_WEBHOOK_ALLOW_HOSTS)"
        ), url
    assert (await client.get(HOOKS, headers=ws.headers)).json()["webhooks"] == []
    # public addresses pass, and so does a name that does not resolve yet (every delivery
    # resolves it again)
    for url in ("https://8.8.8.8/hook", "https://[2001:4860:4860::8888]/", "https://a.invalid/"):
        await register(client, ws, url)


async def test_the_allow_list_names_exact_targets(
    client: httpx.AsyncClient, ws: Workspace, receivers: list[tuple[Receiver, str]]
) -> None:
    (_, allowed), (_, other) = receivers
    port = allowed.rpartition(":")[2]
    await register(client, ws, allowed + "/hook")
    for url, message in [
        (other + "/hook", "127.0.0.1 is a loopback address"),  # another port
        (f"http://localhost:{port}/hook", "localhost is a loopback name"),  # another name
    ]:
        resp = await client.post(HOOKS, headers=ws.headers, json={"url": url})
        error = assert_envelope(resp, 400, "validation_error")
        assert str(error["message"]).startswith(f"Validation failed: url: {message}: ")


async def test_a_target_refused_at_delivery_is_not_contacted(
    client: httpx.AsyncClient,
    runtime: Runtime,
    ws: Workspace,
    receivers: list[tuple[Receiver, str]],
) -> None:
    """Hooks that point inside (registered before the rules, or while the allow-list named
    them) fail at their first attempt without a connection: the log reads the same whether
    the port is open or not."""
    (_, allowed), (inside, open_port) = receivers
    targets = {
        "open": open_port + "/hook",
        "closed": "http://127.0.0.1:1/hook",
        "named": open_port.replace("127.0.0.1", "localhost") + "/hook",
    }
    hooks = {}
    for name, target in targets.items():
        hook = await register(client, ws, allowed + "/hook")
        write = ObjectWrite(
            WEBHOOK, hook["id"], {"url": target}, "active", mode="update", expect=("active",)
        )
        await runtime.actors.ask(ApplyObjects((write,), by=ws.system))
        hooks[name] = hook["id"]
    await client.post(RECORDS, headers=ws.headers, json=BODY)
    logs = {name: await settled(client, ws, hook_id) for name, hook_id in hooks.items()}
    for name, delivery in logs.items():
        assert delivery["status"] == "failed" and delivery["attemptCount"] == 1, name
        [attempt] = delivery["attempts"]
        assert attempt["refused"] is True and "statusCode" not in attempt, name
    errors = {name: d["attempts"][0]["error"] for name, d in logs.items()}
    assert errors == {
        "open": "refused: 127.0.0.1 is a loopback address; nothing was sent",
        "closed": "refused: 127.0.0.1 is a loopback address; nothing was sent",
        "named": "refused: localhost is a loopback name; nothing was sent",
    }
    assert inside.got == []


async def test_changing_webhooks_needs_a_write_scope(
    client: httpx.AsyncClient,
    runtime: Runtime,
    ws: Workspace,
    receivers: list[tuple[Receiver, str]],
) -> None:
    receiver, url = receivers[0]
    # (the users made below are activity too)
    hook = await register(client, ws, url + "/hook", eventTypes=["record_created"])
    await client.post(RECORDS, headers=ws.headers, json=BODY)
    await receiver.wait_for(1)
    [delivery] = await deliveries(client, ws, hook["id"])
    reader = await add_user(runtime, ws, "admin", ("workspace:read",))
    replay = f"{HOOKS}/{hook['id']}/deliveries/{delivery['id']}/replay"
    for method, path, body in [
        ("POST", HOOKS, {"url": url + "/other"}),
        ("DELETE", f"{HOOKS}/{hook['id']}", None),
        ("POST", replay, None),
    ]:
        resp = await client.request(method, path, headers=reader.headers, json=body)
        error = assert_envelope(resp, 403, "forbidden")
        assert error["message"] == "This credential lacks the 'records:write' scope", path
    # reading stays open to that key, and nothing changed
    listed = await client.get(HOOKS, headers=reader.headers)
    assert [h["id"] for h in listed.json()["webhooks"]] == [hook["id"]]
    assert len(await deliveries(client, reader, hook["id"])) == 1
    writer = await add_user(runtime, ws, "admin", ("workspace:read", "records:write"))
    assert (await client.post(replay, headers=writer.headers)).status_code == 200
    assert (await client.delete(f"{HOOKS}/{hook['id']}", headers=writer.headers)).status_code == 204


async def test_url_credentials_are_used_but_never_shown(
    client: httpx.AsyncClient, ws: Workspace, receivers: list[tuple[Receiver, str]]
) -> None:
    receiver, url = receivers[0]
    hidden = url.replace("http://", "http://hook-user:s3cret-pass@") + "/hook?x=1"
    made = await client.post(HOOKS, headers=ws.headers, json={"url": hidden})
    listed = await client.get(HOOKS, headers=ws.headers)
    shown = url.replace("http://", "http://***@") + "/hook?x=1"
    assert made.json()["webhook"]["url"] == shown
    assert [h["url"] for h in listed.json()["webhooks"]] == [shown]
    for resp in (made, listed):
        assert "s3cret" not in resp.text and "hook-user" not in resp.text
    await client.post(RECORDS, headers=ws.headers, json=BODY)
    await receiver.wait_for(1)
    sent = base64.b64encode(b"hook-user:s3cret-pass").decode()
    assert receiver.got[0][1]["authorization"] == f"Basic {sent}"
