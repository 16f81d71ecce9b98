"""Time-driven agent work: reminders fire, scheduled social posts go out, e-mails are sent,
approvals past their expiry are stored ``expired``, and runs whose process died are stored
``interrupted``.

One :func:`tick` does everything due at a given moment, through the workspace actors; the
service loop :func:`run_scheduler` sweeps the dead runs at once when it starts, then ticks
every ``settings.scheduler_interval`` seconds. Every change is a status transition checked
inside the actor's transaction, so two processes over one database never fire a reminder or
send an e-mail twice, and a run whose lease was renewed meanwhile is left running.

An e-mail or a scheduled post goes out only while the user who asked for it may still act:
once their key is revoked or their user deleted it is stored ``failed`` (e-mail) or left
unposted, with the reason, and nothing is sent.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial

import trio

from fieldhouse.actors.messages import Message
from fieldhouse.actors.object_ops import ApplyObjects, ObjectWrite
from fieldhouse.actors.system import ActorSystem
from fieldhouse.agents.requester import Requester, current_rights
from fieldhouse.agents.run_writes import AGENT_RUN, InterruptRun
from fieldhouse.agents.smtp import DeliveryFailed, send_email
from fieldhouse.agents.writes import APPROVAL, ExpireApproval
from fieldhouse.config import Settings
from fieldhouse.model.activity import ActivityKind
from fieldhouse.model.agents import (
    EMAIL,
    POST,
    ApprovalStatus,
    EmailStatus,
    PostStatus,
    ReminderStatus,
    RunStatus,
)
from fieldhouse.model.clock import now_iso
from fieldhouse.model.errors import ApiError
from fieldhouse.model.principal import SystemActor
from fieldhouse.model.reminders import REMINDER, Reminder
from fieldhouse.storage.objects import ObjectRow
from fieldhouse.storage.store import Store

log = logging.getLogger("fieldhouse.agents.scheduler")


def _scheduler(row: ObjectRow) -> SystemActor:
    """Who acts when the scheduler moves an object: the server, in the object's workspace."""
    return SystemActor(row.account_id, "scheduler")


async def _move(actors: ActorSystem, row: ObjectRow, write: ObjectWrite) -> bool:
    """Apply one transition; False when another process (or tick) got there first."""
    try:
        await actors.ask(ApplyObjects((write,), by=_scheduler(row)))
    except ApiError as exc:
        log.info("skipped %s %s: %s", row.kind, row.object_id, exc.message)
        return False
    return True


async def _ask(actors: ActorSystem, row: ObjectRow, message: Message[bool]) -> bool:
    try:
        changed: bool = await actors.ask(message)
    except ApiError as exc:
        log.info("skipped %s %s: %s", row.kind, row.object_id, exc.message)
        return False
    return changed


async def sweep_runs(store: Store, actors: ActorSystem, now: str) -> int:
    """Store ``interrupted`` every running run whose lease ran out by ``now``: the process
    that ran it died (a live one renews its leases). Returns how many."""
    done = 0
    for row in await store.due_objects(AGENT_RUN, RunStatus.RUNNING, now):
        done += await _ask(actors, row, InterruptRun(row.object_id, now, by=_scheduler(row)))
    return done


async def _requester_gone(store: Store, row: ObjectRow) -> bool:
    """Whether the user who asked for this object can no longer act (key revoked, user
    deleted, or no longer allowed to use the agent)."""
    d = row.data
    requester = Requester.stored(
        row.account_id, d.get("createdBy"), d.get("apiKeyId"), d.get("authMethod")
    )
    rights = await current_rights(store, requester)
    return rights is None or not rights.has_scope("agents:write")


GONE = "Not sent: the user who asked for it can no longer act (key revoked or user deleted)"


