"""Deciding approvals (the use case behind /api/approvals/{id}/approve|reject): the call runs
as its requester, whether they asked with a key or in a session, with their rights as they are
when it runs; a requester who can no longer act gets nothing run; the approver is a person."""

from __future__ import annotations

import httpx
import pytest

from fieldhouse.actors import admin_ops as ops
from fieldhouse.agents import approve as decisions
from fieldhouse.agents.registry import build_executor
from fieldhouse.model.agents import ApprovalStatus
from fieldhouse.model.errors import Conflict, Forbidden, NotFound
from fieldhouse.runtime import Runtime
from tests.agents.toolkit import another_key, expire, objects, principal_of, session_of
from tests.conftest import Workspace, add_user, make_workspace

MAIL = "send an email to bob@example.com about Pricing"


async def ask_in_session(client: httpx.AsyncClient, runtime: Runtime, who: Workspace) -> str:
    res = await client.post(
        "/v1/agents/messages", json={"message": MAIL}, headers=await session_of(runtime, who)
    )
    assert res.status_code == 200, res.text
    (approval,) = res.json()["pendingApprovals"]
    return str(approval)


async def test_a_call_asked_for_in_a_session_runs_as_its_requester(
    runtime: Runtime, client: httpx.AsyncClient, ws: Workspace
) -> None:
    member = await add_user(runtime, ws, "member")
    admin = await principal_of(runtime, await add_user(runtime, ws, "admin"))
    approval_id = await ask_in_session(client, runtime, member)
    decided = await decisions.approve(
        runtime.services.agents, build_executor(), admin, approval_id, None
    )
    assert decided.outcome is not None and decided.outcome.status == "ok"
    assert decided.approval.requested_auth == "jwt"
    assert decided.approval.decided_by == admin.user_id
    (email,) = await objects(runtime, ws, "email")
    assert email.data["createdBy"] == member.owner_id  # not the approver
    assert email.data["authMethod"] == "jwt"
    # what it gave is kept for the model to read when the run resumes
    assert decided.approval.outcome is not None
    assert decided.approval.outcome["result"]["email"]["id"] == email.object_id


async def test_nothing_runs_for_a_deleted_session_user(
    runtime: Runtime, client: httpx.AsyncClient, ws: Workspace
) -> None:
    member = await add_user(runtime, ws, "member")
    admin = await principal_of(runtime, await add_user(runtime, ws, "admin"))
    approval_id = await ask_in_session(client, runtime, member)
    await runtime.actors.ask(ops.DeleteUser(member.owner_id, by=ws.system))
    with pytest.raises(Conflict, match="revoked, or by a user who has been deleted"):
        await decisions.approve(runtime.services.agents, build_executor(), admin, approval_id, None)
    assert await objects(runtime, ws, "email") == []
    (approval,) = await objects(runtime, ws, "approval")
    assert approval.status == "pending"  # there to be rejected
    rejected = await decisions.reject(runtime.services.agents, admin, approval_id, "Gone")
    assert rejected.approval.status == "rejected"


async def test_the_requester_decides_with_no_key_of_theirs(
    runtime: Runtime, client: httpx.AsyncClient, ws: Workspace
) -> None:
    approval_id = await ask_in_session(client, runtime, ws)
    agents = runtime.services.agents
    for who in (ws, await another_key(runtime, ws)):
        me = await principal_of(runtime, who)
        with pytest.raises(Forbidden, match="asked for this call"):
            await decisions.approve(agents, build_executor(), me, approval_id, None)
        with pytest.raises(Forbidden, match="asked for this call"):
            await decisions.reject(agents, me, approval_id, None)
    assert await objects(runtime, ws, "email") == []


async def test_approvals_are_listed_and_read_as_of_now(
    runtime: Runtime, client: httpx.AsyncClient, ws: Workspace
) -> None:
    member = await add_user(runtime, ws, "member")
    admin = await principal_of(runtime, await add_user(runtime, ws, "admin"))
    agents = runtime.services.agents
    first = await ask_in_session(client, runtime, member)
    second = await ask_in_session(client, runtime, member)
    await expire(runtime, ws, first)
    listed = await decisions.list_approvals(agents, admin, None, None, 50)
    assert [a.approval_id for a in listed] == [second, first]  # newest first
    assert [a.status for a in listed] == [ApprovalStatus.PENDING, ApprovalStatus.EXPIRED]
    expired = await decisions.list_approvals(agents, admin, ApprovalStatus.EXPIRED, None, 50)
    assert [a.approval_id for a in expired] == [first]
    pending = await decisions.list_approvals(agents, admin, ApprovalStatus.PENDING, None, 50)
    assert [a.approval_id for a in pending] == [second]
    assert await decisions.list_approvals(agents, admin, None, "no-such-run", 50) == []
    assert len(await decisions.list_approvals(agents, admin, None, None, 1)) == 1
    assert (await decisions.read_approval(agents, admin, first)).status == ApprovalStatus.EXPIRED
    other = await principal_of(runtime, await make_workspace(runtime, "Other"))
    with pytest.raises(NotFound):
        await decisions.read_approval(agents, other, first)
    assert await decisions.list_approvals(agents, other, None, None, 50) == []
