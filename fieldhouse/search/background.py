"""Embedding below requests: a worker thread at a lower scheduling priority, a call split over
several such threads, and a meter of how busy the server's workers are.

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
:class:`WorkersMeter` tells the embedding loop when the workers are busy, and it then holds
its forward passes back (``embedding.YIELD_MOST``).

The meter reads the workers' CPU, not the machine's: it read the whole machine's time at
normal priority before, and on this 2-core machine shared with other programs (load average
6-10) at 200 creates/s (the workers 0.13-0.35 busy) it held every pass back for up to 5 s,
80-96 s of waits in a 30 s run of ``benchmarks.search_freshness --rate 200``: vector lag p99
85-136 s, the backlog drained within 120 s of the writes' end in two runs of six; with this
meter and the split below, p99 29-70 s and drained 28-69 s after, in five runs (the
idle-priority embedder gets what the other programs leave).
Once the workers are idle (the writes stopped), a pass runs split over a thread a core
(:func:`run_split`; MiniLM's vectors are the same bit for bit, 1.8 ms of CPU a short record
either way): 1,016 short records/s on two free cores against 494-564 on one.

Over PostgreSQL the workers' CPU is only part of a request's cost: the database's backends do
the rest, in processes the meter does not see. With :class:`WorkersMeter` there the embedder
ran beside the load and took 0.2 of a core from it: ``benchmarks.create_load --search
--connections 32 --workers 2 --database-url postgresql://...`` fell from 2,469-2,823 to
1,889-1,977 creates/s (0.43-0.51 -> 0.73-0.77 ms of server CPU a create). So over a database
of its own processes the embedder reads the machine's busy share (:class:`BusyMeter`), as
before; over SQLite, the workers'.
"""

from __future__ import annotations

import contextlib
import math
import os
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

import trio

T = TypeVar("T")
S = TypeVar("S")

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
        the background and its result is dropped (callers give it pure work, like embedding).
        A caller already cancelled gets its cancellation here, before anything is handed to
        the thread: at shutdown the thread is closed right after its callers are cancelled,
        and a call handed over then would fail with the executor's RuntimeError instead."""
        await trio.lowlevel.checkpoint_if_cancelled()
        return await wait_for(self._executor.submit(fn, *args))

    def close(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)


#: seconds between looks for the workers (a worker started in between counts from the next)
RESCAN = 5.0
#: the fewest items a thread gets from :func:`run_split`
MIN_PART = 8


async def run_split(
    threads: Sequence[LowPriorityThread], fn: Callable[[Sequence[S]], list[T]], items: Sequence[S]
) -> list[T]:
    """``fn`` over ``items`` cut into consecutive parts, one a thread (at most as many parts
    as ``threads``, each of MIN_PART items or more), the parts' calls at the same time: a call
    that lets go of the GIL, like onnxruntime's forward pass, runs on that many cores. The
    results, in the items' order."""
    count = max(1, min(len(threads), len(items) // MIN_PART))
    bounds = [round(k * len(items) / count) for k in range(count + 1)]
    results: list[list[T]] = [[] for _ in range(count)]

    async def part(k: int) -> None:
        results[k] = await threads[k].run(fn, items[bounds[k] : bounds[k + 1]])

    async with trio.open_nursery() as nursery:
        for k in range(count):
            nursery.start_soon(part, k)
    return [r for rs in results for r in rs]


class BusyMeter:
    """The share of the machine's CPU time spent at normal priority (user and system time, not
    niced, not idle, not waiting for the disk) between two looks. Niced time is left out: the
    embedding process runs niced, and its own work must not count as the load it yields to.
    Used where the database runs in processes of its own (PostgreSQL): the workers' CPU is
    then only part of what a request costs."""

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


class WorkersMeter:
    """How busy the server's workers are: the CPU time of the busiest of the embedding
    process's siblings (the supervisor's other children) between two looks, as a share of
    the core it can use. Only the server's own requests count: other programs on the machine
    take the cores they take from an idle-priority embedder anyway, and holding the embedder
    back for them only lets the backlog grow.

    The busiest worker, not the workers' sum over the cores: one client writing as fast as it
    can on one connection keeps one worker's core busy and leaves the others idle, and the
    sum read that as half busy, so the embedder ran beside it on the other core and the
    client's creates slowed by a tenth (wrk at 1 connection with side_by_side.sh's deal body:
    510-518 creates/s with search on, 572-586 with it off, the embedder on the other core)."""

    def __init__(self, parent: int | None = None, rescan: float = RESCAN) -> None:
        """``parent``: whose other children are the workers (by default this process's
        parent, the supervisor); ``rescan``: seconds between looks for them."""
        self._parent = os.getppid() if parent is None else parent
        self._rescan = rescan
        self._workers: list[Any] = []  # psutil.Process
        self._found = -math.inf
        self._last = self._read()

    def _siblings(self, now: float) -> list[Any]:
        import psutil  # (only the embedding process looks: a worker need not import it)

        if now - self._found >= self._rescan:  # (listing them reads every process: 1.8 ms of CPU)
            self._found = now
            try:
                children = psutil.Process(self._parent).children()
            except psutil.Error:  # the supervisor is gone (this process stops soon)
                children = []
            self._workers = [c for c in children if c.pid != os.getpid()]
        return self._workers

    def _read(self) -> tuple[float, dict[int, float]]:
        import psutil

        now = time.monotonic()
        cpu: dict[int, float] = {}
        for worker in self._siblings(now):
            with contextlib.suppress(psutil.Error):  # (a worker that exited)
                t = worker.cpu_times()
                cpu[worker.pid] = t.user + t.system
        return now, cpu

    def share(self) -> float:
        """The busiest worker's share of its core since the last look (0 when no worker was
        seen at both looks), and a new look starts."""
        now, cpu = self._read()
        (then, last), self._last = self._last, (now, cpu)
        both = cpu.keys() & last.keys()
        if now <= then or not both:
            return 0.0
        used = max(cpu[pid] - last[pid] for pid in both)
        return max(0.0, min(1.0, used / (now - then)))


def cores() -> int:
    """The cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return os.cpu_count() or 1
