"""Authentication and authorisation as SPEC "Authentication" describes them."""

from __future__ import annotations

import time

import httpx
import jwt

from fieldhouse.actors import admin_ops as ops
from fieldhouse.http.auth import issue_token, jwt_secret
from fieldhouse.runtime import Runtime
from tests.conftest import Workspace, add_user


def assert_envelope(resp: httpx.Response, status: int, code: str) -> dict[str, object]:
    assert resp.status_code == status, resp.text
    body = resp.json()
    assert set(body) == {"error"}
    error = body["error"]
    assert error["code"] == code
    assert error["statusCode"] == status
    assert isinstance(error["message"], str) and error["message"]
    return error  # type: ignore[no-any-return]


async def test_me_with_key(client: httpx.AsyncClient, ws: Workspace) -> None:
    resp = await client.get("/v1/me", headers=ws.headers)
    assert resp.status_code == 200
    assert resp.json() == {
        "userId": ws.owner_id,
        "accountId": ws.account_id,
        "roleSlugs": ["owner"],
        "authMethod": "api_key",
        "apiKeyId": ws.key_id,
        "scopes": ["agents:write", "records:read", "records:write", "workspace:read"],
    }


async def test_missing_and_invalid_credentials(client: httpx.AsyncClient, ws: Workspace) -> None:
    error = assert_envelope(await client.get("/v1/me"), 401, "unauthorized")
    assert "API key" in str(error["message"])
    for header in ("Bearer sk_live_nope-nope-nope-nope", "Basic abc", "Bearer", ws.key):
        resp = await client.get("/v1/me", headers={"Authorization": header})
        assert_envelope(resp, 401, "unauthorized")
    assert_envelope(await client.get("/v1/modules"), 401, "unauthorized")


async def test_revoked_key_stops_on_next_request(
    client: httpx.AsyncClient, runtime: Runtime, ws: Workspace
) -> None:
    assert (await client.get("/v1/me", headers=ws.headers)).status_code == 200
    await runtime.actors.ask(ops.RevokeApiKey(ws.key_id, by=ws.system))
    assert_envelope(await client.get("/v1/me", headers=ws.headers), 401, "unauthorized")


async def test_missing_scope_is_forbidden(
    client: httpx.AsyncClient, runtime: Runtime, ws: Workspace
) -> None:
    limited = await add_user(runtime, ws, "member", scopes=("records:read",))
    error = assert_envelope(await client.get("/v1/me", headers=limited.headers), 403, "forbidden")
    assert "workspace:read" in str(error["message"])
    me = await add_user(runtime, ws, "admin", scopes=("workspace:read",))
    resp = await client.get("/v1/me", headers=me.headers)
    assert resp.status_code == 200
    assert resp.json()["scopes"] == ["workspace:read"]


async def test_scopeless_key_inherits_role(
    client: httpx.AsyncClient, runtime: Runtime, ws: Workspace
) -> None:
    viewer = await add_user(runtime, ws, "viewer")
    resp = await client.get("/v1/me", headers=viewer.headers)
    assert resp.status_code == 200
    assert resp.json()["scopes"] is None
    assert resp.json()["roleSlugs"] == ["viewer"]
    # viewers read but cannot administer
    install = await client.post("/api/templates/contacts/install", headers=viewer.headers)
    assert_envelope(install, 403, "forbidden")


async def test_custom_role_sees_only_its_modules(
    client: httpx.AsyncClient, runtime: Runtime, ws: Workspace
) -> None:
    await runtime.actors.ask(
        ops.CreateRole("sales", frozenset({"deals", "companies"}), frozenset(), by=ws.system)
    )
    sales = await add_user(runtime, ws, "sales")
    resp = await client.get("/v1/modules", headers=sales.headers)
    assert sorted(m["slug"] for m in resp.json()["modules"]) == ["companies", "deals"]
    hidden = await client.get("/v1/modules/contacts", headers=sales.headers)
    assert_envelope(hidden, 404, "not_found")
    assert (await client.get("/v1/modules/deals/fields", headers=sales.headers)).status_code == 200


async def test_session_jwt(client: httpx.AsyncClient, runtime: Runtime, ws: Workspace) -> None:
    secret = await jwt_secret(runtime.store, runtime.settings, runtime.backend)
    token = issue_token(secret, ws.account_id, ws.owner_id, 60)
    resp = await client.get("/v1/me", headers={"Authorization": f"Bearer {token}"})
    assert resp.status_code == 200
    assert resp.json()["authMethod"] == "jwt"
    assert resp.json()["apiKeyId"] is None
    assert resp.json()["scopes"] is None


async def test_bad_jwts_are_refused(
    client: httpx.AsyncClient, runtime: Runtime, ws: Workspace
) -> None:
    secret = await jwt_secret(runtime.store, runtime.settings, runtime.backend)
    now = int(time.time())
    claims = {"iss": "fieldhouse", "sub": ws.owner_id, "acct": ws.account_id, "iat": now}
    forged = jwt.encode(
        {**claims, "exp": now + 60}, "not-the-secret-but-long-enough-for-hs256!", algorithm="HS256"
    )
    expired = jwt.encode({**claims, "exp": now - 5}, secret, algorithm="HS256")
    stranger = issue_token(secret, ws.account_id, "00000000-0000-4000-8000-000000000000", 60)
    for token in (forged, expired, stranger, "a.b.c"):
        resp = await client.get("/v1/me", headers={"Authorization": f"Bearer {token}"})
        assert_envelope(resp, 401, "unauthorized")


async def test_workspaces_do_not_see_each_other(
    client: httpx.AsyncClient, ws: Workspace, other_ws: Workspace
) -> None:
    mine = (await client.get("/v1/modules", headers=ws.headers)).json()["modules"]
    theirs = (await client.get("/v1/modules", headers=other_ws.headers)).json()["modules"]
    assert {m["id"] for m in mine}.isdisjoint({m["id"] for m in theirs})
    me = (await client.get("/v1/me", headers=other_ws.headers)).json()
    assert me["accountId"] == other_ws.account_id
