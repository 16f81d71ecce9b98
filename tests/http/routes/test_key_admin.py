"""API keys through /api/keys (issue 34 item 5): a key made here works for its rights and no
more, is listed without its secret, and answers 401 on every server once revoked; no key
makes a key with more rights than its own; only owners and admins manage keys, of their own
workspace only; bad input is a 400 naming the field, with nothing written."""

from __future__ import annotations

from typing import Any, get_args

import httpx
import trio

from fieldhouse.http.routes.key_admin import KEY_NAME_MAX, RoleName, ScopeName
from fieldhouse.model.keys import hash_api_key
from fieldhouse.model.principal import KEY_ROLES, SCOPES
from fieldhouse.runtime import Runtime
from tests.conftest import Workspace, add_user
from tests.http.routes.test_events import second_server
from tests.http.routes.test_module_admin import envelope

URL = "/api/keys"
READ = ["workspace:read", "records:read"]


def bearer(secret: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {secret}"}


async def make_key(
    client: httpx.AsyncClient, ws: Workspace, body: dict[str, Any]
) -> tuple[dict[str, Any], str]:
    resp = await client.post(URL, headers=ws.headers, json=body)
    assert resp.status_code == 201, resp.text
    made = resp.json()
    assert set(made) == {"apiKey", "secret"}
    return made["apiKey"], made["secret"]


async def listed(client: httpx.AsyncClient, ws: Workspace) -> list[dict[str, Any]]:
    resp = await client.get(URL, headers=ws.headers)
    assert resp.status_code == 200, resp.text
    keys: list[dict[str, Any]] = resp.json()["apiKeys"]
    return keys


def test_the_documented_enums_are_the_models() -> None:
    assert get_args(ScopeName) == SCOPES
    assert get_args(RoleName) == KEY_ROLES


async def test_a_new_key_works_for_its_rights_and_is_listed_without_its_secret(
    client: httpx.AsyncClient, ws: Workspace
) -> None:
    key, secret = await make_key(
        client, ws, {"name": "Read-only sync", "role": "viewer", "scopes": READ}
    )
    assert secret.startswith("sk_live_") and secret.startswith(key["prefix"])
    assert key["name"] == "Read-only sync" and key["role"] == "viewer"
    assert key["scopes"] == READ and key["revokedAt"] is None
    assert key["userId"] == ws.owner_id
    ok = await client.get("/v1/modules/contacts/records", headers=bearer(secret))
    assert ok.status_code == 200, ok.text
    # a viewer key may not write, though its maker may
    write = await client.post(
        "/v1/modules/contacts/records",
        headers=bearer(secret),
        json={"displayName": "Nope", "fields": {}},
    )
    envelope(write, 403)
    me = (await client.get("/v1/me", headers=bearer(secret))).json()
    assert me["roleSlugs"] == ["viewer"] and me["apiKeyId"] == key["id"]
    # neither the secret nor its hash is ever listed
    resp = await client.get(URL, headers=ws.headers)
    assert secret not in resp.text and hash_api_key(secret) not in resp.text
    keys = resp.json()["apiKeys"]
    assert [k["id"] for k in keys] == [ws.key_id, key["id"]]
    assert keys[1] == key
    assert keys[0]["role"] == "owner" and keys[0]["name"] == "init"
    assert set(keys[0]) == {
        "id", "name", "prefix", "role", "scopes", "userId", "createdAt", "revokedAt"
    }  # fmt: skip


async def test_the_key_role_is_never_above_its_users_role(
    client: httpx.AsyncClient, runtime: Runtime, ws: Workspace
) -> None:
    admin = await add_user(runtime, ws, "admin")
    key, secret = await make_key(client, admin, {"name": "Ops", "role": "admin"})
    assert key["role"] == "admin" and key["userId"] == admin.owner_id
    me = (await client.get("/v1/me", headers=bearer(secret))).json()
    assert me["roleSlugs"] == ["admin"]
    # the owner's keys without a role of their own act as the owner
    key, secret = await make_key(client, ws, {"name": "Everything"})
    assert key["role"] == "owner" and key["scopes"] is None


async def refused(http: httpx.AsyncClient, secret: str, *, at_once: bool) -> None:
    """The key answers 401 on this server: at once, or (PostgreSQL, another server) as soon
    as the revoke's NOTIFY reaches it: the change epoch travels by LISTEN/NOTIFY there, and
    nothing in this process's trio loop can be awaited for its arrival."""
    with trio.fail_after(5):
        while (resp := await http.get("/v1/me", headers=bearer(secret))).status_code == 200:
            assert not at_once, "the revoked key still worked"
            await trio.sleep(0.005)
    assert envelope(resp, 401)["code"] == "unauthorized"


async def test_revoke_answers_401_at_once_on_every_server(
    client: httpx.AsyncClient, runtime: Runtime, ws: Workspace, backend: str
) -> None:
    key, secret = await make_key(client, ws, {"name": "CI"})

    async with trio.open_nursery() as nursery:
        other: httpx.AsyncClient = await nursery.start(second_server, runtime)
        # both servers have checked the key (and remember it)
        for http in (client, other):
            assert (await http.get("/v1/me", headers=bearer(secret))).status_code == 200
        resp = await other.delete(f"/v1{URL}/{key['id']}", headers=ws.headers)
        assert resp.status_code == 204, resp.text
        for http in (other, client):
            await refused(http, secret, at_once=http is other or backend == "sqlite")
        nursery.cancel_scope.cancel()
    keys = {k["id"]: k for k in await listed(client, ws)}
    assert keys[key["id"]]["revokedAt"] is not None
    assert keys[ws.key_id]["revokedAt"] is None
    # once is enough: again is 409, an unknown id 404
    again = envelope(await client.delete(f"{URL}/{key['id']}", headers=ws.headers), 409)
    assert "revoked already" in again["message"] and again["data"] == {"apiKeyId": key["id"]}
    unknown = "3f0c8a52-7d4e-4b7a-9a0e-5c2b9d1e6f10"
    missing = envelope(await client.delete(f"{URL}/{unknown}", headers=ws.headers), 404)
    assert unknown in missing["message"]
    # both changes are in the activity feed, by the owner
    feed = (await client.get("/v1/activity?limit=50", headers=ws.headers)).json()
    entries = [
        (a["activityType"], a["data"]["apiKeyId"])
        for a in feed["activities"]
        if a["activityType"].startswith("api_key")
    ]
    assert ("api_key_created", key["id"]) in entries
    assert ("api_key_revoked", key["id"]) in entries


async def test_no_key_makes_a_key_with_more_rights_than_its_own(
    client: httpx.AsyncClient, runtime: Runtime, ws: Workspace
) -> None:
    admin = await add_user(runtime, ws, "admin")
    above = await client.post(URL, headers=admin.headers, json={"name": "x", "role": "owner"})
    error = envelope(above, 403)
    assert error["message"].startswith("Your role (admin) may not create a key with role 'owner'")
    assert error["data"] == {"role": "owner", "yourRole": "admin"}
    # an owner key limited to some scopes: only keys with scopes among them
    _, limited = await make_key(
        client, ws, {"name": "limited", "scopes": ["workspace:read", "records:read"]}
    )
    asked = bearer(limited)
    wider = await client.post(
        URL, headers=asked, json={"name": "x", "scopes": ["records:read", "records:write"]}
    )
    error = envelope(wider, 403)
    assert "lacks the scopes records:write" in error["message"]
    assert error["data"]["lackingScopes"] == ["records:write"]
    everything = envelope(await client.post(URL, headers=asked, json={"name": "x"}), 403)
    assert "name them in scopes" in everything["message"]
    narrower = await client.post(URL, headers=asked, json={"name": "y", "scopes": ["records:read"]})
    assert narrower.status_code == 201, narrower.text
    names = [k["name"] for k in await listed(client, ws)]
    assert "x" not in names and "y" in names
    # a viewer key its owner made is not an admin: it manages no keys
    _, viewer = await make_key(client, ws, {"name": "v", "role": "viewer"})
    envelope(await client.post(URL, headers=bearer(viewer), json={"name": "z"}), 403)


async def test_only_owners_and_admins_manage_keys(
    client: httpx.AsyncClient, runtime: Runtime, ws: Workspace
) -> None:
    for role in ("member", "viewer"):
        other = await add_user(runtime, ws, role)
        for method, url, body in (
            ("GET", URL, None),
            ("POST", URL, {"name": "mine"}),
            ("DELETE", f"{URL}/{ws.key_id}", None),
        ):
            resp = await client.request(method, url, headers=other.headers, json=body)
            error = envelope(resp, 403)
            assert "owner" in error["message"] or "admin" in error["message"], error
    assert (await client.get("/v1/me", headers=ws.headers)).status_code == 200
    assert {k["name"] for k in await listed(client, ws)} == {"init", "member", "viewer"}


async def test_another_workspaces_key_is_not_found(
    client: httpx.AsyncClient, ws: Workspace, other_ws: Workspace
) -> None:
    resp = await client.delete(f"{URL}/{other_ws.key_id}", headers=ws.headers)
    error = envelope(resp, 404)
    assert error["message"] == f"API key {other_ws.key_id} not found"
    assert (await client.get("/v1/me", headers=other_ws.headers)).status_code == 200
    assert [k["id"] for k in await listed(client, ws)] == [ws.key_id]


async def test_bad_input_is_a_400_naming_the_field(
    client: httpx.AsyncClient, ws: Workspace
) -> None:
    cases: list[tuple[Any, str]] = [
        ({}, "name"),
        ({"name": ""}, "name"),
        ({"name": "   "}, "name"),
        ({"name": "x" * (KEY_NAME_MAX + 1)}, "name"),
        ({"name": 5}, "name"),
        ({"name": "k", "role": "superuser"}, "role"),
        ({"name": "k", "scopes": ["records:delete"]}, "scopes.0"),
        ({"name": "k", "scopes": []}, "scopes"),
        ({"name": "k", "scopes": "records:read"}, "scopes"),
    ]
    for body, field in cases:
        error = envelope(await client.post(URL, headers=ws.headers, json=body), 400)
        paths = [".".join(map(str, issue["path"])) for issue in error["issues"]]
        assert field in paths, (body, error)
    error = envelope(await client.post(URL, headers=ws.headers, json={"name": "k", "x": 1}), 400)
    assert error["issues"][0]["keys"] == ["x"]
    error = envelope(await client.delete(f"{URL}/not-a-uuid", headers=ws.headers), 400)
    assert error["issues"][0]["path"] == ["keyId"]
    assert [k["id"] for k in await listed(client, ws)] == [ws.key_id]
