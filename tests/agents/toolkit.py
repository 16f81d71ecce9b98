"""Helpers for the agent tool tests: a principal from a real key, a context, one call; a
session and a second key of one user; an approval to store or decide."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from fieldhouse.actors.admin_ops import CreateApiKey
from fieldhouse.actors.object_ops import ApplyObjects, ObjectWrite
from fieldhouse.agents.contract import ToolCall, ToolContext, ToolOutcome
from fieldhouse.agents.registry import GatedExecutor, build_executor
from fieldhouse.http.auth import issue_token, jwt_secret
from fieldhouse.model.agents import Approval, ApprovalStatus
from fieldhouse.model.principal import Principal, Role
from fieldhouse.runtime import Runtime
from fieldhouse.storage.objects import ObjectRow
from tests.conftest import Workspace


def approval(status: ApprovalStatus, **changes: Any) -> Approval:
    """Approval ``ap-1`` of an e-mail to ada@example.com, asked for with key ``key-asking`` by
    call ``call-1`` of run ``run-1``, expiring in 2100; ``changes`` set other values."""
    made = Approval(
        approval_id="ap-1",
        tool="email.send",
        arguments={"to": ["ada@example.com"]},
        args_hash="hash-1",
        status=status,
        description="Sending an e-mail to ada@example.com",
        preview={},
        run_id="run-1",
        call_id="call-1",
        agent_id=None,
        requested_by=None,
        requested_key="key-asking",
        requested_at="2026-01-01T00:00:00.000000Z",
        expires_at="2100-01-01T00:00:00.000000Z",
    )
    return made.but(**changes)


def approver(account_id: str, user_id: str = "approver", key: str | None = None) -> Principal:
    """An owner of the workspace deciding approvals (in a session when ``key`` is None)."""
    owner = Role("owner", None, None)
    method = "api_key" if key else "jwt"
    return Principal(account_id, user_id, user_id, owner, None, method, key, key or user_id)


async def principal_of(runtime: Runtime, ws: Workspace) -> Principal:
    principal, _ = await runtime.services.auth.authenticate(f"Bearer {ws.key}")
    return principal


async def context(runtime: Runtime, ws: Workspace, run_id: str = "run-1") -> ToolContext:
    return ToolContext(
        principal=await principal_of(runtime, ws),
        actors=runtime.actors,
        store=runtime.store,
        settings=runtime.settings,
        run_id=run_id,
        agent_id=None,
    )


def executor(runtime: Runtime) -> GatedExecutor:
    return build_executor()


async def call(ctx: ToolContext, name: str, /, **arguments: Any) -> ToolOutcome:
    return await build_executor().execute(ToolCall("c1", name, arguments), ctx)


async def objects(
    runtime: Runtime, ws: Workspace, kind: str, status: str | None = None
) -> list[ObjectRow]:
    return await runtime.store.list_objects(ws.account_id, kind, status=status)


async def activity_types(runtime: Runtime, ws: Workspace) -> list[str]:
    entries = await runtime.store.list_activity(
        ws.account_id, module_ids=None, record_id=None, types=(), limit=200
    )
    return [e["activityType"] for e in entries]


async def expire(runtime: Runtime, ws: Workspace, approval_id: str) -> None:
    """Move a pending approval's expiry into the past; nothing marks it expired yet."""
    past = ObjectWrite(
        "approval",
        approval_id,
        {"expiresAt": "2000-01-01T00:00:00.000000Z"},
        "pending",
        mode="update",
        expect=("pending",),
    )
    await runtime.actors.ask(ApplyObjects((past,), by=ws.system))


async def session_of(runtime: Runtime, ws: Workspace) -> dict[str, str]:
    """Headers of a session (JWT) of the workspace's user ``ws.owner_id``."""
    secret = await jwt_secret(runtime.store, runtime.settings, runtime.backend)
    return {"Authorization": f"Bearer {issue_token(secret, ws.account_id, ws.owner_id, 600)}"}


async def another_key(runtime: Runtime, ws: Workspace) -> Workspace:
    """The same user with a second key of every scope."""
    made = await runtime.actors.ask(CreateApiKey(ws.owner_id, None, by=ws.system))
    return replace(ws, key=made.api_key, key_id=made.api_key_id)
