"""Users, roles, API keys, templates, labels and types, written through the workspace actor
directly (no HTTP for the writes), on both backends."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from fieldhouse.actors import admin_ops as ops
from fieldhouse.actors.messages import Message
from fieldhouse.actors.module_ops import CreateModule, UpdateModule
from fieldhouse.actors.template_ops import CreateField, DeleteField, ResetToTemplate, UpdateField
from fieldhouse.actors.webhook_ops import CreateWebhook
from fieldhouse.agents.policy import SetPolicy
from fieldhouse.model.agent_policy import Policy
from fieldhouse.model.errors import BadRequest, Conflict, Forbidden, NotFound
from fieldhouse.model.webhooks import Webhook
from fieldhouse.runtime import Runtime
from tests.conftest import Workspace, add_user


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


async def test_the_actor_refuses_admin_messages_to_a_member(
    runtime: Runtime, ws: Workspace
) -> None:
    """Changing users, keys, modules, fields, templates, labels, types, webhooks or the agent
    policy is for owners and admins, checked in the actor whoever sends the message; the
    server itself (the CLI) may."""
    member = await add_user(runtime, ws, "member")
    by, _ = await runtime.services.auth.authenticate(f"Bearer {member.key}")
    assert by is not None
    schemas = await runtime.actors.schemas.get(ws.account_id)
    deals = schemas.get("deals")
    assert deals is not None
    module_id, name = deals.module.module_id, deals.fields[0]
    hook = Webhook("w-1", "https://hooks.example.com/", ("record.created",), "whsec_x", 0)
    admin_only: list[Message[Any]] = [
        ops.CreateUser("d@x.io", "Di", "owner", by=by),
        ops.CreateRole("sales", frozenset(), frozenset(), by=by),
        ops.CreateApiKey(by.user_id, None, "mine", by=by),
        ops.RevokeApiKey(ws.key_id, by=by),
        ops.DeleteUser(ws.owner_id, by=by),
        ops.InstallTemplate("contacts", by=by),
        ops.CreateLabel("Hot", by=by),
        ops.CreateType("Partner", by=by),
        CreateModule("projects", "Projects", by=by),
        UpdateModule(module_id, archived=True, by=by),
        CreateField(module_id, "Region", None, "text", {}, by=by),
        UpdateField(module_id, name.field_id, label="Title", by=by),
        DeleteField(module_id, name.field_id, by=by),
        ResetToTemplate(module_id, by=by),
        CreateWebhook(hook, by=by),
        SetPolicy(Policy(auto_approve=("email.send",)), by=by),
    ]
    newest = await runtime.store.list_activity(
        ws.account_id, module_ids=None, record_id=None, types=(), limit=1
    )
    for message in admin_only:
        with pytest.raises(Forbidden, match=r"^Only workspace owners and admins may do this$"):
            await runtime.actors.ask(message)
    after = await runtime.store.list_activity(
        ws.account_id, module_ids=None, record_id=None, types=(), limit=1
    )
    assert after == newest  # nothing was written
    assert await runtime.actors.ask(ops.CreateLabel("Hot", by=ws.system))
