"""The trio-asyncio loop that asyncpg runs in, with two of its per-callback costs cut.

trio-asyncio runs each asyncio callback as one turn of its main-loop task: a cancel scope for
the next timer and a receive from its queue, that is a trip through trio's scheduler per
callback. One PostgreSQL round trip takes several callbacks (the reader's ``_read_ready``, the
future's result, the waiting task's step), each waiting behind every other ready trio task, so
a write transaction of eight statements cost ~2.8 ms of CPU on the trio thread against ~0.6 ms
for the same on SQLite. :class:`FastTrioEventLoop` runs the callbacks already queued in one turn
(at most :data:`RUN_AT_ONCE`, as asyncio's own loop runs the ready ones of an iteration), and
checks a callback's type only in debug mode, as asyncio's ``call_soon`` does (trio-asyncio
checks every one: two ``inspect`` calls per callback).

:func:`open_loop` is ``trio_asyncio.open_loop()`` with the loop's class swapped for this
subclass (same state, two methods overridden): the main-loop task picks the faster turn up at
its next iteration.

trio-asyncio's private names leaned on: ``TrioEventLoop._main_loop_one(no_wait)`` (one turn;
trio.WouldBlock when ``no_wait`` finds nothing queued) and ``_queue_handle(handle)``, and
``open_loop()`` yielding a plain ``TrioEventLoop`` whose class can be swapped (no
``__slots__``). pyproject.toml pins trio-asyncio below its next minor and
tests/storage/test_aioloop.py fails when one of them changes.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import trio
import trio_asyncio

#: callbacks run in one turn of the loop's task before trio's other tasks get theirs
RUN_AT_ONCE = 64


class FastTrioEventLoop(trio_asyncio.TrioEventLoop):  # type: ignore[misc]
    async def _main_loop_one(self, no_wait: bool = False) -> None:
        await super()._main_loop_one(no_wait)
        # then what is queued already (and timers fallen due), as asyncio runs an iteration's
        # ready callbacks: the same turn without waiting, until the queue is empty
        for _ in range(RUN_AT_ONCE):
            try:
                await super()._main_loop_one(no_wait=True)
            except trio.WouldBlock:
                return

    def call_soon(self, callback: Any, *args: Any, **context: Any) -> asyncio.Handle:
        if self.get_debug():
            return super().call_soon(callback, *args, **context)  # type: ignore[no-any-return]
        return self._queue_handle(asyncio.Handle(callback, args, self, **context))  # type: ignore[no-any-return]


@asynccontextmanager
async def open_loop() -> AsyncIterator[trio_asyncio.TrioEventLoop]:
    """``trio_asyncio.open_loop()`` whose loop is a :class:`FastTrioEventLoop`."""
    async with trio_asyncio.open_loop() as loop:
        if type(loop) is trio_asyncio.TrioEventLoop:
            loop.__class__ = FastTrioEventLoop
        yield loop
