"""Embedding below requests: a worker thread at a lower scheduling priority, and a meter of
how busy the machine is at normal priority.

Embedding a batch keeps a core busy for tens of milliseconds; on the same machine as the server
that time should go to requests first. trio's worker threads are shared with request handling,
so the indexer gets a thread of its own whose Linux nice value is raised once when it starts
(a thread's priority cannot be raised back without privileges, so it is never reused for other
work). Elsewhere the priority is left as it is.

A low priority is not enough on its own: an embedding process at idle priority that takes the
CPU a worker leaves for a moment still slows the workers (the cores' caches, and on a virtual
machine the host's hyperthreads, are shared). Measured with two workers creating records at
16 connections, the embedding processes running cost the workers 0.85-1.0 ms of CPU a create
against 0.76-0.77 ms with them stopped, and 1,628-1,939 against 2,209-2,223 creates/s.
:class:`BusyMeter` tells the indexer when the machine is busy with other work, and it then
holds its forward passes back (``indexer.YIELD_MOST``).
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


def _lower_priority(nice: int, idle: bool = False) -> None:
    # not Linux, or not allowed: the thread runs at normal priority
    with contextlib.suppress(AttributeError, OSError):
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), nice)
    if idle:  # (Linux's scheduling policy is the calling thread's own)
        with contextlib.suppress(AttributeError, OSError):
            os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))


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

    def __init__(
        self, name: str = "fieldhouse-embed", nice: int = NICE, *, idle: bool = False
    ) -> None:
        """``idle``: scheduled SCHED_IDLE too (Linux), on what CPU nothing else wants."""
        self._executor = ThreadPoolExecutor(
            1, thread_name_prefix=name, initializer=_lower_priority, initargs=(nice, idle)
        )

    async def run(self, fn: Callable[..., T], *args: object) -> T:
        """``fn(*args)`` in the thread. When cancelled the call is abandoned: it finishes in
        the background and its result is dropped (callers give it pure work, like embedding)."""
        return await wait_for(self._executor.submit(fn, *args))

    def close(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)


class BusyMeter:
    """The share of the machine's CPU time spent at normal priority (user and system time, not
    niced, not idle, not waiting for the disk) between two looks. Niced time is left out: the
    embedding process runs niced, and its own work must not count as the load it yields to."""

    def __init__(self) -> None:
        self._last = self._read()

    @staticmethod
    def _read() -> tuple[float, float] | None:
        import psutil  # (only the embedding process looks: a worker need not import it)

        try:
            t = psutil.cpu_times()
        except (OSError, NotImplementedError):  # no such counters here: never busy
            return None
        busy = t.user + t.system + sum(getattr(t, f, 0.0) for f in ("irq", "softirq"))
        rest = sum(getattr(t, f, 0.0) for f in ("nice", "idle", "iowait", "steal"))
        return busy, busy + rest  # (guest time is inside user time already)

    def share(self) -> float:
        """The busy share since the last look (0 when the counters cannot be read or did not
        move), and a new look starts."""
        now = self._read()
        last, self._last = self._last, now
        if now is None or last is None or now[1] <= last[1]:
            return 0.0
        return max(0.0, min(1.0, (now[0] - last[0]) / (now[1] - last[1])))
