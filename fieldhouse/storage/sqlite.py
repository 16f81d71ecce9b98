"""The embedded engine: SQLite in WAL mode, driven from trio.

Durability: ``synchronous=NORMAL``. A commit appends its pages to the WAL file with
``write(2)`` before it returns, so a write acknowledged to a client survives the death of the
process (a crash, SIGKILL, the OOM killer): the kernel holds the file's pages
(tests/reliability/test_crash.py kills a server mid-write and finds every acknowledged write).
The WAL reaches the disk at each checkpoint (every :data:`CHECKPOINT_COMMITS` commits): an OS
crash or a power cut may lose the commits made since the last one, never the database's
consistency. ``FULL``
waited for the disk at every commit: 2-5 ms of a create's 6-7 ms at one connection on this
machine's disk (its fsync alone, measured 2.0-4.9 ms a commit; NORMAL 0.03-0.09 ms).

One writer connection sits behind a ``CapacityLimiter(1)`` and a lock held for a whole write
transaction, its operations each in one worker-thread hop (a checkpoint waits for the disk); a
small pool of reader connections serves reads (WAL lets readers run beside the writer).

A light write transaction (a few records: record creates and updates) runs on the trio thread
instead, commit included, whenever this process holds the write lock or can take it without
waiting, and while such transactions stay quick there (see :data:`INLINE_WRITE_SECONDS`): held
across thread hops, the write lock that every process on the database waits for was busy
~2.3 ms a transaction, most of it waiting for the threads to wake and the GIL, and two
workers created 1,130-1,170 records/s at 16 connections; inline, 1,475-1,510.

The WAL is checkpointed by a thread of its own on a connection of its own (:class:`_Checkpointer`),
every :data:`CHECKPOINT_COMMITS` commits, beside the writes: SQLite's automatic checkpoint would
run inside a commit on the trio thread, and a checkpoint inside the commit that made it due kept
that commit's request waiting 25-33 ms for the 6,100 pages of 256 creates (a PASSIVE checkpoint
waits for no reader or writer, so writes go on while it copies). Under a steady load that is not
enough to keep the WAL short: past :data:`WAL_RESTART_BYTES` the checkpoint thread takes the
write lock and starts the WAL over.

A read starts on the trio thread and moves to a worker thread only if it takes more than
:data:`INLINE_READ_SECONDS` of CPU: SQLite interrupts it there (a progress handler), and the
interrupted statement runs again on the thread, on the same connection and in the same read
transaction, and the rest of the operation after it; for a while after, that statement starts
on a thread, until a run there shows it cheap again. A thread hop costs more than most reads:
the GIL goes back and forth between the trio thread and the reader for every row, and a list
of 25 records at 1,000 rows cost 4.4 ms of CPU with the hop and 2.5 ms without (one server
process under wrk, as the side-by-side list run loads it).

Several server processes on one database file (``serve --workers N``) queue for the write
lock on an ``flock`` of ``<database>-writelock`` taken before ``BEGIN IMMEDIATE`` and let go
right after ``COMMIT``: the kernel wakes the next process the moment the lock is free. Left to
SQLite, a process that finds the database locked sleeps in its busy handler (1, 2, 5, 10 ms
...) while the lock sits free, and two processes together wrote no faster than one.
"""

from __future__ import annotations

import fcntl
import hashlib
import logging
import math
import os
import resource
import sqlite3
import time
from collections.abc import AsyncIterator, Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar

import trio

from fieldhouse.storage import writebehind as wb
from fieldhouse.storage.base import ConflictError, Op, StatementFailed, Stmt
from fieldhouse.storage.migrations import migrate_sqlite
from fieldhouse.storage.sqldialect import SQLITE

T = TypeVar("T")
Conn = sqlite3.Connection
log = logging.getLogger("fieldhouse.storage")

