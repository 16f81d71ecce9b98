"""Write-behind for a write transaction.

Statements whose result nobody waits for (inserts, updates, activity entries) queue up and run
in the driver hop of the next statement that answers something, or with the commit, so a batch
of N creates costs a handful of hops instead of several per record. Savepoints queue too: a
scope's ``SAVEPOINT`` goes into the queue where the scope began, but only once something of
the scope has to reach the database (a scope whose statements are all still queued rolls back
by dropping them). Consecutive inserts into one table, interleaved with inserts into others,
run as one ``executemany``.

:class:`WriteBehind` holds that state for one workspace transaction (the queue, the open
scopes, the counters advanced in memory, the search index's changes);
:class:`~fieldhouse.storage.write_txn.WriteTxn` builds what a workspace writes on it.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import AsyncIterator, Collection, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar

from fieldhouse.model.fields import type_of
from fieldhouse.model.schema import FieldDef
from fieldhouse.model.search_doc import Doc
from fieldhouse.storage import accounts, records, schemas, search_index, vectors
from fieldhouse.storage.base import Op, QueuedWriteFailed, Stmt, StorageError, Txn, execute
from fieldhouse.storage.multirow import combine
from fieldhouse.storage.sqldialect import Dialect

T = TypeVar("T")

#: how far back a queued insert looks for a statement of its own to join
_REACH = 6


@dataclass
class Scope:
    """A savepoint of the write transaction."""

    name: str
    #: where its SAVEPOINT goes in the queue while it is not in it
    index: int
    #: release flushes, so the database's errors surface inside the scope
    strict: bool
    #: the transaction's in-memory state at entry, restored when the scope rolls back
    saved: Any
    #: its SAVEPOINT statement, once queued
    stmt: Stmt | None = None
    #: its SAVEPOINT ran in the database
    live: bool = False


def _table(s: Stmt) -> str | None:
    """The table a plain insert writes (None for anything else)."""
    if s.result not in ("none", "many") or not s.sql.startswith("INSERT INTO "):
        return None
    return s.sql[12:].split(None, 1)[0].split("(", 1)[0]


@dataclass
class Batch:
    """Statements to run in one hop; ``savepoints`` are where each scope's SAVEPOINT landed."""

    stmts: list[Stmt] = field(default_factory=list)
    done: int = 0


def coalesce(stmts: Sequence[Stmt]) -> list[Stmt]:
    """The statements with each insert joined to an earlier one of the same SQL when only
    inserts into other tables lie between them (their order does not matter)."""
    out: list[Stmt] = []
    grouped: dict[int, list[Any]] = {}
    for s in stmts:
        table = _table(s)
        j = None if table is None else _partner(out, s, table)
        if j is None:
            out.append(s)
            continue
        other = out[j]
        params = grouped.get(id(other))
        if params is None:
            params = [other.params] if other.result == "none" else list(other.params)
            merged = Stmt(other.sql, params, "many")
            grouped[id(merged)] = params
            out[j] = merged
        params.extend([s.params] if s.result == "none" else s.params)
    return out


def _partner(out: list[Stmt], s: Stmt, table: str) -> int | None:
    """Where in ``out`` the earlier insert of ``s``'s SQL lies that ``s`` can join: within
    reach, with only inserts into other tables after it."""
    j = len(out) - 1
    while j >= 0 and len(out) - j <= _REACH:
        other = out[j]
        if other.sql == s.sql and other.result in ("none", "many"):
            return j
        if _table(other) in (None, table):
            return None
        j -= 1
    return None


def chain(batch: Batch, op: Op[T]) -> Op[T]:
    """Run the batch's statements, counting those that succeeded, then ``op``."""
    for s in batch.stmts:
        yield s
        batch.done += 1
    return (yield from op)


def nothing() -> Op[None]:
    """An operation of no statements."""
    return None
    yield  # pragma: no cover - makes this a generator


def savepoint(name: str) -> Stmt:
    return execute(f"SAVEPOINT {name}")


def release(name: str) -> Stmt:
    return execute(f"RELEASE SAVEPOINT {name}")


def rollback_to(name: str) -> Stmt:
    return execute(f"ROLLBACK TO SAVEPOINT {name}")


#: a change of the search index: a record's text, or a deleted record's (id, module id)
SearchChange = Doc | tuple[str, str]


def search_statements(
    dialect: Dialect,
    account_id: str,
    model: str | None,
    changes: Sequence[SearchChange],
    fresh: Collection[str] = (),
) -> list[Stmt]:
    """The statements of the search index's ``changes``: each run of puts (the records' text,
    and their places in the vector queue) and of deletes as one statement each. ``fresh``:
    records inserted in this transaction whose text has not been written yet (nothing of
    theirs to replace)."""
    out: list[Stmt] = []
    now = time.time()
    for kind, grouped in itertools.groupby(changes, key=type):
        run = list(grouped)
        if kind is Doc:
            docs = [c for c in run if isinstance(c, Doc)]
            out.extend(_put_docs(dialect, account_id, model, docs, now, fresh))
        else:
            gone = [c for c in run if isinstance(c, tuple)]
            out.extend(_delete_docs(dialect, account_id, model, gone))
    return out


