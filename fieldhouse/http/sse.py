"""A Server-Sent Events body that owns the nursery its producer runs in.

Quart sends a streamed body as ``async with body as it: async for chunk in it: send(chunk)``,
in the request's task. :class:`EventStream` opens its nursery in ``__aenter__`` and closes it
in ``__aexit__``, so the producer (an agent run) is a child of the request: when quart-trio
cancels the request on client disconnect, the producer is cancelled with it. Chunks cross from
the producer through a memory channel; no nursery or cancel scope encloses a ``yield``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from types import TracebackType
from typing import Any

import orjson
import trio
from quart.wrappers.response import ResponseBody

KEEPALIVE = b": keepalive\n\n"


def encode_event(name: str, data: Any) -> bytes:
    return b"event: " + name.encode() + b"\ndata: " + orjson.dumps(data) + b"\n\n"


#: the producer: sends (event name, data) pairs, the terminal one last, then returns
Producer = Callable[[trio.MemorySendChannel[tuple[str, Any]]], Awaitable[None]]


class EventStream(ResponseBody):
    def __init__(
        self,
        first: tuple[str, Any],
        producer: Producer,
        *,
        keepalive: float,
        terminal: frozenset[str],
        buffer: int = 64,
    ) -> None:
        self._first: tuple[str, Any] | None = first
        self._producer = producer
        self._keepalive = keepalive
        self._terminal = terminal
        self._buffer = buffer
        self._stack = AsyncExitStack()
        self._receive: trio.MemoryReceiveChannel[tuple[str, Any]] | None = None
        self._finished = False

    async def __aenter__(self) -> EventStream:
        send, receive = trio.open_memory_channel[tuple[str, Any]](self._buffer)
        self._receive = receive
        nursery = await self._stack.enter_async_context(trio.open_nursery())
        nursery.start_soon(self._produce, send)
        return self

    async def _produce(self, send: trio.MemorySendChannel[tuple[str, Any]]) -> None:
        async with send:
            await self._producer(send)

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_value: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
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
                raise StopAsyncIteration from None
            self._finished = name in self._terminal
            return encode_event(name, data)
        return KEEPALIVE
