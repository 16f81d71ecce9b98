"""A Server-Sent Events body that owns the nursery its producer runs in.

The dispatch sends a streamed body as ``async with body as it: async for chunk in it:
send(chunk)``, in the request's task. :class:`EventStream` opens its nursery in
``__aenter__`` and closes it in ``__aexit__``, so the producer (an agent run) is a child of
the request: when the dispatch cancels the request on client disconnect
(``fieldhouse.http.dispatch``), the producer is cancelled with it. Chunks cross from
the producer through a memory channel; no nursery or cancel scope encloses a ``yield``.

When the server shuts down it sets the services' shutdown event (``Services.shutdown``): the stream
then cancels its producer, lets it finish (an agent run stores itself as aborted), and ends
with the ``stopped`` event (by default ``error`` {"message": "server shutting down"}).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from types import TracebackType
from typing import Any

import orjson
import trio

KEEPALIVE = b": keepalive\n\n"
SHUTTING_DOWN = "server shutting down"


def encode_event(name: str, data: Any) -> bytes:
    return b"event: " + name.encode() + b"\ndata: " + orjson.dumps(data) + b"\n\n"


#: the producer: sends (event name, data) pairs, the terminal one last, then returns
Producer = Callable[[trio.MemorySendChannel[tuple[str, Any]]], Awaitable[None]]


def _shutting_down() -> tuple[str, Any]:
    return "error", {"message": SHUTTING_DOWN}


class EventStream:
    def __init__(
        self,
        first: tuple[str, Any],
        producer: Producer,
        *,
        keepalive: float,
        terminal: frozenset[str],
        buffer: int = 64,
        shutdown: trio.Event | None = None,
        stopped: Callable[[], tuple[str, Any]] = _shutting_down,
    ) -> None:
        self._first: tuple[str, Any] | None = first
        self._producer = producer
        self._keepalive = keepalive
        self._terminal = terminal
        self._buffer = buffer
        self._stack = AsyncExitStack()
        self._receive: trio.MemoryReceiveChannel[tuple[str, Any]] | None = None
        self._finished = False
        self._shutdown = shutdown
        self._stopped = stopped
        #: the last event, once the shutdown has cancelled the producer
        self._last: tuple[str, Any] | None = None
        self._producer_scope = trio.CancelScope()
        self._watch_scope = trio.CancelScope()

    async def __aenter__(self) -> EventStream:
        send, receive = trio.open_memory_channel[tuple[str, Any]](self._buffer)
        self._receive = receive
        nursery = await self._stack.enter_async_context(trio.open_nursery())
        nursery.start_soon(self._produce, send)
        if self._shutdown is not None:
            nursery.start_soon(self._watch, self._shutdown)
        return self

    async def _produce(self, send: trio.MemorySendChannel[tuple[str, Any]]) -> None:
        with self._producer_scope:
            async with send:
                await self._producer(send)

    async def _watch(self, shutdown: trio.Event) -> None:
        """On shutdown: cancel the producer; its channel then ends and the last event goes."""
        with self._watch_scope:
            await shutdown.wait()
            self._last = self._stopped()
            self._producer_scope.cancel()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_value: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._watch_scope.cancel()
        try:
            await self._stack.__aexit__(exc_type, exc_value, tb)
        except BaseExceptionGroup as group:
            # the nursery wraps the body's own error; hand on the error itself
            if len(group.exceptions) == 1:
                raise group.exceptions[0] from None
            raise

    def __aiter__(self) -> EventStream:
        return self

    async def __anext__(self) -> bytes:
        if self._first is not None:
            name, data = self._first
            self._first = None
            return encode_event(name, data)
        if self._finished or self._receive is None:
            raise StopAsyncIteration
        with trio.move_on_after(self._keepalive):
            try:
                name, data = await self._receive.receive()
            except trio.EndOfChannel:
                if self._last is None:
                    raise StopAsyncIteration from None
                name, data = self._last
                self._finished = True
                return encode_event(name, data)
            self._finished = name in self._terminal
            return encode_event(name, data)
        return KEEPALIVE
