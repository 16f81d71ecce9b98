"""The e-mail tools: a draft, then a send once approved."""

from __future__ import annotations

from fieldhouse.runtime import Runtime
from tests.agents.toolkit import activity_types, call, context, objects
from tests.agents.tools.support import allow_all, ok
from tests.conftest import Workspace


async def test_email_draft_then_send(runtime: Runtime, ws: Workspace) -> None:
    ctx = await context(runtime, ws)
    made = await ok(ctx, "email.draft", to=["ada@example.com"], subject="Hi", body="Hello")
    draft_id = made["email"]["id"]  # type: ignore[index]
    (draft,) = await objects(runtime, ws, "email")
    assert draft.status == "draft" and draft.due_at is None
    await allow_all(runtime, ws)
    await ok(
        ctx, "email.send", to=["ada@example.com"], subject="Hi!", body="Hello", draftId=draft_id
    )
    (sent,) = await objects(runtime, ws, "email")
    assert sent.object_id == draft_id and sent.status == "queued"
    assert sent.data["subject"] == "Hi!" and sent.due_at is not None
    # a queued e-mail is no draft any more
    again = await call(
        ctx, "email.send", to=["ada@example.com"], subject="Hi!", body="x", draftId=draft_id
    )
    assert again.status == "error" and "queued" in again.summary
    bad = await call(ctx, "email.draft", to=["not an address"], subject="Hi", body="x")
    assert bad.status == "error"
    types = await activity_types(runtime, ws)
    assert {"email_drafted", "email_queued", "agent_tool_call"} <= set(types)