async def tick(store: Store, actors: ActorSystem, settings: Settings, now: str) -> int:
    """Do everything due at ``now`` (ISO UTC); return how many objects changed."""
    done = await sweep_runs(store, actors, now)
    for row in await store.due_objects(APPROVAL, ApprovalStatus.PENDING, now):
        done += await _ask(actors, row, ExpireApproval(row.object_id, now, by=_scheduler(row)))
    for row in await store.due_objects(REMINDER, ReminderStatus.SCHEDULED, now):
        reminder = Reminder.from_row(row)
        fire = ObjectWrite.of(
            reminder.fired(now),
            "update",
            (ReminderStatus.SCHEDULED,),
            activity=ActivityKind.REMINDER_FIRED,
            activity_data={"text": reminder.text, "dueAt": reminder.due_at},
            record_id=reminder.record_id,
        )
        done += await _move(actors, row, fire)
    for row in await store.due_objects(POST, PostStatus.SCHEDULED, now):
        if await _requester_gone(store, row):
            done += await _move(
                actors,
                row,
                ObjectWrite(
                    POST,
                    row.object_id,
                    {"error": GONE.replace("sent", "posted")},
                    PostStatus.DRAFT,
                    mode="update",
                    expect=(PostStatus.SCHEDULED,),
                    due_at=None,
                ),
            )
            continue
        done += await _move(
            actors,
            row,
            ObjectWrite(
                POST,
                row.object_id,
                {"postedAt": now},
                PostStatus.POSTED,
                mode="update",
                expect=(PostStatus.SCHEDULED,),
                activity=ActivityKind.SOCIAL_POSTED,
            ),
        )
    if settings.smtp_url:
        for row in await store.due_objects(EMAIL, EmailStatus.QUEUED, now):
            done += await _deliver(store, actors, settings.smtp_url, row)
    return done


async def _deliver(store: Store, actors: ActorSystem, url: str, row: ObjectRow) -> bool:
    def step(
        status: str, expect: str, data: dict[str, object], activity: ActivityKind | None
    ) -> ObjectWrite:
        return ObjectWrite(
            EMAIL,
            row.object_id,
            data,
            status,
            mode="update",
            expect=(expect,),
            activity=activity,
            activity_data={"subject": row.data.get("subject"), "to": row.data.get("to")},
        )

    # claim it first: of several schedulers only the one whose claim commits sends it
    if not await _move(actors, row, step(EmailStatus.SENDING, EmailStatus.QUEUED, {}, None)):
        return False
    if await _requester_gone(store, row):  # checked when it would go out, not when queued
        failed = step(EmailStatus.FAILED, EmailStatus.SENDING, {"error": GONE}, None)
        await _move(actors, row, failed)
        return True
    try:
        await send_email(url, row.data)
    except DeliveryFailed as exc:
        await _move(
            actors,
            row,
            step(
                EmailStatus.FAILED,
                EmailStatus.SENDING,
                {"error": str(exc)},
                ActivityKind.EMAIL_FAILED,
            ),
        )
        return True
    await _move(
        actors,
        row,
        step(EmailStatus.SENT, EmailStatus.SENDING, {"sentAt": now_iso()}, ActivityKind.EMAIL_SENT),
    )
    return True


async def run_scheduler(
    store: Store,
    actors: ActorSystem,
    settings: Settings,
    *,
    stop: trio.Event | None = None,
    task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Tick every interval until ``stop`` is set (or the task is cancelled); a failing tick is
    logged and the next one tries again. Setting ``stop`` never interrupts a tick halfway."""
    stop = trio.Event() if stop is None else stop
    try:  # the runs a process that died left running, before anything else
        await sweep_runs(store, actors, now_iso())
    except Exception:
        log.exception("sweeping interrupted agent runs failed")
    task_status.started()
    while True:
        with trio.move_on_after(settings.scheduler_interval):
            await stop.wait()
        if stop.is_set():
            return
        try:
            await tick(store, actors, settings, now_iso())
        except Exception:
            log.exception("scheduler tick failed")


@asynccontextmanager
async def open_scheduler(
    store: Store, actors: ActorSystem, settings: Settings
) -> AsyncIterator[None]:
    """Run the scheduler for the duration of the block (not at all when the interval is 0);
    on exit the tick in progress finishes first, so no store call is cut off."""
    if settings.scheduler_interval <= 0:
        yield
        return
    stop = trio.Event()
    async with trio.open_nursery() as nursery:
        await nursery.start(partial(run_scheduler, store, actors, settings, stop=stop))
        try:
            yield
        finally:
            stop.set()