#: how much CPU a read takes on the trio thread before it is moved to a reader thread
INLINE_READ_SECONDS = 0.002
#: SQLite virtual-machine steps between looks at the clock (about 0.1 ms of a scan)
PROGRESS_STEPS = 1000
#: a statement that ran past INLINE_READ_SECONDS goes straight to a reader thread for this
#: long after (its work on the trio thread would be thrown away again: a filtered, sorted list
#: of 100,000 records took 6.6 -> 10.1 ms at one client without this memory)
SLOW_MEMORY_SECONDS = 30.0
#: the most statements remembered as slow (the memory is cleared past it)
SLOW_MEMORY_SIZE = 1024
#: a light write transaction (``transaction(..., light=True)``: a few records) runs on the trio
#: thread, its commit too, whenever this process holds the write lock or can take it without
#: waiting; INLINE_SLOW_TRANSACTIONS in a row that each left the thread asleep for longer than
#: INLINE_WRITE_SECONDS there (a write waiting for the disk; see :func:`_asleep_since`) send light
#: transactions to the writer thread for SLOW_MEMORY_SECONDS
INLINE_WRITE_SECONDS = 0.005
INLINE_SLOW_TRANSACTIONS = 3
#: the WAL is checkpointed after this many commits of this process, by the checkpoint thread
#: (SQLite's automatic checkpoint runs inside a commit, which may be on the trio thread)
CHECKPOINT_COMMITS = 256
#: a WAL longer than this after a passive checkpoint is started over from its beginning by a
#: RESTART checkpoint under the write lock of every process (see :class:`_Checkpointer`)
WAL_RESTART_BYTES = 32 * 1024 * 1024
#: milliseconds that RESTART checkpoint waits for the readers of older snapshots to finish
#: (holding the write lock meanwhile); past it, the next checkpoint tries again
WAL_RESTART_WAIT_MS = 200


def _connect(path: str, synchronous: str) -> Conn:
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=30.0)
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute(f"PRAGMA synchronous={synchronous}")
    conn.execute("PRAGMA busy_timeout=30000")
    conn.execute("PRAGMA temp_store=MEMORY")
    conn.execute("PRAGMA cache_size=-65536")
    return conn


def _execute(c: Conn, s: Stmt) -> Any:
    if s.result == "many":
        return c.executemany(SQLITE.native(s.sql), s.params)
    cur = c.execute(*SQLITE.statement(s.sql, s.params))
    if s.result == "rows":
        return cur.fetchall()
    if s.result == "count":
        return cur.rowcount
    first = cur.fetchone() if s.result in ("row", "value") else None
    if s.result == "value":
        return None if first is None else first[0]
    return first


def _atomically(c: Conn, op: Op[T]) -> T:
    """Every statement of ``op`` in one transaction: committed when it ends, rolled back if
    it raises."""
    c.execute("BEGIN IMMEDIATE")
    try:
        result = run_op(c, op)
    except BaseException:
        if c.in_transaction:
            c.execute("ROLLBACK")
        raise
    c.execute("COMMIT")
    return result


def run_op(c: Conn, op: Op[T]) -> T:
    """Run every statement of ``op`` on ``c`` (in the calling thread)."""
    try:
        stmt = next(op)
    except StopIteration as done:
        result: T = done.value
        return result
    return run_from(c, op, stmt)


def run_from(c: Conn, op: Op[T], stmt: Stmt, execute: Callable[[Conn, Stmt], Any] = _execute) -> T:
    """Run ``stmt``, the statement ``op`` yielded last, and every statement after it."""
    try:
        while True:
            stmt = op.send(execute(c, stmt))
    except StopIteration as done:
        result: T = done.value
        return result
    except sqlite3.IntegrityError as exc:
        raise ConflictError(str(exc)) from exc
    except (sqlite3.Error, UnicodeEncodeError, OverflowError) as exc:
        # a value sqlite3 cannot bind (a lone surrogate, an integer past 64 bits) or a
        # statement SQLite refuses
        raise StatementFailed(f"{type(exc).__name__}: {exc}") from exc


class _Overran(Exception):
    """A read ran past its time on the trio thread; ``stmt`` was interrupted."""

    def __init__(self, stmt: Stmt) -> None:
        self.stmt = stmt


