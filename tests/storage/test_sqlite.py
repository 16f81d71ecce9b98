"""The SQLite driver: readers run beside the one writer, and write transactions take turns."""

from __future__ import annotations

import fcntl
import os
import sqlite3
import threading
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import trio
import trio.lowlevel
import trio.testing

from fieldhouse.storage import Store, open_database
from fieldhouse.storage import sqlite as sqlite_driver
from fieldhouse.storage.base import Op, StatementFailed, execute, value
from fieldhouse.storage.sqlite import SQLiteDriver
from tests.storage.conftest import AT, A, B, record


@pytest.fixture
async def lite(tmp_path: Path) -> AsyncIterator[Store]:
    async with open_database(f"sqlite:///{tmp_path}/lite.sqlite3") as db:
        await db.create_account(A, "A", "a", AT)
        await db.create_account(B, "B", "b", AT)
        yield db


async def test_a_read_runs_beside_an_open_write_and_sees_only_commits(lite: Store) -> None:
    async with lite.write(A) as txn:
        await txn.insert_record(record(A, "r01", "new"))
        # the writer holds its transaction open; a reader answers from the last commit
        assert await lite.get_records(A, ["r01"]) == []
    assert [r.record_id for r in await lite.get_records(A, ["r01"])] == ["r01"]


async def test_write_transactions_take_turns(lite: Store) -> None:
    order: list[str] = []
    release = trio.Event()

    async def first() -> None:
        async with lite.write(A) as txn:
            order.append("first in")
            await txn.insert_record(record(A, "r01", "one"))
            await release.wait()
            order.append("first out")

    async def second() -> None:
        async with lite.write(B):
            order.append("second in")

    async with trio.open_nursery() as nursery:
        nursery.start_soon(first)
        await trio.testing.wait_all_tasks_blocked()
        nursery.start_soon(second)
        await trio.testing.wait_all_tasks_blocked()
        assert order == ["first in"]  # one writer: even another workspace waits
        release.set()
    assert order == ["first in", "first out", "second in"]


#: a read of a few million SQLite steps: far past the time a read may take on the trio thread
LONG_COUNT = (
    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)"
    " SELECT count(*) FROM n"
)


def _where_counted(upto: int, sql: str = LONG_COUNT) -> Op[tuple[int, str]]:
    """``sql``'s count and the thread the operation went on in after it."""
    counted = yield value(sql, (upto,))
    where = "trio thread" if threading.current_thread() is threading.main_thread() else ""
    return counted, where or "reader thread"


def _two_counts(upto: int) -> Op[tuple[int, int]]:
    first = yield value(LONG_COUNT, (upto,))
    records = yield value("SELECT count(*) FROM records")
    return first, records


async def test_a_long_read_moves_off_the_trio_thread_and_still_answers_whole(
    tmp_path: Path,
) -> None:
    driver = await SQLiteDriver.open(tmp_path / "long.sqlite3", readers=1)
    ticks = 0
    done = trio.Event()

    async def tick() -> None:
        nonlocal ticks
        while not done.is_set():
            ticks += 1
            await trio.lowlevel.checkpoint()

    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(tick)
            # the interrupted count runs again from its start on a reader thread, and the
            # operation's next statement follows it there, in the same snapshot
            assert await driver.read(_two_counts(3_000_000), snapshot=True) == (3_000_000, 0)
            done.set()
        assert ticks > 2  # the trio thread served other tasks meanwhile
        # the statement that overran starts on a reader thread for a while; another statement
        # answers on the trio thread
        assert await driver.read(_where_counted(10, LONG_COUNT + " ")) == (10, "trio thread")
        # still long there: it stays on the reader thread
        assert await driver.read(_where_counted(3_000_000)) == (3_000_000, "reader thread")
        assert await driver.read(_where_counted(10)) == (10, "reader thread")
        # short there (it overran once: cold pages, a big argument), so it is forgotten and
        # starts on the trio thread again
        assert await driver.read(_where_counted(10)) == (10, "trio thread")
    finally:
        await driver.aclose()