def _put_docs(
    d: Dialect,
    account_id: str,
    model: str | None,
    docs: list[Doc],
    now: float,
    fresh: Collection[str],
) -> list[Stmt]:
    out = list(search_index.put_docs(d, account_id, docs, fresh))
    if model is not None:
        out.extend(vectors.queue(account_id, [(c.record_id, c.stamp) for c in docs], now))
    return out


def _delete_docs(
    d: Dialect, account_id: str, model: str | None, gone: list[tuple[str, str]]
) -> list[Stmt]:
    out = list(search_index.delete_docs(d, account_id, [rid for rid, _ in gone]))
    if model is not None:
        out.extend(vectors.forget(d, account_id, gone, model))
    return out


class WriteBehind:
    """The write-behind state of one workspace's write transaction.

    Writes whose result the caller does not need are queued and run with the next statement
    that answers something, a strict savepoint's release, or the commit. The activity
    sequence and the auto-number counters are read once, advanced in memory and written back
    with each flush (the transaction holds the workspace's write lock, so no other writer can
    move them); the search index's changes are written with them.
    """

    def __init__(
        self, txn: Txn, dialect: Dialect, account_id: str, vector_model: str | None
    ) -> None:
        self._txn = txn
        self._dialect = dialect
        self.account_id = account_id
        self._queue: list[Stmt] = []
        self._scopes: list[Scope] = []
        self._savepoints = 0
        #: the activity sequence as advanced here, and as the database holds it
        self._seq: int | None = None
        self._stored_seq: int | None = None
        #: auto-number field configs as advanced here; those the database lags behind
        self._configs: dict[str, dict[str, Any]] = {}
        self._dirty: set[str] = set()
        self._vector_model = vector_model
        #: the search index's changes, in order: written with the counters (at the commit),
        #: the first ``_search_sent`` already
        self._search: list[SearchChange] = []
        self._search_sent = 0
        #: records inserted here whose text no statement has written yet
        self._unindexed: set[str] = set()

    # --- the queue ---

    def _defer(self, op: Op[None]) -> None:
        """Queue an operation's statements (each must answer nothing)."""
        for stmt in op:
            assert stmt.result in ("none", "many"), stmt.sql
            self._queue.append(stmt)

    def _take(self, tail: Sequence[Stmt] = (), *, write_back: bool = False) -> Batch:
        """Everything queued, with the open scopes' savepoints (and the counters written back
        when asked: at the commit, and before a read of what holds them)."""
        for scope in reversed(self._scopes):
            if scope.stmt is None:
                scope.stmt = savepoint(scope.name)
                self._queue.insert(scope.index, scope.stmt)
        queued, self._queue = self._queue, []
        if not write_back:
            queued.extend(tail)
            return Batch(self._grouped(queued))
        if self._seq != self._stored_seq and self._seq is not None:
            queued.extend(accounts.set_activity_seq(self.account_id, self._seq))
            self._stored_seq = self._seq
        queued.extend(self._config_writes())
        queued.extend(self._search_statements())
        queued.extend(tail)
        return Batch(self._grouped(queued))

    def _grouped(self, stmts: list[Stmt]) -> list[Stmt]:
        """The statements as few: inserts joined (:func:`coalesce`), and on PostgreSQL writes
        into different tables as one statement (:func:`~fieldhouse.storage.multirow.combine`)."""
        joined = coalesce(stmts)
        return combine(joined) if self._dialect.name == "postgres" else joined

    def _config_writes(self) -> list[Stmt]:
        """The write-back of the auto-number counters the database lags behind."""
        out: list[Stmt] = []
        for field_id in sorted(self._dirty):
            out.extend(schemas.set_field_config(self.account_id, field_id, self._configs[field_id]))
        self._dirty.clear()
        return out

    def _search_statements(self) -> list[Stmt]:
        """The search index's changes not written yet."""
        changes = self._search[self._search_sent :]
        self._search_sent = len(self._search)
        fresh, self._unindexed = self._unindexed, set()
        return search_statements(self._dialect, self.account_id, self._vector_model, changes, fresh)

    def _pending(self, write_back: bool) -> bool:
        if self._queue:
            return True
        return write_back and bool(
            self._dirty or self._seq != self._stored_seq or len(self._search) > self._search_sent
        )

    async def _run(
        self,
        op: Op[T],
        tail: Sequence[Stmt] = (),
        *,
        commit: bool = False,
        write_back: bool = False,
    ) -> T:
        """Run ``op`` after everything queued, in one driver hop."""
        write_back = write_back or commit
        if (
            not self._pending(write_back)
            and not tail
            and not any(s.stmt is None for s in self._scopes)
        ):
            return await self._txn.run(op, commit=commit)
        stored = self._stored_seq, set(self._dirty)
        batch = self._take(tail, write_back=write_back)
        try:
            result = await self._txn.run(chain(batch, op), commit=commit)
        except BaseException as exc:
            self._landed(batch, batch.done)
            if batch.done < len(batch.stmts):
                # the counters' write-back may not have run: write them again next time
                self._stored_seq = stored[0]
                self._dirty |= stored[1]
                if isinstance(exc, StorageError):
                    failed = batch.stmts[batch.done].sql
                    raise QueuedWriteFailed(f"{exc} (in: {failed[:80]})") from exc
            raise
        self._landed(batch, len(batch.stmts))
        return result

    def _landed(self, batch: Batch, done: int) -> None:
        """Mark the scopes whose SAVEPOINT ran (among the first ``done`` statements)."""
        ran = {id(s) for s in batch.stmts[:done]}
        for scope in self._scopes:
            if scope.stmt is not None and id(scope.stmt) in ran:
                scope.live = True

    async def flush(self) -> None:
        """Run everything queued now (its errors surface here)."""
        if self._pending(False):
            await self._run(nothing())

    async def commit(self) -> None:
        """Run everything queued and commit, in one hop."""
        await self._run(nothing(), commit=True)

    def _state(self) -> Any:
        # the configs are never changed in place (``take_number`` replaces one it advances)
        return (
            self._seq,
            self._stored_seq,
            dict(self._configs),
            set(self._dirty),
            len(self._search),
            self._search_sent,
        )

    @asynccontextmanager
    async def savepoint(self, *, strict: bool = True) -> AsyncIterator[None]:
        """Nested scope: an exception inside rolls back only what the scope wrote.

        A strict scope runs what it queued before it is released, so a statement's error
        (a constraint) surfaces inside the scope that wrote it; a lax one leaves its writes
        queued for its parent (many of them then run as one statement), and an error of
        theirs surfaces wherever they run."""
        self._savepoints += 1
        scope = Scope(f"sp{self._savepoints}", len(self._queue), strict, self._state())
        self._scopes.append(scope)
        try:
            yield
            if strict and (scope.stmt is not None or len(self._queue) > scope.index):
                await self._run(nothing(), [release(scope.name)])
                scope.stmt = None  # released
        except BaseException:
            self._scopes.pop()
            self._roll_back(scope)
            raise
        self._scopes.pop()
        if scope.stmt is not None:
            self._queue.append(release(scope.name))

    def _roll_back(self, scope: Scope) -> None:
        """Forget what a failed ``scope`` wrote: the in-memory state it began with comes back,
        and its statements are dropped (or, once its SAVEPOINT ran, rolled back to)."""
        self._seq, self._stored_seq, self._configs, self._dirty, searched, sent = scope.saved
        del self._search[searched:]
        # what was written in the scope (its changes, and earlier ones first written in
        # it), the database rolls back with the scope: written again at the next flush
        self._search_sent = sent
        if scope.stmt is None:
            del self._queue[scope.index :]
        elif scope.live:
            # what was queued since the last flush is this scope's
            self._queue = [rollback_to(scope.name), release(scope.name)]
        else:
            self._queue = []

    # --- the counters: read once, advanced here, written back with each flush ---

    async def schema_version(self) -> int:
        if self._seq is None:
            # the first read of a transaction also takes the counters it may advance
            op = schemas.counters_and_configs(self.account_id)
            version, seq, configs = await self._run(op)
            self._seq = self._stored_seq = seq
            self._configs = {**configs, **self._configs}
            return version
        return await self._run(accounts.schema_version(self.account_id))

    async def append_activity(self, entry: Mapping[str, Any]) -> int:
        """Take the workspace's next activity sequence number and store the entry under it
        (``entry`` has every key but ``seq``); return the number."""
        seq = self._seq
        if seq is None:
            seq = (await self._run(accounts.counters(self.account_id)))[1]
            self._stored_seq = seq
        seq += 1
        self._seq = seq
        self._defer(records.insert_activity(self.account_id, seq, entry))
        return seq

    async def take_number(self, field: FieldDef, sequence: str | None) -> int:
        """The next number of a field whose type ``counts`` (an auto-number);
        its counter is read once per transaction and written back with the next flush."""
        kind = type_of(field)
        if kind is None or not kind.counts:
            raise TypeError(f"field {field.slug!r} of type {field.data_type!r} keeps no counter")
        config = self._configs.get(field.field_id)
        if config is None:
            config = await self._run(schemas.field_config(self.account_id, field.field_id))
        # advanced in a copy, so an open savepoint's snapshot of the configs keeps the old one
        number, self._configs[field.field_id] = kind.next_number(config, sequence)
        self._dirty.add(field.field_id)
        return number

    def _forget_configs(self) -> None:
        """A field definition is about to be written: queue the counters' write-back before it
        and read them afresh afterwards."""
        self._queue.extend(self._config_writes())
        self._configs.clear()