def _run_inline(c: Conn, op: Op[T], stmt: Stmt, slow: dict[str, float]) -> T:
    """:func:`run_from` on the calling (trio) thread for up to INLINE_READ_SECONDS; then
    SQLite interrupts the statement running, and _Overran names it. A statement in ``slow``
    (SQL -> when it last overran) is not started here but handed on at once."""

    def execute(c: Conn, stmt: Stmt) -> Any:
        last = slow.get(stmt.sql)
        if last is not None and time.monotonic() - last < SLOW_MEMORY_SECONDS:
            raise _Overran(stmt)
        try:
            return _execute(c, stmt)
        except sqlite3.OperationalError as exc:
            if exc.sqlite_errorcode != sqlite3.SQLITE_INTERRUPT:
                raise
            if len(slow) >= SLOW_MEMORY_SIZE:
                slow.clear()
            slow[stmt.sql] = time.monotonic()
            raise _Overran(stmt) from None

    # the thread's CPU time, not the clock's: on a busy machine the OS may take the core from
    # the process mid-statement, and a cheap statement would then be sent to a thread for
    # SLOW_MEMORY_SECONDS, paying the hop's GIL ping-pong on every read of it. The clock is
    # first read at SQLite's first look (after PROGRESS_STEPS steps, ~0.1 ms): most reads end
    # before it and read no clock at all (a read of the thread's CPU time is a system call)
    deadline = math.inf

    def overran() -> bool:
        nonlocal deadline
        if deadline == math.inf:
            deadline = _thread_cpu() + INLINE_READ_SECONDS
            return False
        return _thread_cpu() > deadline

    c.set_progress_handler(overran, PROGRESS_STEPS)
    try:
        return run_from(c, op, stmt, execute)
    finally:
        c.set_progress_handler(None, 0)


def _run_remeasured(c: Conn, op: Op[T], stmt: Stmt, slow: dict[str, float]) -> T:
    """:func:`run_from` on a reader thread, timing ``stmt`` (the one that overran or was
    remembered as slow): when it now costs less than INLINE_READ_SECONDS of CPU it is
    forgotten, and its next run starts on the trio thread again (it overran once because the
    database pages were cold, say, and would otherwise pay the thread hop for the whole
    SLOW_MEMORY_SECONDS)."""

    def execute(c: Conn, s: Stmt) -> Any:
        if s is not stmt:
            return _execute(c, s)
        started = time.thread_time()
        result = _execute(c, s)
        if time.thread_time() - started < INLINE_READ_SECONDS:
            slow.pop(s.sql, None)
        return result

    return run_from(c, op, stmt, execute)


def commit(c: Conn) -> None:
    c.execute("COMMIT")


def _commit(c: Conn) -> None:
    commit(c)  # looked up at call time (run's ``commit`` flag shadows the name)


def rollback(c: Conn) -> None:
    if c.in_transaction:
        c.execute("ROLLBACK")


#: the calling thread's resource usage, where the OS tells it (Linux)
_RUSAGE_THREAD: int | None = getattr(resource, "RUSAGE_THREAD", None)


def _thread_usage() -> tuple[float, int]:
    """CPU seconds the calling thread has used and its involuntary context switches so far
    (0 where unknown), from one ``getrusage(RUSAGE_THREAD)`` where there is one: ~1 us a call
    on this machine's VM, where ``time.thread_time()`` (``clock_gettime`` of the thread's CPU
    clock) took ~4 us, a system call each."""
    if _RUSAGE_THREAD is None:
        return time.thread_time(), 0
    usage = resource.getrusage(_RUSAGE_THREAD)
    return usage.ru_utime + usage.ru_stime, usage.ru_nivcsw


def _thread_cpu() -> float:
    """CPU seconds the calling thread has used."""
    return _thread_usage()[0]


Mark = tuple[float, float, int]


def _mark() -> Mark:
    """Where the calling thread's clocks stand, for :func:`_asleep_since`: the wall clock, the
    thread's CPU time and its involuntary context switches."""
    return time.perf_counter(), *_thread_usage()


