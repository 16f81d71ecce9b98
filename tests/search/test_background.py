"""The indexer's embedding thread: calls run one at a time in one thread of their own, at a
lower priority where the system allows it, and a cancelled caller does not wait; a call split
over several such threads runs on them at once. The meter sees the server's workers busy, and
not other programs on the machine."""

from __future__ import annotations

import os
import shlex
import sys
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
import trio

from fieldhouse.config import Settings
from fieldhouse.search.background import (
    MIN_PART,
    NICE,
    BusyMeter,
    LowPriorityThread,
    WorkersMeter,
    run_split,
)
from fieldhouse.search.embed_process import meter_for


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


async def test_a_call_cancelled_as_the_thread_closes_is_cancelled_not_an_error() -> None:
    thread = LowPriorityThread("test-embed")
    with trio.CancelScope() as scope:
        scope.cancel()
        thread.close()  # the order of a shutdown: callers cancelled, then the thread closed
        await thread.run(whoami)
    assert scope.cancelled_caught


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


async def burn_in_grandchildren(seconds: float = 0.6) -> None:
    """Every core busy for ``seconds``, in processes that are not this one's children (a
    shell's, each)."""
    burn = BURN.replace("0.6", repr(seconds))
    async with trio.open_nursery() as nursery:
        for _ in range(os.cpu_count() or 1):
            script = f"{shlex.quote(sys.executable)} -c {shlex.quote(burn)}; true"
            nursery.start_soon(trio.run_process, ["sh", "-c", script])


@pytest.mark.alone  # it reads CPU times while it keeps the machine busy
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a process's children")
async def test_the_meter_sees_the_workers_busy_and_not_other_programs() -> None:
    meter = WorkersMeter(parent=os.getpid(), rescan=0)  # this process's children are the "workers"
    async with trio.open_nursery() as nursery:
        # one worker busy on its core (a client writing on one connection), one idle
        nursery.start_soon(trio.run_process, [sys.executable, "-c", BURN.replace("0.6", "1.2")])
        nursery.start_soon(trio.run_process, [sys.executable, "-c", "import time; time.sleep(1.2)"])
        await trio.sleep(0.3)
        meter.share()  # (the burning worker was seen: it counts from here)
        await trio.sleep(0.5)
        # the busiest worker's share of its core (the two workers' over two cores is <= 0.5)
        assert meter.share() >= 0.6
    await burn_in_grandchildren()
    assert meter.share() <= 0.05  # the machine as busy, but not with the server's requests


def part_and_thread(items: Sequence[int]) -> list[tuple[int, int]]:
    return [(i, threading.get_native_id()) for i in items]


async def test_a_split_call_runs_its_parts_in_threads_at_once() -> None:
    threads = [LowPriorityThread(f"test-split{k}") for k in range(2)]
    meet = threading.Barrier(2, timeout=10)  # each part waits for the other: both at once

    def met(items: Sequence[int]) -> list[tuple[int, int]]:
        meet.wait()
        return part_and_thread(items)

    try:
        items = list(range(2 * MIN_PART + 1))
        got = await run_split(threads, met, items)
        assert [i for i, _ in got] == items  # in order
        assert len({tid for _, tid in got}) == 2
        few = await run_split(threads, part_and_thread, items[: 2 * MIN_PART - 1])
        assert len({tid for _, tid in few}) == 1  # too few to split
        assert await run_split(threads, part_and_thread, []) == []
    finally:
        for t in threads:
            t.close()


async def burn_every_core(*prefix: str) -> None:
    async with trio.open_nursery() as nursery:
        for _ in range(os.cpu_count() or 1):
            nursery.start_soon(trio.run_process, [*prefix, sys.executable, "-c", BURN])


@pytest.mark.alone  # it reads the whole machine's CPU
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="nice and /proc/stat")
async def test_the_machine_meter_sees_cores_busy_at_normal_priority_and_not_niced_work() -> None:
    """What the embedder yields to over PostgreSQL, whose backends' work for the requests the
    workers' CPU does not show."""
    meter = BusyMeter()
    meter.share()
    await burn_every_core()
    busy = meter.share()
    assert busy >= 0.6  # every core busy while they ran (less what the VM's host took)
    await burn_every_core("nice", "-n", "19")
    # as busy, but below everything else: not a load to yield to. What it reads is what other
    # programs took meanwhile, so it is compared with the first reading, not with nothing (a
    # meter that counted niced time reads the two alike)
    assert meter.share() <= busy - 0.3


def test_the_embedder_yields_to_the_workers_over_sqlite_and_to_the_machine_over_postgres(
    tmp_path: Path,
) -> None:
    sqlite = Settings(data_dir=tmp_path)
    postgres = Settings(data_dir=tmp_path, database_url="postgresql://u@127.0.0.1:5432/db")
    assert isinstance(meter_for(sqlite), WorkersMeter)
    assert isinstance(meter_for(postgres), BusyMeter)
