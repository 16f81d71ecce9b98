"""Users, roles, API keys, templates, labels and types, written through the workspace actor
directly (no HTTP for the writes), on both backends."""

from __future__ import annotations

import httpx
import pytest

from fieldhouse.actors import admin_ops as ops
from fieldhouse.model.errors import BadRequest, Conflict, NotFound
from fieldhouse.runtime import Runtime
from tests.conftest import Workspace


async def test_a_user_gets_a_key_that_works_until_revoked(
    runtime: Runtime, ws: Workspace, client: httpx.AsyncClient
) -> None:
    user_id = await runtime.actors.ask(ops.CreateUser("b@x.io", "Bea", "member", by=ws.system))
    made = await runtime.actors.ask(ops.CreateApiKey(user_id, None, "bea", by=ws.system))
    headers = {"Authorization": f"Bearer {made.api_key}"}
    me = await client.get("/v1/me", headers=headers)
    assert me.status_code == 200 and me.json()["userId"] == user_id
    keys = await runtime.store.list_api_keys(ws.account_id)
    listed = next(k for k in keys if k["apiKeyId"] == made.api_key_id)
    assert made.api_key not in str(listed)
    assert await runtime.actors.ask(ops.RevokeApiKey(made.api_key_id, by=ws.system)) is True
    assert (await client.get("/v1/me", headers=headers)).status_code == 401
    with pytest.raises(NotFound, match="not found or already revoked"):
        await runtime.actors.ask(ops.RevokeApiKey(made.api_key_id, by=ws.system))


async def test_a_deleted_users_keys_stop_working(
    runtime: Runtime, ws: Workspace, client: httpx.AsyncClient
) -> None:
    user_id = await runtime.actors.ask(ops.CreateUser("c@x.io", "Cy", "viewer", by=ws.system))
    made = await runtime.actors.ask(ops.CreateApiKey(user_id, None, by=ws.system))
    assert await runtime.actors.ask(ops.DeleteUser(user_id, by=ws.system)) is True
    me = await client.get("/v1/me", headers={"Authorization": f"Bearer {made.api_key}"})
    assert me.status_code == 401
    with pytest.raises(NotFound):
        await runtime.actors.ask(ops.DeleteUser(user_id, by=ws.system))


async def test_users_keys_and_roles_are_checked(runtime: Runtime, ws: Workspace) -> None:
    ask = runtime.actors.ask
    with pytest.raises(Conflict, match="'owner@"):
        email = (await runtime.store.list_users(ws.account_id))[0]["email"]
        await ask(ops.CreateUser(email, "Twin", "member", by=ws.system))
    with pytest.raises(BadRequest, match="Unknown role 'pilot'"):
        await ask(ops.CreateUser("p@x.io", "Pi", "pilot", by=ws.system))
    with pytest.raises(BadRequest, match="Unknown scopes: records:drop; known: "):
        await ask(ops.CreateApiKey(ws.owner_id, ("records:drop",), by=ws.system))
    with pytest.raises(Conflict, match="Role 'admin' is built in"):
        await ask(ops.CreateRole("admin", frozenset(), frozenset(), by=ws.system))
    role = await ask(ops.CreateRole("sales", frozenset({"deals"}), frozenset(), by=ws.system))
    user_id = await ask(ops.CreateUser("s@x.io", "Sal", role, by=ws.system))
    assert (await runtime.store.get_user(ws.account_id, user_id)) is not None
    with pytest.raises(Conflict, match="Role 'sales' already exists"):
        await ask(ops.CreateRole("sales", frozenset(), frozenset(), by=ws.system))


async def test_templates_install_once(runtime: Runtime, ws: Workspace) -> None:
    with pytest.raises(Conflict, match="Module 'contacts' is already installed"):
        await runtime.actors.ask(ops.InstallTemplate("contacts", by=ws.system))
    with pytest.raises(NotFound, match="Template 'boats' not found"):
        await runtime.actors.ask(ops.InstallTemplate("boats", by=ws.system))


async def test_labels_and_types_have_unique_names(runtime: Runtime, ws: Workspace) -> None:
    ask = runtime.actors.ask
    label = await ask(ops.CreateLabel("VIP", "#ff0000", by=ws.system))
    assert label["name"] == "VIP"
    assert [x["id"] for x in await runtime.store.list_labels(ws.account_id)] == [label["id"]]
    with pytest.raises(Conflict, match="A label named 'VIP' already exists"):
        await ask(ops.CreateLabel("VIP", by=ws.system))
    kind = await ask(ops.CreateType("Partner", None, "companies", by=ws.system))
    assert kind["moduleId"] is not None
    with pytest.raises(Conflict, match="A type named 'Partner' already exists"):
        await ask(ops.CreateType("Partner", by=ws.system))
    with pytest.raises(NotFound, match="Module 'boats' not found"):
        await ask(ops.CreateType("Dock", None, "boats", by=ws.system))