def _asleep_since(mark: Mark) -> float:
    """Seconds the calling thread spent asleep since ``mark`` (waiting for the disk, a lock, a
    sleep): wall time less its CPU time, or 0 when the OS preempted it meanwhile.

    On the clock alone, a light transaction that the OS preempted (another process had the
    core: a load generator, the embedder starting up, the other worker) looked like a slow
    disk, and three in a row sent every light transaction to the writer thread for 30 s: while
    a server started under load, for the whole of a 10 s benchmark after it (one thread hop
    per transaction, 8% of the trio thread in ``start_thread_soon``). A preempted step counts
    as not asleep: one slow transaction less seen is the safe side, where its time waiting for
    a core cannot be told apart without the scheduler's statistics (reading
    ``/proc/thread-self/schedstat`` before and after each step cost 3% of a worker's trio
    thread under load, where the thread's count of involuntary switches costs a tenth of it).
    Where that count is unknown, waiting for a core counts as asleep."""
    wall, cpu, preemptions = _mark()
    idle = (wall - mark[0]) - (cpu - mark[1])
    if idle <= 0.0 or preemptions != mark[2]:
        return 0.0
    return idle


#: at most this many reads and write transactions in a row take a free lock without yielding
#: to the scheduler (see :meth:`SQLiteDriver._acquire`)
UNYIELDED_MOST = 16


class _Checkpointer:
    """Checkpoints the WAL in a daemon thread on a connection of its own, when asked, never
    in the asker's way: :meth:`due` returns at once. One asked for while one runs is dropped;
    the frames committed meanwhile wait for the next.

    A passive checkpoint copies the WAL's frames into the database and never waits; the WAL is
    written again from its start by the first commit that finds every frame copied and no
    reader on them. Under a steady write load a commit always lands while the checkpoint runs,
    so that never happened: the WAL grew by every commit's pages for as long as the load
    lasted (2.4 GB after 30 s of creates at one connection, and each create slower as every
    read of a page looked through more of the WAL's index: 910 -> 730 a second). Past
    WAL_RESTART_BYTES, the checkpoint takes the write lock of every process (the writelock
    file, on a descriptor of its own) and runs a RESTART checkpoint: the few frames committed
    since the passive one are copied and the WAL starts over, its file reused."""

    def __init__(self, path: str, synchronous: str) -> None:
        self._path, self._synchronous = path, synchronous
        self._executor = ThreadPoolExecutor(1, thread_name_prefix="fieldhouse-checkpoint")
        self._conn: Conn | None = None
        self._last: Future[None] | None = None
        self._lock_fd: int | None = None

    def due(self) -> None:
        if self._last is None or self._last.done():
            self._last = self._executor.submit(self._checkpoint)

    def _checkpoint(self) -> None:
        if self._conn is None:
            self._conn = _connect(self._path, self._synchronous)
        if self._passive() and self._wal_bytes() > WAL_RESTART_BYTES:
            self._restart()

    def _passive(self) -> bool:
        """A passive checkpoint: waits for no reader or writer, other processes write on
        meanwhile. Whether it ran."""
        assert self._conn is not None
        try:
            self._conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
        except sqlite3.OperationalError as error:  # another process's checkpoint is running
            log.debug("checkpoint skipped: %s", error)
            return False
        return True

    def _wal_bytes(self) -> int:
        try:
            return os.stat(f"{self._path}-wal").st_size
        except FileNotFoundError:
            return 0

    def _restart(self) -> None:
        """The WAL started over, under the write lock of every process: no commit lands while
        the last frames are copied. Readers of older snapshots get WAL_RESTART_WAIT_MS to
        finish; past that (a long export, say) the WAL is left as it is until the next try."""
        assert self._conn is not None
        if self._lock_fd is None:
            self._lock_fd = os.open(f"{self._path}-writelock", os.O_RDWR | os.O_CLOEXEC)
        fcntl.flock(self._lock_fd, fcntl.LOCK_EX)
        try:
            if self._wal_bytes() <= WAL_RESTART_BYTES:
                return  # another process started it over while this one waited for the lock
            self._conn.execute(f"PRAGMA busy_timeout={WAL_RESTART_WAIT_MS}")
            try:
                busy, _, _ = self._conn.execute("PRAGMA wal_checkpoint(RESTART)").fetchone()
            except sqlite3.OperationalError as error:
                log.debug("WAL restart skipped: %s", error)
            else:
                if busy:
                    log.info("WAL restart put off: a reader of an older snapshot is still on")
            finally:
                self._conn.execute("PRAGMA busy_timeout=30000")
        finally:
            fcntl.flock(self._lock_fd, fcntl.LOCK_UN)

    def settled(self) -> None:
        """Blocks until the checkpoint asked for last has finished."""
        if self._last is not None:
            self._last.result()

    def close(self) -> None:
        """Lets a running checkpoint finish, then closes the connection."""
        self._executor.shutdown(wait=True)
        if self._conn is not None:
            self._conn.close()
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None


