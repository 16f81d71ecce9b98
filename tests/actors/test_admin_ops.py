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
    user_id = await runtime.actors.ask(ws.account_id, ops.CreateUser("b@x.io", "Bea", "member"))
    made = await runtime.actors.ask(ws.account_id, ops.CreateApiKey(user_id, None, "bea"))
    headers = {"Authorization": f"Bearer {made.api_key}"}
    me = await client.get("/v1/me", headers=headers)
    assert me.status_code == 200 and me.json()["userId"] == user_id
    keys = await runtime.store.list_api_keys(ws.account_id)
    listed = next(k for k in keys if k["apiKeyId"] == made.api_key_id)
    assert made.api_key not in str(listed)
    assert await runtime.actors.ask(ws.account_id, ops.RevokeApiKey(made.api_key_id)) is True
    assert (await client.get("/v1/me", headers=headers)).status_code == 401
    with pytest.raises(NotFound, match="not found or already revoked"):
        await runtime.actors.ask(ws.account_id, ops.RevokeApiKey(made.api_key_id))


async def test_a_deleted_users_keys_stop_working(
    runtime: Runtime, ws: Workspace, client: httpx.AsyncClient
) -> None:
    user_id = await runtime.actors.ask(ws.account_id, ops.CreateUser("c@x.io", "Cy", "viewer"))
    made = await runtime.actors.ask(ws.account_id, ops.CreateApiKey(user_id, None))
    assert await runtime.actors.ask(ws.account_id, ops.DeleteUser(user_id)) is True
    me = await client.get("/v1/me", headers={"Authorization": f"Bearer {made.api_key}"})
    assert me.status_code == 401
    with pytest.raises(NotFound):
        await runtime.actors.ask(ws.account_id, ops.DeleteUser(user_id))


async def test_users_keys_and_roles_are_checked(runtime: Runtime, ws: Workspace) -> None:
    ask = runtime.actors.ask
    with pytest.raises(Conflict, match="'owner@"):
        email = (await runtime.store.list_users(ws.account_id))[0]["email"]
        await ask(ws.account_id, ops.CreateUser(email, "Twin", "member"))
    with pytest.raises(BadRequest, match="Unknown role 'pilot'"):
        await ask(ws.account_id, ops.CreateUser("p@x.io", "Pi", "pilot"))
    with pytest.raises(BadRequest, match="Unknown scopes: records:drop; known: "):
        await ask(ws.account_id, ops.CreateApiKey(ws.owner_id, ("records:drop",)))
    with pytest.raises(Conflict, match="Role 'admin' is built in"):
        await ask(ws.account_id, ops.CreateRole("admin", frozenset(), frozenset()))
    role = await ask(ws.account_id, ops.CreateRole("sales", frozenset({"deals"}), frozenset()))
    user_id = await ask(ws.account_id, ops.CreateUser("s@x.io", "Sal", role))
    assert (await runtime.store.get_user(ws.account_id, user_id)) is not None
    with pytest.raises(Conflict, match="Role 'sales' already exists"):
        await ask(ws.account_id, ops.CreateRole("sales", frozenset(), frozenset()))


async def test_templates_install_once(runtime: Runtime, ws: Workspace) -> None:
    with pytest.raises(Conflict, match="Module 'contacts' is already installed"):
        await runtime.actors.ask(ws.account_id, ops.InstallTemplate("contacts"))
    with pytest.raises(NotFound, match="Template 'boats' not found"):
        await runtime.actors.ask(ws.account_id, ops.InstallTemplate("boats"))


async def test_labels_and_types_have_unique_names(runtime: Runtime, ws: Workspace) -> None:
    ask = runtime.actors.ask
    label = await ask(ws.account_id, ops.CreateLabel("VIP", "#ff0000"))
    assert label["name"] == "VIP"
    assert [x["id"] for x in await runtime.store.list_labels(ws.account_id)] == [label["id"]]
    with pytest.raises(Conflict, match="A label named 'VIP' already exists"):
        await ask(ws.account_id, ops.CreateLabel("VIP"))
    kind = await ask(ws.account_id, ops.CreateType("Partner", None, "companies"))
    assert kind["moduleId"] is not None
    with pytest.raises(Conflict, match="A type named 'Partner' already exists"):
        await ask(ws.account_id, ops.CreateType("Partner"))
    with pytest.raises(NotFound, match="Module 'boats' not found"):
        await ask(ws.account_id, ops.CreateType("Dock", None, "boats"))
