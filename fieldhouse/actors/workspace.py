"""The workspace actor: drains its mailbox in batches and commits each batch once.

Every message of a batch runs in its own savepoint, so one bad write never fails the others;
replies go out only after the commit (group commit), and events are published after that.

A batch first runs with lax savepoints: a message that fails in Python drops what it wrote,
and the writes of the others reach the database together with the commit (a few statements
for the whole batch). Should the database refuse one of those writes, nobody can tell whose it
was: the batch is rolled back and run again with strict savepoints, each released only after
its writes ran, so the failing message fails alone.

A batch is topped up once the transaction holds the workspace's write lock: whatever reached the
mailbox while the lock was being waited for (another process held it) joins the batch, so
processes contending for one workspace commit more writes per turn of the lock instead of
handing it back and forth for a few each.

A batch that fails because the database cannot be reached (restarting, a connection lost
before the commit) has committed nothing: it runs again, as soon as the database answers,
for up to ``store_retry_seconds``; then its messages are answered 503 with Retry-After. A
commit whose answer was lost is looked up by the driver before anything is acknowledged
(``StoreUnavailable.in_doubt`` when it could not be).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

import trio

from fieldhouse.actors.context import Event, RightsNow, WriteContext
from fieldhouse.actors.messages import Message
from fieldhouse.actors.rights import RightsMemo
from fieldhouse.model.errors import ApiError, InternalError, StoreUnavailable
from fieldhouse.model.principal import Principal
from fieldhouse.model.schema import ModuleSchema
from fieldhouse.storage.base import QueuedWriteFailed, UserRow
from fieldhouse.storage.store import Store
from fieldhouse.storage.write_txn import WriteTxn

log = logging.getLogger("fieldhouse.actors")

Publish = Callable[[Sequence[Event]], None]
OnSchema = Callable[[str, int, dict[str, ModuleSchema]], None]
#: told after a commit that revoked access or changed a schema, before anyone hears of it
OnChange = Callable[[], Awaitable[None]]


async def nothing_to_tell() -> None:
    return None


OnBatch = Callable[[int, float], None]


class _RolledBack(Exception):
    """A lone message failed; its transaction is rolled back and its caller gets the error."""

    def __init__(self, error: ApiError) -> None:
        super().__init__(error.message)
        self.error = error


class ActorCrashed(Exception):
    """A batch failed outside any one message (for example its commit)."""


class _Retry(Exception):
    """A queued write of a lax batch failed in the database; run the batch strictly."""


class _Unreachable(Exception):
    """The database could not be reached and nothing of the batch was committed (nobody has
    heard anything yet): run it again once the database answers."""

    def __init__(self, error: StoreUnavailable) -> None:
        super().__init__(error.message)
        self.error = error


@dataclass
class _Attempt:
    """The messages of one try of a batch, and whether their savepoints are strict (a lax
    try turns strict when it finds itself alone)."""

    messages: list[Message[Any]]
    strict: bool


@dataclass(frozen=True)
class _Committed:
    """What a committed try leaves to do: its outcomes (one per message) to answer, the
    context's events and schemas, and the schema version it committed."""

    ctx: WriteContext
    outcomes: list[tuple[bool, Any]]
    version: int
    commit_seconds: float


def _fail_all(batch: Sequence[Message[Any]], error: ApiError) -> None:
    for message in batch:
        message.reply.set_error(error)


#: how long a batch the database could not take is tried again before its messages are
#: answered 503
STORE_RETRY_SECONDS = 5.0
#: the first wait between tries, doubled up to the second
STORE_RETRY_DELAYS = (0.05, 0.5)