#: a read that waits (a function that sleeps: the OS has the core elsewhere) more than it runs
WAITING_COUNT = (
    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)"
    " SELECT count(*) FROM n WHERE i % 100 != 0 OR pause(i)"
)


async def test_a_read_is_timed_by_its_cpu_not_by_the_clock(tmp_path: Path) -> None:
    driver = await SQLiteDriver.open(tmp_path / "wait.sqlite3", readers=1)
    try:
        for conn in driver._readers:
            # 5 pauses of 4 ms: 20 ms on the clock, well under a millisecond of CPU
            conn.create_function("pause", 1, lambda i: time.sleep(0.004) or i)
        assert await driver.read(_where_counted(500, WAITING_COUNT)) == (500, "trio thread")
        assert await driver.read(_where_counted(500, WAITING_COUNT)) == (500, "trio thread")
    finally:
        await driver.aclose()


async def test_a_read_failing_on_the_trio_thread_raises_its_own_error(tmp_path: Path) -> None:
    driver = await SQLiteDriver.open(tmp_path / "bad.sqlite3", readers=1)
    try:
        with pytest.raises(StatementFailed, match="no such table") as raised:
            await driver.read(_bad())
        assert isinstance(raised.value.__cause__, sqlite_driver.sqlite3.OperationalError)
        assert await driver.read(_two_counts(5)) == (5, 0)
    finally:
        await driver.aclose()


def _bad() -> Op[int]:
    result: int = yield value("SELECT count(*) FROM no_such_table")
    return result


