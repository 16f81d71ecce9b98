"""Who a run acts for: the requester's rights rebuilt from the store as they are now (the
key's scopes, the user's role), and none once the key is revoked or the user deleted."""

from __future__ import annotations

from fieldhouse.actors import admin_ops as ops
from fieldhouse.agents.requester import Requester, current_rights
from fieldhouse.runtime import Runtime
from tests.agents.toolkit import principal_of
from tests.conftest import Workspace, add_user


async def test_a_key_requester_has_the_key_scopes_and_the_role_now(
    runtime: Runtime, ws: Workspace, other_ws: Workspace
) -> None:
    await runtime.actors.ask(
        ops.CreateRole("sales", frozenset({"deals"}), frozenset(), by=ws.system)
    )
    sales = await add_user(runtime, ws, "sales", ("records:read", "agents:write"))
    asked = await principal_of(runtime, sales)
    requester = Requester.of(asked)
    assert (requester.user_id, requester.api_key_id, requester.auth_method) == (
        sales.owner_id,
        sales.key_id,
        "api_key",
    )
    now = await current_rights(runtime.store, requester)
    assert now is not None and now == asked
    assert not now.can_edit("deals") and not now.has_scope("records:write")
    # the same identity named in another workspace is nobody there
    elsewhere = Requester(other_ws.account_id, sales.owner_id, sales.key_id, "api_key")
    assert await current_rights(runtime.store, elsewhere) is None
    # a key id with another user's id is nobody either
    forged = Requester(ws.account_id, ws.owner_id, sales.key_id, "api_key")
    assert await current_rights(runtime.store, forged) is None
    await runtime.actors.ask(ops.RevokeApiKey(sales.key_id, by=ws.system))
    assert await current_rights(runtime.store, requester) is None


async def test_a_session_requester_has_the_role_until_the_user_is_deleted(
    runtime: Runtime, ws: Workspace
) -> None:
    member = await add_user(runtime, ws, "member")
    requester = Requester(ws.account_id, member.owner_id, None, "jwt")
    now = await current_rights(runtime.store, requester)
    assert now is not None
    assert (now.user_id, now.api_key_id, now.scopes, now.role.slug) == (
        member.owner_id,
        None,
        None,
        "member",
    )
    # what a run or an approval stored before the method was kept: a key's when it has one
    assert Requester.stored(ws.account_id, member.owner_id, None, None) == requester
    assert Requester.stored(ws.account_id, "u", "k", None).auth_method == "api_key"
    await runtime.actors.ask(ops.DeleteUser(member.owner_id, by=ws.system))
    assert await current_rights(runtime.store, requester) is None
    assert await current_rights(runtime.store, Requester(ws.account_id, None, None, "jwt")) is None
