"""The outreach tools: a sequence drafted, then scheduled once approved."""

from __future__ import annotations

from fieldhouse.runtime import Runtime
from tests.agents.toolkit import activity_types, call, context, objects
from tests.agents.tools.support import FUTURE, allow_all, ok
from tests.conftest import Workspace


async def test_outreach_draft_and_schedule(runtime: Runtime, ws: Workspace) -> None:
    ctx = await context(runtime, ws)
    steps = [
        {"subject": "Intro", "body": "Hello"},
        {"subject": "Follow-up", "body": "Again", "delayDays": 3},
    ]
    made = await ok(ctx, "outreach.draft", name="Q1", recipients=["a@x.io", "b@x.io"], steps=steps)
    seq_id = made["sequence"]["id"]  # type: ignore[index]
    pending = await call(ctx, "outreach.schedule", sequenceId=seq_id, startAt=FUTURE)
    assert pending.status == "pending_approval"
    assert await objects(runtime, ws, "email") == []
    await allow_all(runtime, ws)
    await ok(ctx, "outreach.schedule", sequenceId=seq_id, startAt=FUTURE)
    (seq,) = await objects(runtime, ws, "outreach_sequence")
    assert seq.status == "scheduled" and seq.data["emailCount"] == 4
    emails = await objects(runtime, ws, "email", "queued")
    assert sorted(e.due_at or "" for e in emails) == [
        "2100-01-01T09:00:00.000000Z",
        "2100-01-01T09:00:00.000000Z",
        "2100-01-04T09:00:00.000000Z",
        "2100-01-04T09:00:00.000000Z",
    ]
    twice = await call(ctx, "outreach.schedule", sequenceId=seq_id, startAt=FUTURE)
    assert twice.status == "error"
    assert len(await objects(runtime, ws, "email")) == 4
    assert "outreach_scheduled" in await activity_types(runtime, ws)
