"""The event stream's body on the real store: a local commit wakes it at once, heartbeats in
silence, a reader that does not read gets `overflow` with the seq to resume from and is
disconnected if it does not read that either, shutdown ends it, pages, hidden modules."""

from __future__ import annotations

import httpx
import orjson
import pytest
import trio

from fieldhouse import events
from fieldhouse.runtime import Runtime
from tests.conftest import Workspace
from tests.http.test_records_crud import create

EVERYTHING = events.Selection(None, None, ())


def body(
    runtime: Runtime, ws: Workspace, after: int, shutdown: trio.Event | None = None, **tuning: float
) -> events.EventsBody:
    return events.EventsBody(
        runtime.store,
        events.wakeups(runtime.actors),
        ws.account_id,
        after,
        EVERYTHING,
        tuning=events.Tuning(**tuning),  # type: ignore[arg-type]
        shutdown=shutdown,
    )


def parsed(chunk: bytes) -> tuple[str, int | None, dict[str, object]]:
    fields = dict(line.split(b": ", 1) for line in chunk.strip().split(b"\n"))
    ident = int(fields[b"id"]) if b"id" in fields else None
    return fields[b"event"].decode(), ident, orjson.loads(fields[b"data"])


async def test_local_commit_wakes_the_stream(
    runtime: Runtime, ws: Workspace, client: httpx.AsyncClient
) -> None:
    after = await events.latest_seq(runtime.store, ws.account_id)
    stream = body(runtime, ws, after, poll=3600.0, heartbeat=3600.0)
    async with stream:
        assert parsed(await anext(stream)) == ("open", None, {"afterSeq": after})
        made = await create(client, ws, "deals")
        with trio.fail_after(10):  # not the hour's poll: the commit woke it
            name, ident, data = parsed(await anext(stream))
    assert (name, ident, data["recordId"]) == ("record_created", after + 1, made["recordId"])


async def test_heartbeat_in_silence(runtime: Runtime, ws: Workspace) -> None:
    after = await events.latest_seq(runtime.store, ws.account_id)
    stream = body(runtime, ws, after, heartbeat=0.05)
    async with stream:
        await anext(stream)
        with trio.fail_after(10):
            assert await anext(stream) == events.HEARTBEAT


async def test_slow_reader_gets_overflow_then_is_disconnected(
    runtime: Runtime, ws: Workspace, client: httpx.AsyncClient
) -> None:
    after = await events.latest_seq(runtime.store, ws.account_id)
    for i in range(10):
        await create(client, ws, "deals", name=f"D{i}")
    stream = body(runtime, ws, after, buffer=4, slow=0.05)
    async with stream:
        await anext(stream)  # open
        assert parsed(await anext(stream))[1] == after + 1
        with trio.fail_after(10):
            await stream.overflowed.wait()
        name, ident, data = parsed(await anext(stream))
        assert (name, ident) == ("overflow", None)
        assert data["afterSeq"] == after + 1  # the last event handed over: resume from there
        with pytest.raises(StopAsyncIteration):
            await anext(stream)
    stream = body(runtime, ws, after, buffer=4, slow=0.05)
    with pytest.raises(events.SlowReader), trio.fail_after(10):
        async with stream:
            await stream.overflowed.wait()
            await trio.sleep_forever()  # never reads: the producer gives up on it


async def test_pages_past_page_size(
    runtime: Runtime, ws: Workspace, client: httpx.AsyncClient
) -> None:
    after = await events.latest_seq(runtime.store, ws.account_id)
    for i in range(5):
        await create(client, ws, "deals", name=f"D{i}")
    entries, cursor = await events.read_page(runtime.store, ws.account_id, after, EVERYTHING, 2)
    assert [e["seq"] for e in entries] == [after + 1, after + 2] and cursor == after + 2
    hidden = events.Selection([], None, ())  # a role that views no module
    assert await events.read_page(runtime.store, ws.account_id, after, hidden) == ([], after + 5)


async def test_shutdown_ends_the_stream(runtime: Runtime, ws: Workspace) -> None:
    stop = trio.Event()
    stream = body(runtime, ws, 0, shutdown=stop, heartbeat=3600.0)
    async with stream:
        await anext(stream)
        stop.set()
        with trio.fail_after(10), pytest.raises(StopAsyncIteration):
            while True:
                await anext(stream)  # what was read already, then the end
