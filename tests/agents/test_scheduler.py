"""The scheduler: reminders fire at their time, scheduled posts go out, e-mails are delivered."""

from __future__ import annotations

import socket
from dataclasses import replace

import trio

from fieldhouse.actors.agent_ops import ApplyObjects, ObjectWrite
from fieldhouse.agents.scheduler import tick
from fieldhouse.runtime import Runtime
from tests.agents.smtp_sink import SmtpSink
from tests.agents.toolkit import activity_types, call, context, objects
from tests.conftest import Workspace

DUE = "2100-01-01T09:00:00Z"
LATER = "2100-01-02T00:00:00.000000Z"


async def test_reminder_fires_at_its_time(runtime: Runtime, ws: Workspace) -> None:
    ctx = await context(runtime, ws)
    made = await call(ctx, "reminders.create", text="Call Ada", dueAt=DUE)
    assert made.status == "ok"
    store, actors, settings = runtime.store, runtime.actors, runtime.settings
    assert await tick(store, actors, settings, "2100-01-01T08:59:59.999999Z") == 0
    assert [r.status for r in await objects(runtime, ws, "reminder")] == ["scheduled"]
    assert await tick(store, actors, settings, "2100-01-01T09:00:00.000000Z") == 1
    (fired,) = await objects(runtime, ws, "reminder")
    assert fired.status == "fired" and fired.data["firedAt"] == "2100-01-01T09:00:00.000000Z"
    assert await tick(store, actors, settings, LATER) == 0
    entries = await runtime.store.list_activity(
        ws.account_id, module_ids=None, record_id=None, types=["reminder_fired"], limit=5
    )
    assert [e["data"]["text"] for e in entries] == ["Call Ada"]


async def test_scheduled_post_is_posted(runtime: Runtime, ws: Workspace) -> None:
    policy = ObjectWrite(
        "policy", "agents", {"autoApprove": ["social.schedule"]}, "active", mode="upsert"
    )
    await runtime.actors.ask(ws.account_id, ApplyObjects((policy,)))
    ctx = await context(runtime, ws)
    post = await call(ctx, "social.draft", network="mastodon", text="Hello")
    await call(ctx, "social.schedule", postId=post.result["post"]["id"], publishAt=DUE)
    assert await tick(runtime.store, runtime.actors, runtime.settings, LATER) == 1
    assert [p.status for p in await objects(runtime, ws, "social_post")] == ["posted"]
    assert "social_posted" in await activity_types(runtime, ws)


async def queue_email(runtime: Runtime, ws: Workspace) -> None:
    policy = ObjectWrite(
        "policy", "agents", {"autoApprove": ["email.send"]}, "active", mode="upsert"
    )
    await runtime.actors.ask(ws.account_id, ApplyObjects((policy,)))
    sent = await call(
        await context(runtime, ws),
        "email.send",
        to=["ada@example.com"],
        cc=["grace@example.com"],
        subject="Quarterly numbers",
        body="Hello Ada,\n.\nAll good.",
    )
    assert sent.status == "ok"


async def test_emails_stay_queued_without_smtp(runtime: Runtime, ws: Workspace) -> None:
    await queue_email(runtime, ws)
    assert runtime.settings.smtp_url is None
    assert await tick(runtime.store, runtime.actors, runtime.settings, LATER) == 0
    assert [e.status for e in await objects(runtime, ws, "email")] == ["queued"]


async def test_emails_are_delivered_by_smtp(runtime: Runtime, ws: Workspace) -> None:
    await queue_email(runtime, ws)
    sink = SmtpSink()
    async with trio.open_nursery() as nursery:
        port = await nursery.start(sink.serve)
        settings = replace(runtime.settings, smtp_url=f"smtp://127.0.0.1:{port}?from=bot@acme.test")
        assert await tick(runtime.store, runtime.actors, settings, LATER) == 1
        nursery.cancel_scope.cancel()
    (message,) = sink.messages
    assert message.sender == "bot@acme.test"
    assert message.recipients == ["ada@example.com", "grace@example.com"]
    assert "Subject: Quarterly numbers" in message.data and "All good." in message.data
    (email,) = await objects(runtime, ws, "email")
    assert email.status == "sent" and email.data["sentAt"]
    assert "email_sent" in await activity_types(runtime, ws)
    # delivered once: a second tick finds nothing queued
    assert await tick(runtime.store, runtime.actors, settings, LATER) == 0


async def test_failed_delivery_is_recorded(runtime: Runtime, ws: Workspace) -> None:
    await queue_email(runtime, ws)
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    settings = replace(runtime.settings, smtp_url=f"smtp://127.0.0.1:{port}")
    assert await tick(runtime.store, runtime.actors, settings, LATER) == 1
    (email,) = await objects(runtime, ws, "email")
    assert email.status == "failed" and "SMTP delivery failed" in email.data["error"]
    assert "email_failed" in await activity_types(runtime, ws)
