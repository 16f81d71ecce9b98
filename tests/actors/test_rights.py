"""Who may act, decided by the actor as it writes: the rights a principal has at that moment,
read from the store, not those it carried when it asked; on both backends."""

from __future__ import annotations

from dataclasses import replace

import pytest

from fieldhouse.actors import admin_ops as ops
from fieldhouse.actors.record_ops import CreateRecord
from fieldhouse.actors.rights import RightsMemo, rights_now
from fieldhouse.coordination import LocalCoordination
from fieldhouse.model.errors import Forbidden
from fieldhouse.model.principal import Principal, Role
from fieldhouse.runtime import Runtime
from tests.conftest import Workspace, add_user


async def authenticated(runtime: Runtime, user: Workspace) -> Principal:
    principal, _ = await runtime.services.auth.authenticate(f"Bearer {user.key}")
    assert principal is not None
    return principal


async def test_rights_now_are_the_stored_key_and_user(runtime: Runtime, ws: Workspace) -> None:
    member = await add_user(runtime, ws, "member")
    asked = await authenticated(runtime, member)
    now = await rights_now(runtime.store, ws.account_id, member.owner_id, member.key_id, "api_key")
    assert now == asked  # what the authenticator says, read again
    session = await rights_now(runtime.store, ws.account_id, member.owner_id, None, "jwt")
    assert session is not None and session.api_key_id is None and session.role.slug == "member"
    made = await runtime.actors.ask(
        ops.CreateApiKey(member.owner_id, None, "low", "viewer", by=ws.system)
    )
    lowered = await rights_now(
        runtime.store, ws.account_id, member.owner_id, made.api_key_id, "api_key"
    )
    assert lowered is not None and lowered.role.slug == "viewer"  # the key's own, lower role
    elsewhere = await rights_now(runtime.store, "other", member.owner_id, member.key_id, "api_key")
    assert elsewhere is None
    await runtime.actors.ask(ops.RevokeApiKey(member.key_id, by=ws.system))
    assert (
        await rights_now(runtime.store, ws.account_id, member.owner_id, member.key_id, "api_key")
        is None
    )
    await runtime.actors.ask(ops.DeleteUser(member.owner_id, by=ws.system))
    assert await rights_now(runtime.store, ws.account_id, member.owner_id, None, "jwt") is None


async def test_a_principal_whose_key_was_revoked_since_it_asked_writes_nothing(
    runtime: Runtime, ws: Workspace
) -> None:
    member = await authenticated(runtime, await add_user(runtime, ws, "member"))
    schemas = await runtime.actors.schemas.get(ws.account_id)
    deals = schemas.get("deals")
    assert deals is not None
    fields = {"name": "Late", "stage": "lead"}
    assert await runtime.actors.ask(
        CreateRecord(deals.module.module_id, "On time", fields, by=member)
    )
    assert member.api_key_id is not None
    await runtime.actors.ask(ops.RevokeApiKey(member.api_key_id, by=ws.system))
    with pytest.raises(Forbidden, match="revoked, or its user deleted"):
        await runtime.actors.ask(CreateRecord(deals.module.module_id, "Late", fields, by=member))
    page = await runtime.store.list_activity(
        ws.account_id, module_ids=None, record_id=None, types=("record_created",), limit=10
    )
    assert [e["data"]["displayName"] for e in page] == ["On time"]


async def test_the_rights_are_those_stored_not_those_a_message_claims(
    runtime: Runtime, ws: Workspace
) -> None:
    """A principal carrying a role its user does not have gets the stored role's rights."""
    member = await authenticated(runtime, await add_user(runtime, ws, "member"))
    claims_owner = replace(member, role=Role("owner", None, None))
    with pytest.raises(Forbidden, match="Only workspace owners and admins may do this"):
        await runtime.actors.ask(ops.CreateLabel("Forged", by=claims_owner))
    owner = await authenticated(runtime, ws)
    assert await runtime.actors.ask(ops.CreateLabel("Real", by=owner))


async def test_the_rights_read_are_kept_while_the_change_epoch_stays_put(
    runtime: Runtime, ws: Workspace
) -> None:
    """With an epoch every process sees move at once, what was read is kept until it moves
    (a revoke moves it before it is answered); without one, every call reads the store."""
    member = await authenticated(runtime, await add_user(runtime, ws, "member"))
    coordination = LocalCoordination()
    kept, reads = RightsMemo(runtime.store, coordination.epoch), RightsMemo(runtime.store, None)
    assert await kept.rights(ws.account_id, member) == member
    assert await reads.rights(ws.account_id, member) == member
    assert member.api_key_id is not None
    # revoked through the runtime, whose own epoch moved: not the one ``kept`` watches
    await runtime.actors.ask(ops.RevokeApiKey(member.api_key_id, by=ws.system))
    assert await reads.rights(ws.account_id, member) is None
    assert await kept.rights(ws.account_id, member) == member
    await coordination.bump()
    assert await kept.rights(ws.account_id, member) is None
