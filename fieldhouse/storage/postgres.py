"""The PostgreSQL engine: asyncpg, driven from trio through trio-asyncio.

Every asyncpg object lives inside the trio-asyncio loop that :func:`open_database` opens
around the store; each call crosses with ``aio_as_trio``, so a trio cancellation cancels the
asyncio task and asyncpg cancels the query on the server. One call runs one whole operation
(several statements when it needs them) on one pooled connection. JSON travels as text both
ways (asyncpg's default for ``jsonb``), exactly as it does on SQLite.

Ordering across processes: :meth:`PostgresDriver.transaction` takes the workspace's
transaction-level advisory lock before anything else, so the write transactions of one
workspace run one after another whichever process runs them; its counters (activity sequence,
schema version, auto-number ``nextValue``) are rows updated inside those transactions.

Driver errors are named at this boundary (:func:`aio`): a database that cannot be reached is
:class:`~fieldhouse.model.errors.StoreUnavailable` (a 503 wherever it surfaces), a statement it
refuses :class:`~fieldhouse.storage.base.StatementFailed`, a broken uniqueness rule
:class:`~fieldhouse.storage.base.ConflictError`. A transaction whose COMMIT went out and whose
answer was lost (the server restarted, the connection dropped) is not taken as committed or as
rolled back: its id, read just before the COMMIT, is looked up with ``pg_xact_status`` once the
database answers again (:meth:`PostgresDriver.outcome`).
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager, nullcontext, suppress
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

import asyncpg
import trio
import trio_asyncio
from asyncpg.pool import PoolConnectionProxy

from fieldhouse.model.errors import StoreUnavailable
from fieldhouse.storage import writebehind as wb
from fieldhouse.storage.base import ConflictError, Op, StatementFailed, Stmt, StorageError, value
from fieldhouse.storage.migrations import migrate_postgres
from fieldhouse.storage.multirow import as_one_insert
from fieldhouse.storage.sqldialect import POSTGRES

log = logging.getLogger("fieldhouse.storage")

T = TypeVar("T")
P = ParamSpec("P")
if TYPE_CHECKING:
    Pool = asyncpg.Pool[asyncpg.Record]
    Conn = PoolConnectionProxy[asyncpg.Record]
else:
    Pool = asyncpg.Pool
    Conn = PoolConnectionProxy


class LoopNotOpen(StorageError):
    """A PostgreSQL store was opened outside a trio-asyncio loop."""


#: driver errors that say the database cannot be reached, or went away mid-statement, rather
#: than refusing what was asked: a connection refused, reset or timed out (OSError), lost
#: (ConnectionDoesNotExistError and the other class 08 errors), a server shutting down or
#: starting up (class 57P), no connection slot left; and asyncpg's protocol out of step with a
#: connection the server ended (InternalClientError "cannot switch to state 12; another
#: operation (2) is in progress": the server's FATAL "terminating connection due to
#: administrator command" arrived between two statements, before the socket's end did)
_UNREACHABLE: tuple[type[BaseException], ...] = (
    OSError,
    asyncpg.PostgresConnectionError,
    asyncpg.CannotConnectNowError,
    asyncpg.AdminShutdownError,
    asyncpg.CrashShutdownError,
    asyncpg.TooManyConnectionsError,
    asyncpg.InternalClientError,
)
#: what a driver call may raise that :func:`aio` names
_DRIVER_ERRORS = (
    OSError,
    asyncpg.PostgresError,
    asyncpg.InterfaceError,
    asyncpg.InternalClientError,
)
#: seconds a transaction whose COMMIT went unanswered waits for the database to say whether
#: it committed, before its outcome is reported unknown
OUTCOME_CHECK_SECONDS = 10.0
#: the first wait between tries to reach the database again, doubled up to the second
RECONNECT_DELAYS = (0.05, 0.5)


def unreachable(exc: BaseException) -> bool:
    """Whether a driver error says the database cannot be reached (the work may run again
    once it can), rather than refusing the statement."""
    if isinstance(exc, _UNREACHABLE):
        return True
    # a statement on a connection asyncpg has already seen close (and let go of)
    return isinstance(exc, asyncpg.InterfaceError) and (
        "connection is closed" in str(exc) or "released back to the pool" in str(exc)
    )


async def aio(fn: Callable[P, Awaitable[T]], *args: P.args, **kwargs: P.kwargs) -> T:
    """Await an asyncio coroutine function from trio; driver errors become named ones."""
    try:
        result: T = await trio_asyncio.aio_as_trio(fn)(*args, **kwargs)
    except asyncpg.IntegrityConstraintViolationError as exc:
        raise ConflictError(str(exc)) from exc
    except _DRIVER_ERRORS as exc:
        if unreachable(exc):
            raise StoreUnavailable() from exc
        if isinstance(exc, asyncpg.PostgresError):
            raise StatementFailed(str(exc)) from exc
        raise
    return result


async def _execute_many(c: Conn, s: Stmt) -> None:
    statements = as_one_insert(s.sql, s.params)
    if statements is None:
        await c.executemany(POSTGRES.native(s.sql), s.params)
        return
    for sql, params in statements:
        await c.execute(POSTGRES.native(sql), *params)


async def _execute(c: Conn, s: Stmt) -> Any:
    if s.result == "many":
        return await _execute_many(c, s)
    sql = POSTGRES.native(s.sql)
    if s.result == "rows":
        return await c.fetch(sql, *s.params)
    if s.result == "row":
        return await c.fetchrow(sql, *s.params)
    if s.result == "value":
        return await c.fetchval(sql, *s.params)
    status = await c.execute(sql, *s.params)
    return int(status.rsplit(" ", 1)[1]) if s.result == "count" else None


async def run_op(c: Conn, op: Op[T]) -> T:
    """Run every statement of ``op`` on ``c`` (on the asyncio side)."""
    try:
        stmt = next(op)
        while True:
            stmt = op.send(await _execute(c, stmt))
    except StopIteration as done:
        result: T = done.value
        return result


def _snapshot(conn: Conn) -> AbstractAsyncContextManager[Any]:
    """One read-only REPEATABLE READ transaction: all its reads see one snapshot."""
    return conn.transaction(isolation="repeatable_read", readonly=True)


async def _on_pool(pool: Pool, op: Op[T], snapshot: bool) -> T:
    async with pool.acquire() as conn:
        if not snapshot:
            return await run_op(conn, op)
        async with _snapshot(conn):
            return await run_op(conn, op)


async def _read_on_pool(pool: Pool, op: Op[T], snapshot: bool) -> T:
    """:func:`_on_pool` for a read, whose first statement runs once more on another connection
    when the one the pool gave was gone before it answered: the server closed it while it sat
    in the pool (a restart of the database), and the pool had not seen it yet."""
    try:
        stmt = next(op)
    except StopIteration as done:
        empty: T = done.value
        return empty
    for last_try in (False, True):
        answered = False
        try:
            async with pool.acquire() as conn:
                scope = _snapshot(conn) if snapshot else nullcontext()
                async with scope:
                    try:
                        while True:
                            got = await _execute(conn, stmt)
                            answered = True
                            stmt = op.send(got)
                    except StopIteration as done:
                        result: T = done.value
                        return result
        except _DRIVER_ERRORS as exc:
            if last_try or answered or not unreachable(exc):
                raise
    raise AssertionError("unreachable")  # pragma: no cover - the loop returns or raises


def workspace_lock_key(account_id: str) -> int:
    """The 64-bit advisory lock key of a workspace (stable across processes and versions)."""
    digest = hashlib.blake2b(account_id.encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


async def _begin(conn: Conn, account_id: str) -> None:
    # READ COMMITTED (the default) on purpose: each statement after the lock sees what the
    # previous lock holder committed; a REPEATABLE READ snapshot would predate the lock.
    # One round trip: the key is an integer of our own making, written into the text.
    key = int(workspace_lock_key(account_id))
    await conn.execute(f"BEGIN; SELECT pg_advisory_xact_lock({key})")


async def _rollback(conn: Conn) -> None:
    if not conn.is_closed() and conn.is_in_transaction():
        await conn.execute("ROLLBACK")


async def _terminate(conn: Conn) -> None:
    conn.terminate()


async def commit(conn: Conn) -> None:
    # PostgreSQL answers the COMMIT of a transaction an error has aborted with ROLLBACK, and
    # no error: whatever the transaction said it wrote is gone, and must not be acknowledged
    status = await conn.execute("COMMIT")
    if status != "COMMIT":
        raise StatementFailed(f"COMMIT answered {status}: a statement of the transaction failed")


async def _commit(conn: Conn) -> None:
    await commit(conn)  # looked up at call time (run's ``commit`` flag shadows the name)


async def _reset(conn: Any) -> None:
    """What a connection needs on its way back to the pool: out of any transaction. Nothing
    else carries over between uses here (no session-level locks, listeners, cursors or
    settings on pooled connections), so asyncpg's default reset, a round trip of ``RESET ALL``
    and friends on every release, reads included, is skipped."""
    await _rollback(conn)


async def _open_pool(url: str, min_size: int, max_size: int) -> Pool:
    # List queries bind their filter values as parameters; a generic plan cannot see how
    # selective a value is and falls back to scanning, so plan each execution for its values.
    pool = await asyncpg.create_pool(
        url,
        min_size=min_size,
        max_size=max_size,
        reset=_reset,
        server_settings={"plan_cache_mode": "force_custom_plan"},
    )
    async with pool.acquire() as conn:
        await migrate_postgres(conn)
    return pool


#: the advisory lock under which the processes on one database build expression indexes
INDEX_BUILD_LOCK = 0x66686978
#: seconds between tries for that lock while another process builds
INDEX_BUILD_POLL = 0.1


async def _create_index(pool: Pool, key: Sequence[str]) -> None:
    """CONCURRENTLY, so writers are not blocked while it builds; one process at a time.

    Two processes building one index at once (both workers see the same slow list) deadlock,
    PostgreSQL kills one, and a build killed past its first phase leaves the index INVALID:
    there by name, so ``IF NOT EXISTS`` skipped it ever after, and never used by the planner
    (``benchmarks.report`` on 20,000 rows: a sorted list at 94-107 req/s, p50 9-11 ms, instead
    of 600 and 1.5 ms, in 2 runs of 6). So the builds of all processes take one advisory lock
    in turn, and an index found invalid is dropped and built again."""
    exprs = [f"({e.replace('r.fields', 'fields')})" for e in key]
    *pinned, last = exprs
    name = "rx_" + hashlib.sha1(", ".join(exprs).encode()).hexdigest()[:16]
    if len(exprs) == 1:  # the name the single-expression indexes always had
        name = "rx_" + hashlib.sha1(exprs[0][1:-1].encode()).hexdigest()[:16]
    lead = "".join(f"{e}, " for e in pinned)
    # PostgreSQL walks an index backwards only in the mirrored order, so the compiler's
    # "DESC NULLS LAST, id DESC" needs its own index beside the ascending one.
    orders = (
        (name, f"{lead}{last}, id"),
        (name + "d", f"{lead}{last} DESC NULLS LAST, id DESC"),
    )
    try:
        async with pool.acquire() as conn:
            # tried, not waited for: a session waiting in pg_advisory_lock() is a statement in
            # flight, which the build holding the lock waits for (another process holds it:
            # no event here can tell when it lets go)
            while not await conn.fetchval("SELECT pg_try_advisory_lock($1)", INDEX_BUILD_LOCK):  # noqa: ASYNC110
                await asyncio.sleep(INDEX_BUILD_POLL)
            try:
                for index, columns in orders:
                    valid = await conn.fetchval(
                        "SELECT indisvalid FROM pg_index WHERE indexrelid = to_regclass($1)",
                        index,
                    )
                    if valid is False:
                        await conn.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {index}")
                    await conn.execute(
                        f"CREATE INDEX CONCURRENTLY IF NOT EXISTS {index} ON records"
                        f" (account_id, module_id, {columns}) WHERE deleted_at IS NULL"
                    )
                # statistics for the new expressions, so the planner knows how selective they
                # are
                await conn.execute("ANALYZE records")
            finally:
                await conn.execute("SELECT pg_advisory_unlock($1)", INDEX_BUILD_LOCK)
    except asyncpg.PostgresError as exc:
        log.warning("expression index %s not made: %s", name, exc)


def _xact_status(xid: int) -> Op[str | None]:
    status: str | None = yield value("SELECT pg_xact_status(?::xid8)", [xid])
    return status


class PostgresDriver:
    dialect = POSTGRES
    shared_between_processes = True

    def __init__(self, pool: Pool) -> None:
        self._pool = pool

    @classmethod
    async def open(cls, url: str, *, min_size: int = 1, max_size: int = 10) -> PostgresDriver:
        """Connect a pool and migrate; must run inside ``trio_asyncio.open_loop()``."""
        if trio_asyncio.current_loop.get() is None:
            raise LoopNotOpen(
                "PostgreSQL needs the trio-asyncio loop: open the store with "
                "fieldhouse.storage.open_database(url)"
            )
        return cls(await aio(_open_pool, url, min_size, max_size))

    async def aclose(self) -> None:
        await aio(self._pool.close)

    async def read(self, op: Op[T], *, snapshot: bool = False) -> T:
        return await aio(_read_on_pool, self._pool, op, snapshot)

    async def write(self, op: Op[T]) -> T:
        return await aio(_on_pool, self._pool, op, False)

    @asynccontextmanager
    async def transaction(self, account_id: str, *, light: bool = False) -> AsyncIterator[_Txn]:
        # the connection, BEGIN and the workspace lock come with the first statement
        txn = _Txn(self, account_id)
        try:
            try:
                yield txn
                if txn.conn is not None and not txn.committed:
                    await txn.run(wb.nothing(), commit=True)
                # (a transaction committed by its last statement has released its connection)
            except BaseException:
                # also after a failed COMMIT: the connection must leave the transaction
                if txn.conn is not None:
                    with trio.CancelScope(shield=True):
                        await self._rollback_quietly(txn.conn)
                raise
        finally:
            if txn.conn is not None:
                with trio.CancelScope(shield=True):
                    await self._release_quietly(txn.conn)

    @staticmethod
    async def _rollback_quietly(conn: Conn) -> None:
        try:
            await aio(_rollback, conn)
        except (StorageError, StoreUnavailable, asyncpg.InterfaceError):
            log.warning("rollback failed; the pool will replace the connection", exc_info=True)

    async def _release_quietly(self, conn: Conn) -> None:
        try:
            await aio(self._pool.release, conn)
        except (StorageError, StoreUnavailable, asyncpg.InterfaceError):
            # the pool has let the connection go (a new one is made when next needed)
            log.warning("releasing a connection failed", exc_info=True)

    @staticmethod
    async def end_session(conn: Conn) -> None:
        """Close a connection at once (the server rolls back what it has not committed)."""
        with suppress(StorageError, StoreUnavailable, asyncpg.InterfaceError):  # gone already
            await aio(_terminate, conn)

    async def outcome(self, xid: int | None) -> bool:
        """Whether the transaction ``xid``, whose COMMIT went out without an answer,
        committed: asked on another connection as soon as the database answers. Raises
        StoreUnavailable (``in_doubt``) when it does not within OUTCOME_CHECK_SECONDS."""
        if xid is None:
            return True  # it wrote nothing: there is nothing to lose either way
        deadline = trio.current_time() + OUTCOME_CHECK_SECONDS
        delay, longest = RECONNECT_DELAYS
        while True:
            try:
                status = await aio(_read_on_pool, self._pool, _xact_status(xid), False)
            except StoreUnavailable:
                status = "unreachable"
            if status == "committed":
                return True
            if status == "aborted":
                return False
            # not reachable yet, or the server is still at the COMMIT
            if status is None or trio.current_time() + delay > deadline:
                log.error("the outcome of transaction %s is unknown (%s)", xid, status)
                raise StoreUnavailable(in_doubt=True)
            await trio.sleep(delay)
            delay = min(delay * 2, longest)

    async def create_index(self, key: Sequence[str]) -> None:
        await aio(_create_index, self._pool, key)


#: the id of the transaction, once it wrote something (None before)
_XID = "SELECT pg_current_xact_id_if_assigned()"


class _Txn:
    """The open write transaction: one connection, held until commit or rollback."""

    def __init__(self, driver: PostgresDriver, account_id: str) -> None:
        self._driver = driver
        self._pool = driver._pool
        self._account_id = account_id
        self.conn: Conn | None = None
        self.committed = False
        #: the COMMIT went out: from then on only the database knows whether it took
        self._commit_sent = False
        self._xid: int | None = None
        self._result: Any = None

    async def _run(self, op: Op[T], commit: bool) -> T:
        # on the asyncio side: one hop for connecting, locking, the statements and COMMIT
        if self.conn is None:
            self.conn = await self._pool.acquire()
            await _begin(self.conn, self._account_id)
        result = await run_op(self.conn, op)
        if commit:
            self._xid = await self.conn.fetchval(_XID)
            self._result = result
            self._commit_sent = True
            await _commit(self.conn)
            self.committed = True
            conn, self.conn = self.conn, None
            try:
                await self._pool.release(conn)
            except _DRIVER_ERRORS:
                # committed all the same; the pool replaces a connection it could not reset
                log.warning("releasing a committed connection failed", exc_info=True)
        return result

    async def run(self, op: Op[T], *, commit: bool = False) -> T:
        try:
            return await aio(self._run, op, commit)
        except StoreUnavailable:
            if not self._commit_sent or self.committed:
                raise  # nothing of it was committed: it can run again
        # the COMMIT went out and its answer was lost. The session is ended first: were the
        # server still holding it, the COMMIT is then either done or never coming
        if self.conn is not None:
            with trio.CancelScope(shield=True):
                await self._driver.end_session(self.conn)
        if not await self._driver.outcome(self._xid):
            raise StoreUnavailable()  # rolled back: it can run again
        self.committed = True
        result: T = self._result
        return result