class SQLiteDriver:
    dialect = SQLITE
    shared_between_processes = False

    def __init__(
        self,
        writer: Conn,
        readers: list[Conn],
        lock_fd: int | None,
        checkpointer: _Checkpointer,
    ) -> None:
        self._writer = writer
        self._checkpointer = checkpointer
        #: the file the processes on this database queue on for the write lock
        self._lock_fd = lock_fd
        self._locked = False
        self._write_limiter = trio.CapacityLimiter(1)
        self._write_lock = trio.Lock()
        self._readers = readers
        self._read_limiter = trio.CapacityLimiter(len(readers))
        #: reads' statements that overran on the trio thread lately: SQL -> monotonic time
        self._slow: dict[str, float] = {}
        self._pending: list[str] = []
        #: commits since the checkpoint thread was last asked to checkpoint the WAL
        self._commits = 0
        #: light transactions run on the writer thread until this monotonic time
        self._inline_off_until = -math.inf
        #: light transactions in a row that slept longer than INLINE_WRITE_SECONDS
        self._slow_light = 0
        #: locks taken in a row without yielding to the scheduler
        self._unyielded = 0

    @classmethod
    async def open(
        cls,
        path: Path,
        *,
        readers: int = 3,
        synchronous: str = "NORMAL",
        migrate: Callable[[Conn], object] = migrate_sqlite,
    ) -> SQLiteDriver:
        def setup() -> tuple[Conn, list[Conn], int]:
            path.parent.mkdir(parents=True, exist_ok=True)
            lock_fd = os.open(f"{path}-writelock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
            fcntl.flock(lock_fd, fcntl.LOCK_EX)
            try:
                writer = _connect(str(path), synchronous)
                migrate(writer)
                writer.execute("PRAGMA wal_autocheckpoint=0")  # see CHECKPOINT_COMMITS
            finally:
                fcntl.flock(lock_fd, fcntl.LOCK_UN)
            return writer, [_connect(str(path), synchronous) for _ in range(readers)], lock_fd

        writer, pool, lock_fd = await trio.to_thread.run_sync(setup)
        return cls(writer, pool, lock_fd, _Checkpointer(str(path), synchronous))

    async def aclose(self) -> None:
        async with self._write_lock:
            for conn in [self._writer, *self._readers]:
                await trio.to_thread.run_sync(conn.close)
            await trio.to_thread.run_sync(self._checkpointer.close)
            if self._lock_fd is not None:
                os.close(self._lock_fd)
                self._lock_fd = None

    async def _acquire(self, lock: trio.Lock | trio.CapacityLimiter) -> None:
        """Take ``lock`` at once when it is free, else wait for it. ``async with lock`` yields
        to the scheduler even when the lock is free (a checkpoint): a create took three such
        rounds of the run loop on its way through this driver (two reads and its
        transaction), each a pass of every runnable task and an ``epoll_wait``. Fair all the
        same: a lock with waiters is not free (trio hands it to the first of them). Every
        UNYIELDED_MOST-th take yields all the same, so a task that only reads or writes (each
        at most INLINE_READ_SECONDS of CPU on the trio thread, or a light transaction) lets the
        others run between its steps."""
        if self._unyielded < UNYIELDED_MOST:
            try:
                lock.acquire_nowait()
            except trio.WouldBlock:
                pass
            else:
                self._unyielded += 1
                return
        self._unyielded = 0
        await lock.acquire()

    def _lock(self) -> None:
        """Queue for the write lock among the processes on this database (blocks the thread)."""
        if self._lock_fd is not None and not self._locked:
            fcntl.flock(self._lock_fd, fcntl.LOCK_EX)
            self._locked = True

    def _unlock(self) -> None:
        if self._locked:
            self._locked = False
            if self._lock_fd is not None:
                fcntl.flock(self._lock_fd, fcntl.LOCK_UN)

    def _try_lock(self) -> bool:
        """Hold the write lock, taking it only if no other process has it (never blocks)."""
        if self._lock_fd is None or self._locked:
            return True
        try:
            fcntl.flock(self._lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        self._locked = True
        return True

    def _locked_then(self, fn: Callable[[Conn], T]) -> T:
        """``fn`` on the writer under the write lock, let go after (autocommit statements)."""
        self._lock()
        try:
            result = fn(self._writer)
        finally:
            self._unlock()
        self._committed()
        return result

    def _committed(self) -> None:
        """Count a commit; ask the checkpoint thread for a checkpoint when one is due."""
        self._commits += 1
        if self._commits >= CHECKPOINT_COMMITS:
            self._commits = 0
            self._checkpointer.due()

    async def checkpoints_settled(self) -> None:
        """Returns once the WAL checkpoint asked for last has finished (for tests)."""
        await trio.to_thread.run_sync(self._checkpointer.settled)

    def _may_inline(self) -> bool:
        """Whether the next step of a light transaction may run on the trio thread: steps
        have been quick lately, and the write lock is (or can be at once) this process's."""
        return time.monotonic() >= self._inline_off_until and self._try_lock()

    def _timed(self, seconds: float) -> None:
        """A light transaction's steps on the trio thread left it asleep for ``seconds`` (a
        write waiting for the disk; one slow transaction may be a one-off)."""
        if seconds <= INLINE_WRITE_SECONDS:
            self._slow_light = 0
            return
        self._slow_light += 1
        if self._slow_light >= INLINE_SLOW_TRANSACTIONS:
            self._slow_light = 0
            self._inline_off_until = time.monotonic() + SLOW_MEMORY_SECONDS
            log.info("light write transactions run on the writer thread for a while")

    async def _write_alone(self, fn: Callable[[Conn], T]) -> T:
        """``fn`` on the writer, outside any transaction, under the write lock of every process
        (the caller holds this process's)."""
        return await trio.to_thread.run_sync(self._locked_then, fn, limiter=self._write_limiter)

    def _finish(self, end: Callable[[Conn], None]) -> Callable[[Conn], None]:
        """``end`` (COMMIT or ROLLBACK), then the write lock goes to the next process."""

        def run(c: Conn) -> None:
            try:
                end(c)
            finally:
                self._unlock()
            if end is _commit:
                self._committed()

        return run

    async def _on_writer(self, fn: Callable[[Conn], T]) -> T:
        return await trio.to_thread.run_sync(
            self._run_pending_then, fn, limiter=self._write_limiter
        )

    def _run_pending_then(self, fn: Callable[[Conn], T]) -> T:
        # BEGIN IMMEDIATE rides along with the transaction's first statement instead of costing
        # a thread hop of its own; only this transaction's task touches the queue, and it waits
        # while the worker thread runs.
        pending, self._pending = self._pending, []
        if pending:
            self._lock()
        for sql in pending:
            self._writer.execute(sql)
        return fn(self._writer)

    async def read(self, op: Op[T], *, snapshot: bool = False) -> T:
        await self._acquire(self._read_limiter)
        try:
            conn = self._readers.pop()
            try:
                if snapshot:
                    conn.execute("BEGIN")
                try:
                    return await self._read_on(conn, op)
                finally:
                    if snapshot:
                        conn.execute("COMMIT")
            finally:
                self._readers.append(conn)
        finally:
            self._read_limiter.release()

    async def _read_on(self, conn: Conn, op: Op[T]) -> T:
        try:
            stmt = next(op)
        except StopIteration as done:
            result: T = done.value
            return result
        try:
            return _run_inline(conn, op, stmt, self._slow)
        except _Overran as overran:  # the rest where a long read blocks nobody
            return await trio.to_thread.run_sync(
                _run_remeasured, conn, op, overran.stmt, self._slow
            )

    async def write(self, op: Op[T]) -> T:
        """``op`` in one transaction of its own: all of it or none (and an executemany of
        thousands of rows is one commit, not one each)."""
        async with self._write_lock:
            return await self._write_alone(lambda c: _atomically(c, op))

    @asynccontextmanager
    async def transaction(self, account_id: str, *, light: bool = False) -> AsyncIterator[_Txn]:
        # one writer: the lock serialises every workspace's transactions in this process, and
        # the flock of <database>-writelock those of the processes on the database
        await self._acquire(self._write_lock)
        try:
            self._pending = ["BEGIN IMMEDIATE"]
            try:
                txn = _Txn(self, light)
                yield txn
                if not txn.committed:
                    await txn.run(wb.nothing(), commit=True)
            except BaseException:
                # also after a failed COMMIT: the connection must leave the transaction
                self._pending = []
                with trio.CancelScope(shield=True):
                    await self._on_writer(self._finish(rollback))
                raise
            finally:
                self._unlock()  # a transaction that never reached the database took none
        finally:
            self._write_lock.release()

    async def create_index(self, key: Sequence[str]) -> None:
        exprs = [f"({e.replace('r.fields', 'fields')})" for e in key]
        name = "rx_" + hashlib.sha1(", ".join(exprs).encode()).hexdigest()[:16]
        if len(exprs) == 1:  # the name the single-expression indexes always had
            name = "rx_" + hashlib.sha1(exprs[0][1:-1].encode()).hexdigest()[:16]
        sql = (
            f"CREATE INDEX IF NOT EXISTS {name} ON records"
            f" (account_id, module_id, {', '.join(exprs)}, id) WHERE deleted_at IS NULL"
        )
        async with self._write_lock:
            await self._write_alone(lambda c: c.execute(sql))


class _Txn:
    """The open write transaction: its statements run after the writer's pending BEGIN; a
    light one's on the trio thread while that stays cheap (see INLINE_WRITE_SECONDS).

    Each step on the writer thread costs a wake-up of that thread and of the trio task, and
    the GIL handed back and forth; held across them, the write lock that the processes on the
    database take in turn was busy ~2.3 ms per transaction (create at 16 connections, two
    workers), more than the statements and the commit take."""

    def __init__(self, driver: SQLiteDriver, light: bool = False) -> None:
        self._driver = driver
        self._light = light
        self._inline_seconds: float | None = None  # asleep on the trio thread (None: no step)
        self.committed = False

    def _inline(self, fn: Callable[[Conn], T]) -> T:
        started = _mark()
        try:
            return self._driver._run_pending_then(fn)
        finally:
            spent = _asleep_since(started)
            self._inline_seconds = (self._inline_seconds or 0.0) + spent

    async def _step(self, fn: Callable[[Conn], T]) -> T:
        if self._light and self._driver._may_inline():
            return self._inline(fn)
        return await self._driver._on_writer(fn)

    async def run(self, op: Op[T], *, commit: bool = False) -> T:
        if not commit:
            return await self._step(lambda c: run_op(c, op))

        def run_and_commit(c: Conn) -> T:
            result = run_op(c, op)
            self._driver._finish(_commit)(c)
            return result

        result = await self._step(run_and_commit)
        if self._inline_seconds is not None:
            self._driver._timed(self._inline_seconds)
        self.committed = True
        return result