class WorkspaceActor:
    def __init__(
        self,
        store: Store,
        account_id: str,
        mailbox: trio.MemoryReceiveChannel[Message[Any]],
        *,
        batch_size: int,
        publish: Publish,
        on_schema: OnSchema,
        on_change: OnChange = nothing_to_tell,
        on_batch: OnBatch | None = None,
        store_retry_seconds: float = STORE_RETRY_SECONDS,
        rights: RightsMemo | None = None,
    ) -> None:
        self.store = store
        self._rights_memo = rights if rights is not None else RightsMemo(store, None)
        self.account_id = account_id
        self.mailbox = mailbox
        self.batch_size = batch_size
        self._publish = publish
        self._on_schema = on_schema
        self._on_change = on_change
        self._on_batch = on_batch
        self._store_retry_seconds = store_retry_seconds
        self._schemas: dict[str, ModuleSchema] | None = None
        self._schema_version = -1
        #: a message taken from the mailbox that did not fit the batch it was taken for (see
        #: :meth:`_top_up`): the first of the next batch
        self._carried: Message[Any] | None = None

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """Serve the mailbox until it is closed and empty; raise on a crashed batch."""
        task_status.started()
        while (batch := await self._take_batch()) is not None:
            await self._run_batch(batch)

    async def _take_batch(self) -> list[Message[Any]] | None:
        """The next batch: the message carried over from the last one, or else the next to
        arrive, with what the mailbox holds now; None once the mailbox is closed and empty."""
        first, self._carried = self._carried, None
        if first is None:
            try:
                first = await self.mailbox.receive()
            except trio.EndOfChannel:
                return None
        batch = [first]
        self._top_up(batch, light=False)
        return batch

    def _top_up(self, batch: list[Message[Any]], *, light: bool) -> None:
        """Add what the mailbox holds now to ``batch``, up to the batch size; with ``light``
        only light messages (the transaction was opened light: the first other message waits
        for the next batch)."""
        while len(batch) < self.batch_size:
            try:
                message = self.mailbox.receive_nowait()
            except (trio.WouldBlock, trio.EndOfChannel):
                return
            if light and not message.light():
                self._carried = message
                return
            batch.append(message)

    async def _find_user(self, user_id: str) -> UserRow | None:
        return await self.store.get_user(self.account_id, user_id)

    def _rights(self) -> RightsNow:
        """What a principal may do now, read once per batch and principal."""
        seen: dict[tuple[str, str | None], Principal | None] = {}

        async def rights(p: Principal) -> Principal | None:
            key = (p.user_id, p.api_key_id)
            if key not in seen:
                seen[key] = await self._rights_memo.rights(self.account_id, p)
            return seen[key]

        return rights

    async def _run_batch(self, batch: list[Message[Any]]) -> None:
        """Run ``batch`` until every message is answered: again strictly when a queued write
        failed, again after a wait while the database cannot be reached."""
        strict = False
        deadline = trio.current_time() + self._store_retry_seconds
        delay, longest = STORE_RETRY_DELAYS
        while True:
            try:
                await self._attempt(batch, strict=strict)
                return
            except _Retry:
                log.warning("workspace %s: a write failed; batch retried strictly", self.account_id)
                strict = True
            except _Unreachable as unreachable:
                if not await self._wait_for_database(batch, unreachable.error, deadline, delay):
                    return
                delay = min(delay * 2, longest)

    async def _wait_for_database(
        self, batch: list[Message[Any]], error: StoreUnavailable, deadline: float, delay: float
    ) -> bool:
        """Wait ``delay`` before the batch runs again; False, its messages answered with
        ``error``, when that would pass the ``deadline``."""
        if trio.current_time() + delay > deadline:
            log.error(
                "workspace %s: the database is unreachable; %d writes answered 503",
                self.account_id,
                len(batch),
            )
            _fail_all(batch, error)
            return False
        log.warning(
            "workspace %s: the database is unreachable; batch of %d tried again",
            self.account_id,
            len(batch),
        )
        try:
            await trio.sleep(delay)
        except BaseException:
            _fail_all(batch, error)
            raise
        return True

    async def _attempt(self, batch: list[Message[Any]], *, strict: bool) -> None:
        """Run ``batch`` in one transaction, then answer it. The first attempt (lax) tops the
        batch up once the transaction holds the write lock; a lone message runs strictly
        (without a savepoint there is nothing lax about it). A retry runs the same, grown,
        batch."""
        attempt = _Attempt(batch, strict)
        try:
            done = await self._transact(attempt)
        except _RolledBack as undone:
            batch[0].reply.set_error(undone.error)
            return
        except BaseException as exc:
            self._schemas = None
            if not self._answer_failure(batch, exc, strict=attempt.strict):
                raise
            return
        await self._answer(batch, done)

    async def _transact(self, attempt: _Attempt) -> _Committed:
        """Apply the attempt's messages in one transaction and commit it."""
        batch = attempt.messages
        light = all(message.light() for message in batch)
        rights = self._rights()
        for message in batch:
            # read before the workspace's lock is taken: on PostgreSQL these are round trips
            # that would otherwise hold it (messages topped up below are read when applied)
            if isinstance(message.by, Principal):
                await rights(message.by)
        async with self.store.write(self.account_id, light=light) as txn:
            version = await txn.schema_version()  # holds the workspace's write lock now
            if not attempt.strict:
                self._top_up(batch, light=light)
                attempt.strict = len(batch) == 1
            ctx = await self._context(txn, version, rights)
            outcomes = await self._apply_all(ctx, attempt)
            if ctx.schema_changed:
                version = await txn.schema_version()
            commit_from = time.perf_counter()
        # committed
        return _Committed(ctx, outcomes, version, time.perf_counter() - commit_from)

    async def _context(self, txn: WriteTxn, version: int, rights: RightsNow) -> WriteContext:
        """The messages' view of the transaction, with the module schemas of ``version``."""
        if self._schemas is None or version != self._schema_version:
            self._schemas = await txn.module_schemas()
        return WriteContext(
            txn, self.account_id, self._schemas, find_user=self._find_user, rights=rights
        )

    async def _apply_all(self, ctx: WriteContext, attempt: _Attempt) -> list[tuple[bool, Any]]:
        """Each message's outcome, in order: (True, result) or (False, error)."""
        solo = len(attempt.messages) == 1
        outcomes = []
        for message in attempt.messages:
            outcomes.append(await self._apply(ctx, message, solo=solo, strict=attempt.strict))
        if solo and not outcomes[0][0]:
            # no savepoint guarded a lone message: undo what it wrote before failing
            raise _RolledBack(outcomes[0][1])
        return outcomes

    def _answer_failure(
        self, batch: list[Message[Any]], exc: BaseException, *, strict: bool
    ) -> bool:
        """Answer a batch whose transaction failed (True), or raise what runs it again
        (:class:`_Unreachable`, :class:`_Retry`) or tells of a crash (:class:`ActorCrashed`);
        False: answered, and ``exc`` (a cancellation) is for the caller to raise again."""
        if isinstance(exc, StoreUnavailable):
            if not exc.in_doubt:
                raise _Unreachable(exc) from None  # rolled back; nobody has heard anything
            log.error("workspace %s: a commit's outcome is unknown", self.account_id)
            _fail_all(batch, exc)
            return True
        if isinstance(exc, QueuedWriteFailed):
            if not strict:
                raise _Retry from None  # rolled back; nobody has heard anything yet
            if len(batch) == 1:
                # a lone message's writes run with the commit: the failure is its own
                name = type(batch[0]).__name__
                log.error("workspace %s: %s failed: %s", self.account_id, name, exc)
                batch[0].reply.set_error(InternalError("Internal error"))
                return True
        _fail_all(batch, exc if isinstance(exc, ApiError) else InternalError("Internal error"))
        if isinstance(exc, Exception):
            raise ActorCrashed(f"batch of {len(batch)} failed: {exc!r}") from exc
        return False

    async def _answer(self, batch: list[Message[Any]], done: _Committed) -> None:
        """After the commit: keep the schemas, announce a change, reply, publish the events."""
        ctx = done.ctx
        self._schemas = ctx.schemas
        self._schema_version = done.version
        await self._announce(ctx, done.version)
        for message, (ok, value) in zip(batch, done.outcomes, strict=True):
            if ok:
                message.reply.set_result(value)
            else:
                message.reply.set_error(value)
        if ctx.events:
            self._publish(ctx.events)
        if self._on_batch is not None:
            self._on_batch(len(batch), done.commit_seconds)

    async def _announce(self, ctx: WriteContext, version: int) -> None:
        """Tell of a committed schema or access change before anyone hears of the batch."""
        if ctx.schema_changed:
            self._on_schema(self.account_id, version, ctx.schemas)
        if ctx.schema_changed or ctx.access_changed:
            with trio.CancelScope(shield=True):  # committed: every process must hear of it
                try:
                    await self._on_change()
                except Exception:
                    log.exception("workspace %s: could not announce a change", self.account_id)

    async def _apply(
        self, ctx: WriteContext, message: Message[Any], *, solo: bool, strict: bool
    ) -> tuple[bool, Any]:
        events_before = len(ctx.events)
        schemas_before = ctx.schemas
        changed_before = ctx.schema_changed
        access_before = ctx.access_changed
        try:
            if solo:
                # alone in its batch, a failure rolls back the whole transaction anyway
                return True, await message.apply(ctx)
            async with ctx.txn.savepoint(strict=strict):
                return True, await message.apply(ctx)
        except StoreUnavailable:
            raise  # the whole batch: it runs again once the database answers
        except ApiError as exc:
            error: ApiError = exc
        except QueuedWriteFailed:
            if not strict:
                raise  # maybe another message's write: the batch runs again, strictly
            log.exception("workspace %s: %s failed", self.account_id, type(message).__name__)
            error = InternalError("Internal error")
        except Exception:
            log.exception("workspace %s: %s failed", self.account_id, type(message).__name__)
            error = InternalError("Internal error")
        # the savepoint rolled the message back; forget what it announced
        del ctx.events[events_before:]
        ctx.schemas = schemas_before
        ctx.schema_changed = changed_before
        ctx.access_changed = access_before
        return False, error
