"""The workspace actor on its own (no actor system, no HTTP), over a real store on both
backends: messages queued before it starts are drained in batches, so what one commit holds is
known exactly."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest
import trio
import trio.testing

from fieldhouse.actors.context import Event, WriteContext
from fieldhouse.actors.messages import Message
from fieldhouse.actors.workspace import (
    STORE_RETRY_SECONDS,
    OnChange,
    WorkspaceActor,
    nothing_to_tell,
)
from fieldhouse.model.activity import ActivityKind
from fieldhouse.model.clock import new_id
from fieldhouse.model.errors import Conflict, InternalError
from fieldhouse.model.records import RecordRow
from fieldhouse.runtime import Runtime
from fieldhouse.storage import Store, open_database
from tests.conftest import Workspace

#: an activity kind these tests write themselves (no setup writes it)
PROBE = ActivityKind.REMINDER_FIRED


@dataclass(frozen=True)
class Probe(Message[int]):
    """Appends an activity entry; returns its sequence number."""

    tag: str

    async def apply(self, ctx: WriteContext) -> int:
        return await ctx.activity(PROBE, user_id=None, data={"tag": self.tag})


@dataclass(frozen=True)
class LightProbe(Probe):
    """A probe that says it is light (as record creates and updates do)."""

    def light(self) -> bool:
        return True


@dataclass(frozen=True)
class Crash(Message[int]):
    """Writes an activity entry, then fails on a bug (not an ApiError)."""

    async def apply(self, ctx: WriteContext) -> int:
        await ctx.activity(PROBE, user_id=None, data={"tag": "crash"})
        raise RuntimeError("handler bug")


@dataclass(frozen=True)
class Refuse(Message[int]):
    """Writes an activity entry and edits the schema, then refuses with a client error."""

    async def apply(self, ctx: WriteContext) -> int:
        await ctx.activity(PROBE, user_id=None, data={"tag": "refused"})
        await ctx.schema_edited()
        raise Conflict("refused on purpose")


@dataclass(frozen=True)
class InsertRow(Message[int]):
    """Inserts a record under a fixed id (the database refuses a taken one) and an entry."""

    module_id: str
    record_id: str

    async def apply(self, ctx: WriteContext) -> int:
        row = RecordRow(
            self.record_id, ctx.account_id, self.module_id, "row", {}, ctx.now, ctx.now, None, None
        )
        await ctx.txn.insert_record(row)
        return await ctx.activity(PROBE, user_id=None, data={"tag": self.record_id})


@dataclass(frozen=True)
class Create(Message[str]):
    """Inserts a record named ``name`` under a fresh id, with an activity entry, as a create
    does; its id."""

    module_id: str
    name: str

    async def apply(self, ctx: WriteContext) -> str:
        record_id = new_id()
        row = RecordRow(
            record_id, ctx.account_id, self.module_id, self.name, {}, ctx.now, ctx.now, None, None
        )
        await ctx.txn.insert_record(row)
        await ctx.activity(PROBE, user_id=None, data={"tag": record_id})
        return record_id


@dataclass(frozen=True)
class EditSchema(Message[None]):
    async def apply(self, ctx: WriteContext) -> None:
        await ctx.schema_edited()


@dataclass
class Seen:
    """What the actor told the outside world."""

    published: list[list[Event]] = field(default_factory=list)
    schemas: list[tuple[str, int]] = field(default_factory=list)
    batches: list[int] = field(default_factory=list)


async def drain(
    runtime: Runtime,
    ws: Workspace,
    messages: Sequence[Message[Any]],
    *,
    batch_size: int = 16,
    on_change: OnChange = nothing_to_tell,
    store: Store | None = None,
    store_retry_seconds: float = STORE_RETRY_SECONDS,
) -> Seen:
    """Queue the messages, close the mailbox and let a fresh actor serve it to the end (over
    ``store``, the runtime's by default)."""
    send, receive = trio.open_memory_channel[Message[Any]](len(messages))
    for message in messages:
        send.send_nowait(message)
    send.close()
    seen = Seen()
    actor = WorkspaceActor(
        store or runtime.store,
        ws.account_id,
        receive,
        batch_size=batch_size,
        publish=lambda events: seen.published.append(list(events)),
        on_schema=lambda account, version, _: seen.schemas.append((account, version)),
        on_change=on_change,
        on_batch=lambda size, _: seen.batches.append(size),
        store_retry_seconds=store_retry_seconds,
    )
    await actor.run()
    return seen


async def outcome(message: Message[Any]) -> Any:
    """The message's reply: its value, or the error it was answered with."""
    try:
        return await message.reply.wait()
    except Exception as exc:
        return exc


async def probes(runtime: Runtime, ws: Workspace, after: int) -> list[tuple[int, str]]:
    entries = await runtime.store.list_activity(
        ws.account_id, module_ids=None, record_id=None, types=(PROBE,), limit=100, after_seq=after
    )
    return [(e["seq"], e["data"]["tag"]) for e in entries]


async def last_seq(runtime: Runtime, ws: Workspace) -> int:
    (newest,) = await runtime.store.list_activity(
        ws.account_id, module_ids=None, record_id=None, types=(), limit=1
    )
    return int(newest["seq"])


async def test_a_batch_commits_once_in_mailbox_order(runtime: Runtime, ws: Workspace) -> None:
    before = await last_seq(runtime, ws)
    messages = [Probe(str(i), by=ws.system) for i in range(5)]
    seen = await drain(runtime, ws, messages, batch_size=2)
    assert seen.batches == [2, 2, 1]
    assert [await outcome(m) for m in messages] == [before + 1 + i for i in range(5)]
    assert await probes(runtime, ws, before) == [(before + 1 + i, str(i)) for i in range(5)]
    # one publication per committed batch, its events in the order they were written
    assert [[e.seq for e in events] for events in seen.published] == [
        [before + 1, before + 2],
        [before + 3, before + 4],
        [before + 5],
    ]


async def test_a_failing_message_leaves_nothing_and_spares_its_neighbours(
    runtime: Runtime, ws: Workspace, caplog: pytest.LogCaptureFixture
) -> None:
    before = await last_seq(runtime, ws)
    messages: list[Message[Any]] = [
        Probe("a", by=ws.system),
        Crash(by=ws.system),
        Refuse(by=ws.system),
        Probe("b", by=ws.system),
    ]
    with caplog.at_level(logging.ERROR):
        seen = await drain(runtime, ws, messages)
    a, crash, refused, b = [await outcome(m) for m in messages]
    assert isinstance(crash, InternalError)  # a bug is not shown to the caller
    assert isinstance(refused, Conflict) and refused.message == "refused on purpose"
    assert (a, b) == (before + 1, before + 2)  # the failed ones took no number
    assert await probes(runtime, ws, before) == [(before + 1, "a"), (before + 2, "b")]
    assert seen.batches == [4]
    assert [[e.seq for e in events] for events in seen.published] == [[before + 1, before + 2]]
    assert seen.schemas == []  # the refused message's schema edit was rolled back with it
    assert any("Crash failed" in r.getMessage() for r in caplog.records)


async def test_a_lone_failing_message_is_rolled_back(runtime: Runtime, ws: Workspace) -> None:
    before = await last_seq(runtime, ws)
    version = await runtime.store.schema_version(ws.account_id)
    refused = Refuse(by=ws.system)
    seen = await drain(runtime, ws, [refused])
    assert isinstance(await outcome(refused), Conflict)
    assert await last_seq(runtime, ws) == before
    assert await runtime.store.schema_version(ws.account_id) == version
    assert seen == Seen()  # nothing committed: nothing published, no batch counted


async def test_a_write_the_database_refuses_fails_alone(
    runtime: Runtime, ws: Workspace, caplog: pytest.LogCaptureFixture
) -> None:
    _, schemas = await runtime.store.load_schemas(ws.account_id)
    module_id = schemas["deals"].module.module_id
    await drain(runtime, ws, [InsertRow(module_id, "taken", by=ws.system)])
    before = await last_seq(runtime, ws)
    messages = [
        InsertRow(module_id, "free-a", by=ws.system),
        InsertRow(module_id, "taken", by=ws.system),
        Probe("p", by=ws.system),
        InsertRow(module_id, "free-b", by=ws.system),
    ]
    with caplog.at_level(logging.WARNING):
        seen = await drain(runtime, ws, messages)
    free_a, taken, probe, free_b = [await outcome(m) for m in messages]
    assert isinstance(taken, InternalError)
    assert [free_a, probe, free_b] == [before + 1, before + 2, before + 3]
    assert await probes(runtime, ws, before) == [
        (before + 1, "free-a"),
        (before + 2, "p"),
        (before + 3, "free-b"),
    ]
    found = await runtime.store.get_records(ws.account_id, ["free-a", "free-b", "taken"])
    assert sorted(r.record_id for r in found) == ["free-a", "free-b", "taken"]
    # the lax attempt was rolled back unseen: one batch was committed and announced
    assert seen.batches == [4] and len(seen.published) == 1
    assert any("batch retried strictly" in r.getMessage() for r in caplog.records)


async def test_a_schema_change_is_announced_before_anyone_hears_of_the_write(
    runtime: Runtime, ws: Workspace
) -> None:
    version = await runtime.store.schema_version(ws.account_id)
    order: list[str] = []
    edit = EditSchema(by=ws.system)

    async def on_change() -> None:
        # were the reply already out, its waiter would run while this waits
        await trio.testing.wait_all_tasks_blocked()
        order.append("change")

    async def waiter() -> None:
        await edit.reply.wait()
        order.append("reply")

    async with trio.open_nursery() as nursery:
        nursery.start_soon(waiter)
        await trio.testing.wait_all_tasks_blocked()
        seen = await drain(runtime, ws, [edit], on_change=on_change)
    assert order == ["change", "reply"]
    assert seen.schemas == [(ws.account_id, version + 1)]
    assert await runtime.store.schema_version(ws.account_id) == version + 1


async def lock_held_elsewhere(
    runtime: Runtime, ws: Workspace, first: Message[Any], then: Sequence[Message[Any]]
) -> Seen:
    """Run an actor while another process (a second store on the same database) holds the
    workspace's write lock: ``first`` reaches the actor and waits for the lock, ``then``
    arrive meanwhile; the lock is let go and the actor serves the mailbox to the end."""
    send, receive = trio.open_memory_channel[Message[Any]](16)
    seen = Seen()
    actor = WorkspaceActor(
        runtime.store,
        ws.account_id,
        receive,
        batch_size=16,
        publish=lambda events: seen.published.append(list(events)),
        on_schema=lambda account, version, _: None,
        on_batch=lambda size, _: seen.batches.append(size),
    )
    async with trio.open_nursery() as nursery:
        nursery.start_soon(actor.run)
        url = runtime.settings.resolved_database_url
        async with open_database(url) as other, other.write(ws.account_id) as txn:
            await txn.schema_version()  # the first statement takes the lock
            send.send_nowait(first)
            await trio.testing.wait_all_tasks_blocked()  # its batch of one waits
            for message in then:
                send.send_nowait(message)
        send.close()  # the other process committed: the lock is free
    return seen


async def test_what_arrives_while_another_process_holds_the_lock_joins_the_batch(
    runtime: Runtime, ws: Workspace
) -> None:
    before = await last_seq(runtime, ws)
    messages = [Probe(str(i), by=ws.system) for i in range(5)]
    seen = await lock_held_elsewhere(runtime, ws, messages[0], messages[1:])
    # the four that came while it waited were committed with the first, in mailbox order
    assert seen.batches == [5]
    assert [await outcome(m) for m in messages] == [before + 1 + i for i in range(5)]
    assert await probes(runtime, ws, before) == [(before + 1 + i, str(i)) for i in range(5)]


async def test_a_light_batch_is_topped_up_with_light_messages_only(
    runtime: Runtime, ws: Workspace
) -> None:
    before = await last_seq(runtime, ws)
    messages = [
        LightProbe("0", by=ws.system),
        LightProbe("1", by=ws.system),
        Probe("2", by=ws.system),
        LightProbe("3", by=ws.system),
    ]
    seen = await lock_held_elsewhere(runtime, ws, messages[0], messages[1:])
    # the heavy one starts the next batch (which takes anything), mailbox order kept
    assert seen.batches == [2, 2]
    assert await probes(runtime, ws, before) == [(before + 1 + i, str(i)) for i in range(4)]


async def test_writes_the_driver_refuses_fail_alone_among_valid_ones_in_every_commit(
    runtime: Runtime, ws: Workspace, backend: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Four of every sixteen creates of a group commit carry text the driver cannot store
    (a lone surrogate on both backends; U+0000 too on PostgreSQL, where SQLite stores it):
    each of those fails alone, every other one commits."""
    _, schemas = await runtime.store.load_schemas(ws.account_id)
    module_id = schemas["deals"].module.module_id
    poisons = ["lone \ud800 surrogate", "nul \x00 inside"] if backend == "postgres" else ["\ud800"]
    messages = [
        Create(module_id, poisons[i % len(poisons)] if i % 4 == 1 else f"valid {i}", by=ws.system)
        for i in range(64)
    ]
    with caplog.at_level(logging.ERROR):
        seen = await drain(runtime, ws, messages, batch_size=16)
    assert seen.batches == [16, 16, 16, 16]  # every commit held both kinds
    outcomes = [await outcome(m) for m in messages]
    valid = [o for i, o in enumerate(outcomes) if i % 4 != 1]
    assert all(isinstance(o, str) for o in valid), valid
    assert all(isinstance(o, InternalError) for i, o in enumerate(outcomes) if i % 4 == 1)
    found = await runtime.store.get_records(ws.account_id, valid)
    assert sorted(r.record_id for r in found) == sorted(valid)
    assert {r.display_name for r in found} == {f"valid {i}" for i in range(64) if i % 4 != 1}
