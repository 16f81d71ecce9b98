"""The scheduler: reminders fire at their time, scheduled posts go out, e-mails are delivered."""

from __future__ import annotations

import socket
from dataclasses import replace
from functools import partial

import trio
import trio.testing

from fieldhouse.actors.admin_ops import DeleteUser
from fieldhouse.actors.object_ops import ApplyObjects, ObjectWrite
from fieldhouse.agents.registry import build_executor
from fieldhouse.agents.resume import prepare_resume
from fieldhouse.agents.run import AgentRun, AgentRuntime, RunRequest
from fieldhouse.agents.run_writes import AGENT_RUN
from fieldhouse.agents.scheduler import run_scheduler, tick
from fieldhouse.runtime import Runtime
from tests.agents.smtp_sink import SmtpSink
from tests.agents.test_lease import InFlight
from tests.agents.toolkit import activity_types, call, context, objects, principal_of
from tests.conftest import Workspace, add_user

DUE = "2100-01-01T09:00:00Z"
#: an owner or admin other than the one whose calls the policy lets through
SETTER = "00000000-0000-4000-8000-0000000000a1"
LATER = "2100-01-02T00:00:00.000000Z"
PAST = "2000-01-01T00:00:00.000000Z"


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
        "policy",
        "agents",
        {"autoApprove": ["social.schedule"], "setBy": SETTER},
        "active",
        mode="upsert",
    )
    await runtime.actors.ask(ApplyObjects((policy,), by=ws.system))
    ctx = await context(runtime, ws)
    post = await call(ctx, "social.draft", network="mastodon", text="Hello")
    await call(ctx, "social.schedule", postId=post.result["post"]["id"], publishAt=DUE)
    assert await tick(runtime.store, runtime.actors, runtime.settings, LATER) == 1
    assert [p.status for p in await objects(runtime, ws, "social_post")] == ["posted"]
    assert "social_posted" in await activity_types(runtime, ws)


async def queue_email(runtime: Runtime, ws: Workspace) -> None:
    policy = ObjectWrite(
        "policy",
        "agents",
        {"autoApprove": ["email.send"], "setBy": SETTER},
        "active",
        mode="upsert",
    )
    await runtime.actors.ask(ApplyObjects((policy,), by=ws.system))
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


async def test_a_deleted_users_queued_email_is_not_sent(runtime: Runtime, ws: Workspace) -> None:
    """Issue 32 item 1: an e-mail goes out only while its requester may still act."""
    member = await add_user(runtime, ws, "member")
    await queue_email(runtime, member)
    await runtime.actors.ask(DeleteUser(member.owner_id, by=ws.system))
    sink = SmtpSink()
    async with trio.open_nursery() as nursery:
        port = await nursery.start(sink.serve)
        settings = replace(runtime.settings, smtp_url=f"smtp://127.0.0.1:{port}")
        assert await tick(runtime.store, runtime.actors, settings, LATER) == 1
        nursery.cancel_scope.cancel()
    assert sink.messages == []
    (email,) = await objects(runtime, ws, "email")
    assert email.status == "failed" and "can no longer act" in email.data["error"]


async def test_approvals_past_their_expiry_are_stored_expired(
    runtime: Runtime, ws: Workspace
) -> None:
    """Issue 32 item 5: the scheduler writes the expiry down (it used to stay ``pending``)."""
    pending = await call(await context(runtime, ws), "email.send", to=["a@example.com"],
                         subject="S", body="B")  # fmt: skip
    assert pending.approval_id is not None
    store, actors, settings = runtime.store, runtime.actors, runtime.settings
    assert await tick(store, actors, settings, "2000-01-01T00:00:00.000000Z") == 0
    assert [a.status for a in await objects(runtime, ws, "approval")] == ["pending"]
    assert await tick(store, actors, settings, LATER) == 1
    (approval,) = await objects(runtime, ws, "approval")
    assert approval.status == "expired"
    assert await tick(store, actors, settings, LATER) == 0


async def test_runs_of_a_dead_process_are_interrupted_at_start_and_resumable(
    runtime: Runtime, ws: Workspace
) -> None:
    """Issue 32 item 2: a run stored ``running`` by a process that died (its lease ran out) is
    stored ``interrupted`` when the scheduler starts, with its call in flight aborted; it is
    resumed and goes on from what it had done."""
    model = InFlight(runtime.store, ws.account_id)
    rt = AgentRuntime(runtime.settings, runtime.actors, runtime.store, model, build_executor())
    run = AgentRun(rt, RunRequest(await principal_of(runtime, ws), "make Ada", None))
    async with trio.open_nursery() as nursery:
        nursery.start_soon(run.execute)
        await model.waiting.wait()
        nursery.cancel_scope.cancel()
    assert model.snapshot is not None and model.snapshot.status == "running"
    assert model.snapshot.due_at is not None  # its lease
    # the database as the SIGKILL left it, read after the lease has run out
    dead = ObjectWrite(
        AGENT_RUN, run.run_id, model.snapshot.data, "running", mode="upsert", due_at=PAST
    )
    await runtime.actors.ask(ApplyObjects((dead,), by=ws.system))
    stop = trio.Event()
    stop.set()
    async with trio.open_nursery() as nursery:
        await nursery.start(partial(run_scheduler, runtime.store, runtime.actors,
                                    runtime.settings, stop=stop))  # fmt: skip
    row = await runtime.store.get_object(ws.account_id, AGENT_RUN, run.run_id)
    assert row is not None and row.status == "interrupted" and row.due_at is None
    assert "stopped" in row.data["error"]
    assert [c["status"] for c in row.data["toolCalls"]] == ["ok"]
    model.release.set()
    resumed = await prepare_resume(rt, await principal_of(runtime, ws), run.run_id)
    response = await resumed.execute()
    assert response["success"] is True and response["response"] == "Done."
    row = await runtime.store.get_object(ws.account_id, AGENT_RUN, run.run_id)
    assert row is not None and row.status == "succeeded"
    assert [c["status"] for c in row.data["toolCalls"]] == ["ok"]
    assert row.data["userId"] == ws.owner_id
