"""An event stream: the first event at once, keepalives in silences, the producer's events in
order up to a terminal one, and a last ``error`` event when the server shuts down."""

from __future__ import annotations

from typing import Any

import orjson
import trio
import trio.testing

from fieldhouse.http.sse import KEEPALIVE, EventStream, encode_event


def test_events_are_named_json_lines() -> None:
    assert encode_event("delta", {"text": "hé"}) == (
        b"event: delta\ndata: " + orjson.dumps({"text": "hé"}) + b"\n\n"
    )


async def collect(stream: EventStream) -> list[bytes]:
    async with stream as body:
        return [chunk async for chunk in body]


async def test_a_silence_longer_than_the_keepalive_gets_a_comment(
    autojump_clock: trio.testing.MockClock,
) -> None:
    async def producer(send: trio.MemorySendChannel[tuple[str, Any]]) -> None:
        await trio.sleep(25)
        await send.send(("delta", {"n": 1}))
        await send.send(("done", {}))
        await send.send(("delta", {"n": "after the end"}))

    stream = EventStream(("start", {}), producer, keepalive=10, terminal=frozenset({"done"}))
    assert await collect(stream) == [
        encode_event("start", {}),
        KEEPALIVE,
        KEEPALIVE,
        encode_event("delta", {"n": 1}),
        encode_event("done", {}),
    ]


async def test_a_producer_that_returns_ends_the_stream() -> None:
    async def producer(send: trio.MemorySendChannel[tuple[str, Any]]) -> None:
        await send.send(("delta", {"n": 1}))

    stream = EventStream(("start", {}), producer, keepalive=10, terminal=frozenset({"done"}))
    assert await collect(stream) == [encode_event("start", {}), encode_event("delta", {"n": 1})]


async def test_shutdown_cancels_the_producer_and_sends_the_last_event(
    autojump_clock: trio.testing.MockClock,
) -> None:
    shutdown = trio.Event()
    cancelled = []

    async def producer(send: trio.MemorySendChannel[tuple[str, Any]]) -> None:
        await send.send(("delta", {"n": 1}))
        shutdown.set()
        try:
            await trio.sleep_forever()
        finally:
            cancelled.append(True)

    stream = EventStream(
        ("start", {}),
        producer,
        keepalive=100,
        terminal=frozenset({"done"}),
        shutdown=shutdown,
    )
    assert await collect(stream) == [
        encode_event("start", {}),
        encode_event("delta", {"n": 1}),
        encode_event("error", {"message": "server shutting down"}),
    ]
    assert cancelled == [True]
