"""The indexer's embedding thread: calls run one at a time in one thread of their own, at a
lower priority where the system allows it, and a cancelled caller does not wait. The busy
meter sees the machine's cores taken at normal priority, and not niced work."""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Iterator

import pytest
import trio

from fieldhouse.search.background import NICE, BusyMeter, LowPriorityThread


@pytest.fixture
def worker() -> Iterator[LowPriorityThread]:
    thread = LowPriorityThread("test-embed")
    yield thread
    thread.close()


def whoami() -> tuple[str, int]:
    return threading.current_thread().name, threading.get_native_id()


async def test_calls_run_in_one_thread_of_their_own(worker: LowPriorityThread) -> None:
    first = await worker.run(whoami)
    second = await worker.run(whoami)
    assert first == second
    assert first[0].startswith("test-embed")
    assert first[1] != threading.get_native_id()
    assert await worker.run(pow, 2, 10) == 1024


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="thread nice values are Linux's")
async def test_the_thread_runs_at_a_lower_priority(worker: LowPriorityThread) -> None:
    _, tid = await worker.run(whoami)
    base = os.getpriority(os.PRIO_PROCESS, 0)
    assert os.getpriority(os.PRIO_PROCESS, tid) == min(base + NICE, 19)


async def test_errors_reach_the_caller(worker: LowPriorityThread) -> None:
    with pytest.raises(ZeroDivisionError):
        await worker.run(divmod, 1, 0)
    assert await worker.run(divmod, 7, 2) == (3, 1)  # the thread lives on


async def test_a_cancelled_call_is_abandoned(worker: LowPriorityThread) -> None:
    release = threading.Event()
    started = threading.Event()
    finished = threading.Event()

    def blocked() -> str:
        started.set()
        release.wait(10)
        finished.set()
        return "late"

    with trio.CancelScope() as scope:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(worker.run, blocked)
            await trio.to_thread.run_sync(started.wait)
            scope.cancel()
    assert scope.cancelled_caught
    assert not finished.is_set()  # the caller went on while the call still ran
    release.set()
    assert await worker.run(str, "next") == "next"  # the abandoned call finished first


#: a child that keeps a core busy for 0.6 s, in user time (a clock read per 100,000 turns)
BURN = (
    "import time\nend = time.monotonic() + 0.6\n"
    "while time.monotonic() < end:\n    for _ in range(100_000): pass"
)


async def burn_every_core(*prefix: str) -> None:
    async with trio.open_nursery() as nursery:
        for _ in range(os.cpu_count() or 1):
            nursery.start_soon(trio.run_process, [*prefix, sys.executable, "-c", BURN])


@pytest.mark.alone  # it reads the whole machine's CPU
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="nice and /proc/stat")
async def test_the_meter_sees_cores_busy_at_normal_priority_and_not_niced_work() -> None:
    meter = BusyMeter()
    meter.share()
    await burn_every_core()
    assert meter.share() >= 0.6  # every core busy while they ran (less what the VM's host took)
    await burn_every_core("nice", "-n", "19")
    assert meter.share() <= 0.4  # as busy, but below everything else: not a load to yield to
