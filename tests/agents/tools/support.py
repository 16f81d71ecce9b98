"""Helpers of the tool tests: every external tool auto-approved, a call that must succeed."""

from __future__ import annotations

from fieldhouse.actors.object_ops import ApplyObjects, ObjectWrite
from fieldhouse.agents.contract import ToolContext
from fieldhouse.runtime import Runtime
from tests.agents.toolkit import call
from tests.conftest import Workspace

FUTURE = "2100-01-01T09:00:00Z"
#: an owner or admin other than the one whose calls the policy lets through
SETTER = "00000000-0000-4000-8000-0000000000a1"


async def allow_all(runtime: Runtime, ws: Workspace) -> None:
    names = ["email.send", "outreach.schedule", "social.schedule", "social.post", "pages.publish"]
    write = ObjectWrite(
        "policy", "agents", {"autoApprove": names, "setBy": SETTER}, "active", mode="upsert"
    )
    await runtime.actors.ask(ApplyObjects((write,), by=ws.system))


async def ok(ctx: ToolContext, name: str, /, **arguments: object) -> dict[str, object]:
    outcome = await call(ctx, name, **arguments)
    assert outcome.status == "ok", outcome.summary
    assert outcome.summary
    return dict(outcome.result)
