"""The reminder tools: create one, list them."""

from __future__ import annotations

from fieldhouse.runtime import Runtime
from tests.agents.toolkit import activity_types, call, context, objects
from tests.agents.tools.support import ok
from tests.conftest import Workspace


async def test_reminders_create_and_list(runtime: Runtime, ws: Workspace) -> None:
    ctx = await context(runtime, ws)
    await ok(ctx, "reminders.create", text="Call Ada", dueAt="2100-01-01T10:00:00+01:00")
    (row,) = await objects(runtime, ws, "reminder")
    assert row.status == "scheduled" and row.due_at == "2100-01-01T09:00:00.000000Z"
    listed = await ok(ctx, "reminders.list", status="scheduled")
    assert [r["text"] for r in listed["reminders"]] == ["Call Ada"]  # type: ignore[attr-defined]
    bad = await call(ctx, "reminders.create", text="x", dueAt="next tuesday")
    assert bad.status == "error" and "dueAt" in bad.summary
    assert "reminder_created" in await activity_types(runtime, ws)
