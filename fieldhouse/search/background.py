"""A worker thread at a lower scheduling priority, for the indexer's embedding.

Embedding a batch keeps a core busy for tens of milliseconds; on the same machine as the server
that time should go to requests first. trio's worker threads are shared with request handling,
so the indexer gets a thread of its own whose Linux nice value is raised once when it starts
(a thread's priority cannot be raised back without privileges, so it is never reused for other
work). Elsewhere the priority is left as it is.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

import trio

T = TypeVar("T")

NICE = 10


def _lower_priority(nice: int) -> None:
    # not Linux, or not allowed: the thread runs at normal priority
    with contextlib.suppress(AttributeError, OSError):
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), nice)


async def wait_for(future: Future[T]) -> T:
    """The result of a ``concurrent.futures`` future (a thread's or a process's), awaited in
    trio. When cancelled, a call not yet started is cancelled; one already running finishes
    where it runs and its result is dropped."""
    token = trio.lowlevel.current_trio_token()
    done = trio.Event()

    def wake(_: Future[T]) -> None:
        with contextlib.suppress(trio.RunFinishedError):
            token.run_sync_soon(done.set)

    future.add_done_callback(wake)
    try:
        await done.wait()
    except trio.Cancelled:
        future.cancel()
        raise
    return future.result()


class LowPriorityThread:
    """Runs blocking calls one at a time in one lower-priority daemon thread."""

    def __init__(self, name: str = "fieldhouse-embed", nice: int = NICE) -> None:
        self._executor = ThreadPoolExecutor(
            1, thread_name_prefix=name, initializer=_lower_priority, initargs=(nice,)
        )

    async def run(self, fn: Callable[..., T], *args: object) -> T:
        """``fn(*args)`` in the thread. When cancelled the call is abandoned: it finishes in
        the background and its result is dropped (callers give it pure work, like embedding)."""
        return await wait_for(self._executor.submit(fn, *args))

    def close(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)
