"""Each tool writes its workspace objects and activity (external ones auto-approved here)."""

from __future__ import annotations

from fieldhouse.actors.agent_ops import ApplyObjects, ObjectWrite
from fieldhouse.agents.contract import ToolContext
from fieldhouse.runtime import Runtime
from tests.agents.toolkit import activity_types, call, context, objects
from tests.conftest import Workspace

FUTURE = "2100-01-01T09:00:00Z"


async def allow_all(runtime: Runtime, ws: Workspace) -> None:
    names = ["email.send", "outreach.schedule", "social.schedule", "social.post", "pages.publish"]
    write = ObjectWrite("policy", "agents", {"autoApprove": names}, "active", mode="upsert")
    await runtime.actors.ask(ws.account_id, ApplyObjects((write,)))


async def ok(ctx: ToolContext, name: str, /, **arguments: object) -> dict[str, object]:
    outcome = await call(ctx, name, **arguments)
    assert outcome.status == "ok", outcome.summary
    assert outcome.summary
    return dict(outcome.result)


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


async def test_social_draft_schedule_post(runtime: Runtime, ws: Workspace) -> None:
    ctx = await context(runtime, ws)
    first = await ok(ctx, "social.draft", network="linkedin", text="We are hiring")
    second = await ok(ctx, "social.draft", network="x", text="Launch day")
    assert (await call(ctx, "social.post", postId=first["post"]["id"])).status == (  # type: ignore[index]
        "pending_approval"
    )
    await allow_all(runtime, ws)
    await ok(ctx, "social.schedule", postId=first["post"]["id"], publishAt=FUTURE)  # type: ignore[index]
    await ok(ctx, "social.post", postId=second["post"]["id"])  # type: ignore[index]
    statuses = {
        r.data["network"]: (r.status, r.due_at) for r in await objects(runtime, ws, "social_post")
    }
    assert statuses["linkedin"] == ("scheduled", "2100-01-01T09:00:00.000000Z")
    assert statuses["x"][0] == "posted"
    bad = await call(ctx, "social.draft", network="myspace", text="x")
    assert bad.status == "error"


async def test_pages_create_sanitises_and_publish(runtime: Runtime, ws: Workspace) -> None:
    ctx = await context(runtime, ws)
    html = '<h1 onclick="evil()">Hi</h1><script>alert(1)</script><a href="javascript:x">l</a>'
    await ok(ctx, "pages.create", slug="launch", title="Launch", html=html)
    (page,) = await objects(runtime, ws, "landing_page")
    assert page.status == "draft"
    assert "<script" not in page.data["html"] and "onclick" not in page.data["html"]
    assert "javascript:" not in page.data["html"] and "<h1>Hi</h1>" in page.data["html"]
    dup = await call(ctx, "pages.create", slug="launch", title="Again", html="<p>x</p>")
    assert dup.status == "error" and "already exists" in dup.summary
    bad_slug = await call(ctx, "pages.create", slug="../etc", title="x", html="<p>x</p>")
    assert bad_slug.status == "error"
    await allow_all(runtime, ws)
    done = await ok(ctx, "pages.publish", slug="launch")
    assert done["page"]["status"] == "published"  # type: ignore[index]
    assert (await call(ctx, "pages.publish", slug="nope")).status == "error"
    assert {"page_created", "page_published"} <= set(await activity_types(runtime, ws))
