"""The actor system: one ordered writer per workspace, group commit, supervision."""

from __future__ import annotations

import logging
from dataclasses import dataclass

import pytest
import trio

from fieldhouse.actors.admin_ops import CreateLabel
from fieldhouse.actors.context import WriteContext
from fieldhouse.actors.messages import Message
from fieldhouse.model.activity import ActivityKind
from fieldhouse.model.errors import Conflict, InternalError
from fieldhouse.model.records import RecordRow
from fieldhouse.runtime import Runtime
from tests.conftest import Workspace


@dataclass(frozen=True)
class Explode(Message[None]):
    """A message whose handler fails unexpectedly (only tests send it)."""

    async def apply(self, ctx: WriteContext) -> None:
        await ctx.activity(ActivityKind.RECORD_UPDATED, user_id=None)
        raise RuntimeError("handler bug")


@dataclass(frozen=True)
class RecordBatch(Message[tuple[int, int]]):
    """Appends an activity entry and reports the batch it ran in."""

    tag: str

    async def apply(self, ctx: WriteContext) -> tuple[int, int]:
        seq = await ctx.activity(ActivityKind.RECORD_UPDATED, user_id=None, data={"tag": self.tag})
        return seq, id(ctx)


async def test_one_bad_message_does_not_fail_its_batch(
    runtime: Runtime, ws: Workspace, caplog: pytest.LogCaptureFixture
) -> None:
    results: dict[str, object] = {}

    async def send(name: str, message: Message[object]) -> None:
        try:
            results[name] = await runtime.actors.ask(message)
        except Exception as exc:
            results[name] = exc

    with caplog.at_level(logging.ERROR):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(send, "a", CreateLabel("A", by=ws.system))
            nursery.start_soon(send, "boom", Explode(by=ws.system))
            nursery.start_soon(send, "dup", CreateLabel("A", by=ws.system))
            nursery.start_soon(send, "b", CreateLabel("B", by=ws.system))
    assert isinstance(results["boom"], InternalError)
    # trio does not promise which of the two same-named labels reaches the actor first
    outcomes = [results["a"], results["dup"]]
    assert sum(isinstance(o, Conflict) for o in outcomes) == 1
    assert sum(isinstance(o, dict) for o in outcomes) == 1
    labels = await runtime.store.list_labels(ws.account_id)
    assert sorted(label["name"] for label in labels) == ["A", "B"]
    assert any("Explode failed" in r.getMessage() for r in caplog.records)


async def test_concurrent_writes_share_commits_and_keep_order(
    runtime: Runtime, ws: Workspace
) -> None:
    replies: list[tuple[int, int]] = []

    async def send(i: int) -> None:
        replies.append(await runtime.actors.ask(RecordBatch(str(i), by=ws.system)))

    async with trio.open_nursery() as nursery:
        for i in range(100):
            nursery.start_soon(send, i)
    seqs = sorted(seq for seq, _ in replies)
    assert seqs == list(range(seqs[0], seqs[0] + 100))  # gap-free, no duplicates
    batches = {batch for _, batch in replies}
    assert len(batches) < 100  # several writes were committed together


async def test_a_crashed_batch_restarts_only_that_actor(
    runtime: Runtime,
    ws: Workspace,
    other_ws: Workspace,
    monkeypatch: pytest.MonkeyPatch,
    backend: str,
) -> None:
    from fieldhouse.storage import postgres, sqlite

    calls = {"n": 0}

    def first_fails() -> None:
        calls["n"] += 1
        if calls["n"] == 1:
            raise RuntimeError("commit failed")  # (an OSError is the database away: retried)

    if backend == "sqlite":
        real_commit = sqlite.commit

        def failing_commit(conn: object) -> None:
            first_fails()
            real_commit(conn)  # type: ignore[arg-type]

        monkeypatch.setattr(sqlite, "commit", failing_commit)
    else:
        real_pg_commit = postgres.commit

        async def failing_pg_commit(conn: postgres.Conn) -> None:
            first_fails()
            await real_pg_commit(conn)

        monkeypatch.setattr(postgres, "commit", failing_pg_commit)
    with pytest.raises(InternalError):
        await runtime.actors.ask(CreateLabel("lost", by=ws.system))
    assert runtime.actors.restarts == 1
    monkeypatch.undo()
    # the restarted actor serves its workspace again; the failed write left nothing behind
    await runtime.actors.ask(CreateLabel("kept", by=ws.system))
    names = [label["name"] for label in await runtime.store.list_labels(ws.account_id)]
    assert names == ["kept"]
    await runtime.actors.ask(CreateLabel("other", by=other_ws.system))


@dataclass(frozen=True)
class InsertRow(Message[int]):
    """Writes a record under a fixed id and an activity entry (only tests send it)."""

    module_id: str
    record_id: str

    async def apply(self, ctx: WriteContext) -> int:
        row = RecordRow(
            self.record_id, ctx.account_id, self.module_id, "row", {}, ctx.now, ctx.now, None, None
        )
        await ctx.txn.insert_record(row)
        return await ctx.activity(
            ActivityKind.RECORD_CREATED, user_id=None, record_id=self.record_id
        )


async def test_a_write_the_database_refuses_fails_only_its_own_message(
    runtime: Runtime, ws: Workspace, caplog: pytest.LogCaptureFixture
) -> None:
    _, schemas = await runtime.store.load_schemas(ws.account_id)
    module_id = next(iter(schemas.values())).module.module_id
    first = await runtime.actors.ask(InsertRow(module_id, "taken", by=ws.system))
    results: dict[str, object] = {}

    async def send(name: str, message: Message[object]) -> None:
        try:
            results[name] = await runtime.actors.ask(message)
        except Exception as exc:
            results[name] = exc

    with caplog.at_level(logging.ERROR):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(send, "a", InsertRow(module_id, "free-a", by=ws.system))
            nursery.start_soon(send, "dup", InsertRow(module_id, "taken", by=ws.system))
            nursery.start_soon(send, "b", InsertRow(module_id, "free-b", by=ws.system))
            nursery.start_soon(send, "label", CreateLabel("kept", by=ws.system))
    assert isinstance(results["dup"], InternalError)
    assert isinstance(results["a"], int) and isinstance(results["b"], int)
    # gap-free: the failed write took no number
    assert sorted([results["a"], results["b"]]) == [first + 1, first + 2]
    found = await runtime.store.get_records(ws.account_id, ["taken", "free-a", "free-b"])
    assert sorted(r.record_id for r in found) == ["free-a", "free-b", "taken"]
    assert [label["name"] for label in await runtime.store.list_labels(ws.account_id)] == ["kept"]
    assert runtime.actors.restarts == 0


async def test_a_lone_write_the_database_refuses_fails_without_a_restart(
    runtime: Runtime, ws: Workspace
) -> None:
    _, schemas = await runtime.store.load_schemas(ws.account_id)
    module_id = next(iter(schemas.values())).module.module_id
    first = await runtime.actors.ask(InsertRow(module_id, "taken", by=ws.system))
    with pytest.raises(InternalError):
        await runtime.actors.ask(InsertRow(module_id, "taken", by=ws.system))
    assert runtime.actors.restarts == 0
    assert await runtime.actors.ask(InsertRow(module_id, "next", by=ws.system)) == first + 1