def _try_writelock(path: Path) -> bool:
    """Whether another process could take the database's write lock now."""
    fd = os.open(f"{path}-writelock", os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    finally:
        os.close(fd)  # closing lets go of the lock if it was taken
    return True


async def test_an_open_write_transaction_holds_the_file_lock_other_processes_queue_on(
    tmp_path: Path,
) -> None:
    path = tmp_path / "lite.sqlite3"
    async with open_database(f"sqlite:///{path}") as db:
        await db.create_account(A, "A", "a", AT)
        assert _try_writelock(path)
        async with db.write(A) as txn:
            await txn.insert_record(record(A, "r01", "one"))
            assert _try_writelock(path)  # nothing reached the database yet: no lock taken
            await txn.flush()
            assert not _try_writelock(path)
        assert _try_writelock(path)  # let go with the commit
        with pytest.raises(RuntimeError):
            async with db.write(A) as txn:
                await txn.insert_record(record(A, "r02", "two"))
                await txn.flush()
                raise RuntimeError("abandoned")
        assert _try_writelock(path)  # and with a rollback
        assert [r.record_id for r in await db.get_records(A, ["r01", "r02"])] == ["r01"]


async def test_two_stores_on_one_file_write_in_turn_through_the_file_lock(tmp_path: Path) -> None:
    path = tmp_path / "lite.sqlite3"
    url = f"sqlite:///{path}"
    order: list[str] = []
    entered, release = trio.Event(), trio.Event()
    async with open_database(url) as one, open_database(url) as two:
        await one.create_account(A, "A", "a", AT)

        async def first() -> None:
            async with one.write(A) as txn:
                await txn.insert_record(record(A, "r01", "one"))
                await txn.flush()
                order.append("first in")
                entered.set()
                await release.wait()
                order.append("first out")

        async def second() -> None:
            async with two.write(A) as txn:
                await txn.insert_record(record(A, "r02", "two"))
                await txn.flush()
                order.append("second in")

        async with trio.open_nursery() as nursery:
            nursery.start_soon(first)
            await entered.wait()
            nursery.start_soon(second)
            await trio.testing.wait_all_tasks_blocked()
            assert order == ["first in"]  # the other "process" waits for the lock
            release.set()
        assert order == ["first in", "first out", "second in"]
        assert len(await two.get_records(A, ["r01", "r02"])) == 2


def _scratch() -> Op[None]:
    yield execute("CREATE TABLE scratch (n INTEGER, pad BLOB)")


def _insert_where(n: int, *, pad: int = 0, slow: bool = False) -> Op[str]:
    """Insert a row (``slow``: by way of a statement that waits 6 ms); where it ran."""
    yield execute("INSERT INTO scratch (n, pad) VALUES (?, zeroblob(?))", (n, pad))
    if slow:
        yield value("SELECT pause()")
    main = threading.current_thread() is threading.main_thread()
    return "trio thread" if main else "writer thread"


def _scratch_rows() -> Op[int]:
    n: int = yield value("SELECT count(*) FROM scratch")
    return n


async def _light(driver: SQLiteDriver, n: int, *, pad: int = 0, slow: bool = False) -> str:
    async with driver.transaction(A, light=True) as txn:
        return await txn.run(_insert_where(n, pad=pad, slow=slow))


@pytest.fixture
async def scratch(tmp_path: Path) -> AsyncIterator[SQLiteDriver]:
    driver = await SQLiteDriver.open(tmp_path / "w.sqlite3", readers=1)
    try:
        await driver.write(_scratch())
        yield driver
    finally:
        await driver.aclose()


async def test_a_light_write_transaction_runs_on_the_trio_thread_a_heavy_one_on_the_writer(
    scratch: SQLiteDriver,
) -> None:
    assert await _light(scratch, 1) == "trio thread"
    async with scratch.transaction(A) as txn:
        assert await txn.run(_insert_where(2)) == "writer thread"
    assert await scratch.read(_scratch_rows()) == 2  # both committed


async def test_a_light_transaction_waits_for_another_process_off_the_trio_thread(
    tmp_path: Path, scratch: SQLiteDriver
) -> None:
    # another process's turn: it holds the write lock
    fd = os.open(f"{tmp_path / 'w.sqlite3'}-writelock", os.O_RDWR)
    fcntl.flock(fd, fcntl.LOCK_EX)
    # were the wait on the trio thread, nothing below would run: a safety net lets go after
    # 30 s, and the transaction then says it ran there
    net = threading.Timer(30.0, os.close, (fd,))
    net.start()
    where: list[str] = []

    async def write() -> None:
        where.append(await _light(scratch, 1))

    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(write)
            await trio.testing.wait_all_tasks_blocked()
            assert where == []  # still waiting for the lock, and the trio thread runs on
            net.cancel()
            os.close(fd)
    finally:
        net.cancel()
    assert where == ["writer thread"]
    assert await _light(scratch, 2) == "trio thread"  # the lock is free again


@pytest.mark.alone  # it tells a sleep from a preemption: other tests would preempt it
async def test_light_transactions_slow_three_times_in_a_row_go_to_the_writer_thread(
    tmp_path: Path, scratch: SQLiteDriver, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 6 ms on the clock: a disk that makes each commit wait, say
    def pause(driver: SQLiteDriver) -> None:
        driver._writer.create_function("pause", 0, lambda: time.sleep(0.006) or 0)

    pause(scratch)
    pattern = [True, True, False, True, True]  # never three slow ones in a row
    # a preemption only ever makes a step count as not slow: this holds on any machine
    assert [await _light(scratch, i, slow=s) for i, s in enumerate(pattern)] == ["trio thread"] * 5
    # A slow step that the OS preempted counts as not slow (the driver cannot tell its sleep
    # from its wait for a core), so on a busy machine (CI, 20 tries in a row) three slow steps
    # were not always three in a row. Here the thread's count of preemptions is held still,
    # on a fresh database: each slow step counts.
    usage = sqlite_driver._thread_usage
    monkeypatch.setattr(sqlite_driver, "_thread_usage", lambda: (usage()[0], 0))
    driver = await SQLiteDriver.open(tmp_path / "fresh.sqlite3", readers=1)
    try:
        await driver.write(_scratch())
        pause(driver)
        slow = [await _light(driver, i, slow=True) for i in range(3)]
        assert slow == ["trio thread"] * 3  # the third in a row runs there too
        assert await _light(driver, 3) == "writer thread"
        assert await driver.read(_scratch_rows()) == 4
    finally:
        await driver.aclose()


def _spin(seconds: float) -> int:
    """Busy on the CPU for ``seconds`` of this thread's CPU time (never asleep)."""
    until = time.thread_time() + seconds
    while time.thread_time() < until:
        pass
    return 0


@pytest.mark.alone  # it tells a sleep from a preemption: other tests would preempt it
async def test_light_transactions_busy_on_the_cpu_stay_on_the_trio_thread(
    scratch: SQLiteDriver,
) -> None:
    # 6 ms each, but running, not asleep: nothing the writer thread would spare the trio
    # thread (a transaction preempted by another process counts the same way)
    scratch._writer.create_function("pause", 0, lambda: _spin(0.006))
    assert [await _light(scratch, i, slow=True) for i in range(4)] == ["trio thread"] * 4
    assert await _light(scratch, 4) == "trio thread"
    assert await scratch.read(_scratch_rows()) == 5


async def test_the_driver_checkpoints_the_wal_itself(
    tmp_path: Path, scratch: SQLiteDriver, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sqlite_driver, "CHECKPOINT_COMMITS", 4)
    for n in range(40):  # 40 commits of 64 KB: 2.6 MB of WAL if it were never checkpointed
        await _light(scratch, n, pad=65_536)
        await scratch.checkpoints_settled()
    assert await scratch.read(_scratch_rows()) == 40
    wal = tmp_path / "w.sqlite3-wal"
    assert wal.stat().st_size < 1_000_000  # checkpointed every 4 commits, and reused


async def test_a_commit_that_makes_a_checkpoint_due_does_not_wait_for_it(
    tmp_path: Path, scratch: SQLiteDriver, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sqlite_driver, "CHECKPOINT_COMMITS", 4)
    wal = tmp_path / "w.sqlite3-wal"
    await _light(scratch, 0)
    restarts = _wal_restarts(wal)
    # the checkpoint thread is kept busy: every checkpoint asked for waits behind this
    gate = threading.Event()
    scratch._checkpointer._executor.submit(gate.wait)
    try:
        # each commit stays a light one on the trio thread, the 4th, 8th, ... too
        threads = [await _light(scratch, n, pad=65_536) for n in range(1, 13)]
        assert threads == ["trio thread"] * 12
        assert wal.stat().st_size > 12 * 65_536 and _wal_restarts(wal) == restarts
    finally:
        gate.set()
    # the checkpoint asked for at the 4th commit runs now, after the 12th: it copies them all
    await scratch.checkpoints_settled()
    await _light(scratch, 13)  # so the WAL is written again from its start
    assert _wal_restarts(wal) == restarts + 1
    assert await scratch.read(_scratch_rows()) == 14


async def test_a_wal_that_is_never_all_copied_is_started_over_past_its_limit(
    tmp_path: Path, scratch: SQLiteDriver, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SQLite starts the WAL over only at a commit that finds all of it copied into the
    database. Under a steady load a passive checkpoint never gets that far: a reader (another
    worker's request) is on a snapshot older than the last commit, and it stops there; so the
    WAL grew by every commit (2.4 GB in 30 s of creates). Past WAL_RESTART_BYTES the
    checkpoint starts it over, under the write lock."""
    monkeypatch.setattr(sqlite_driver, "CHECKPOINT_COMMITS", 1)
    monkeypatch.setattr(sqlite_driver, "WAL_RESTART_BYTES", 1_000_000)
    wal = tmp_path / "w.sqlite3-wal"
    reader = sqlite3.connect(tmp_path / "w.sqlite3", isolation_level=None, check_same_thread=False)
    checkpointer = scratch._checkpointer
    passive = checkpointer._passive

    def passive_while_reading() -> bool:
        ran = passive()  # it stops at the reader's snapshot, one commit short
        # the reader's request is done. (Not in one: the checkpoint of the commit before the
        # loop, which may run after the loop's first BEGIN, ended that read already; a fresh
        # clone's make test once failed on "cannot commit - no transaction is active")
        if reader.in_transaction:
            reader.execute("COMMIT")
        return ran

    monkeypatch.setattr(checkpointer, "_passive", passive_while_reading)
    await _light(scratch, 0)
    restarts = _wal_restarts(wal)
    largest = 0
    try:
        for n in range(1, 41):  # 40 commits of 64 KB: 2.6 MB of WAL were it never started over
            reader.execute("BEGIN")
            reader.execute("SELECT count(*) FROM scratch").fetchone()
            await _light(scratch, n, pad=65_536)
            await scratch.checkpoints_settled()
            largest = max(largest, wal.stat().st_size)
    finally:
        reader.close()
    assert largest < 1_200_000  # the limit, and a commit past it
    assert _wal_restarts(wal) > restarts
    assert await scratch.read(_scratch_rows()) == 41  # every commit is in


def _wal_restarts(wal: Path) -> int:
    """The WAL header's checkpoint sequence number: one up each time the WAL starts over."""
    with wal.open("rb") as f:
        return int.from_bytes(f.read(16)[12:16], "big")


async def test_a_write_outside_a_workspace_is_one_transaction(lite: Store) -> None:
    """Driver.write runs all of an operation or none of it (and its rows commit once)."""

    def half_then_fail() -> Op[None]:
        yield execute("INSERT INTO meta (key, value) VALUES ('half', '1')")
        yield execute("INSERT INTO meta (key, value) VALUES ('half', '2')")  # the key is taken

    with pytest.raises(Exception):  # noqa: B017 (the driver's conflict, whatever its name)
        await lite._db.write(half_then_fail())
    assert await lite.get_meta("half") is None


async def test_a_read_and_a_light_transaction_take_no_turn_of_the_scheduler(
    scratch: SQLiteDriver,
) -> None:
    """With a connection free, a read and a light write transaction run through without
    letting another task in: a create (its rights read and its transaction) costs no passes
    of the run loop here."""
    others_ran = 0

    async def other() -> None:
        nonlocal others_ran
        others_ran += 1

    async with trio.open_nursery() as nursery:
        await trio.testing.wait_all_tasks_blocked()
        nursery.start_soon(other)  # runnable from now on
        await scratch.read(_scratch_rows())
        assert await _light(scratch, 1) == "trio thread"
        assert others_ran == 0
    assert others_ran == 1


async def test_a_task_that_only_reads_and_writes_lets_the_others_run(
    scratch: SQLiteDriver,
) -> None:
    """Every UNYIELDED_MOST-th read or transaction yields all the same: a loop of them does
    not keep every other task (requests, timers) off the trio thread until it ends."""
    steps = 0
    seen_at: int | None = None

    async def other() -> None:
        nonlocal seen_at
        seen_at = steps

    async with trio.open_nursery() as nursery:
        await trio.testing.wait_all_tasks_blocked()
        nursery.start_soon(other)
        for n in range(3 * sqlite_driver.UNYIELDED_MOST):
            await (scratch.read(_scratch_rows()) if n % 2 else _light(scratch, n))
            steps += 1
    # the loop's task may come first in the batch after its yield (trio orders each batch at
    # random), and run up to UNYIELDED_MOST steps more before the other task's turn
    assert seen_at is not None and seen_at <= 2 * sqlite_driver.UNYIELDED_MOST + 1
