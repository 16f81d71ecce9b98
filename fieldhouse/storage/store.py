"""The Store, written once over a :class:`~fieldhouse.storage.base.Driver`.

Reads take the account id explicitly, so no query can cross workspaces. Writes happen only in a
:class:`WriteTxn`, opened by the workspace actor with :meth:`Store.write`; everything written in
one is committed together or not at all.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import AsyncIterator, Callable, Collection, Mapping, Sequence
from contextlib import asynccontextmanager
from typing import Any, TypeVar

from fieldhouse.model.aggregate import AggregateSpec
from fieldhouse.model.listquery import ListQuery
from fieldhouse.model.memo import SchemaMemo
from fieldhouse.model.principal import Role
from fieldhouse.model.records import RecordRow
from fieldhouse.model.schema import FieldDef, ModuleDef, ModuleSchema, ReferenceDef, ViewDef
from fieldhouse.model.search_doc import Doc, record_doc
from fieldhouse.storage import (
    accounts,
    aggregate,
    aggregate_kept,
    expand,
    records,
    schemas,
    search_index,
    vectors,
)
from fieldhouse.storage import objects as obj
from fieldhouse.storage import writebehind as wb
from fieldhouse.storage.base import (
    AccountRow,
    ApiKeyRow,
    Driver,
    KeyLookup,
    Op,
    QueuedWriteFailed,
    Stmt,
    StorageError,
    Txn,
    UserRow,
)
from fieldhouse.storage.facets import Facet, countable, start_counting
from fieldhouse.storage.fulltext import KeywordHits, Stats
from fieldhouse.storage.objects import ObjectRow
from fieldhouse.storage.rows import RECORDS, advance_autonumber
from fieldhouse.storage.sqlquery import CompiledList, compile_list, index_keys
from fieldhouse.storage.writebehind import Batch, Scope

T = TypeVar("T")


class Store:
    """A Fieldhouse database. Open with :func:`fieldhouse.storage.open_database`."""

    def __init__(self, driver: Driver) -> None:
        self._db = driver
        #: the embedding model whose vectors records get (None: records wait for none)
        self.vector_model: str | None = None
        self._indexed: set[tuple[str, ...]] = set()
        #: list queries compiled for a module schema (per workspace: the SQL binds it)
        self._compiled: SchemaMemo[tuple[CompiledList, Facet | None]] = SchemaMemo(256)
        self._rate_window = -1
        self._aggregates = aggregate.Remembered()

    @property
    def shared_between_processes(self) -> bool:
        """Several server processes may share this store; rate limits are then counted in it."""
        return self._db.shared_between_processes

    @property
    def engine(self) -> str:
        """``sqlite`` or ``postgres``."""
        return self._db.dialect.name

    async def aclose(self) -> None:
        await self._db.aclose()

    @asynccontextmanager
    async def write(self, account_id: str, *, light: bool = False) -> AsyncIterator[WriteTxn]:
        """A write transaction of one workspace, committed when the block exits cleanly;
        ``light``: it writes a few records at most (see :meth:`Driver.transaction`)."""
        try:
            async with self._db.transaction(account_id, light=light) as txn:
                w = WriteTxn(txn, self._db, account_id, self.vector_model)
                yield w
                await w.commit()
        finally:
            self._aggregates.touched(account_id)  # answers read before it are not kept

    async def _read(self, op: Op[T]) -> T:
        return await self._db.read(op)

    # --- accounts, users, keys ---

    async def create_account(self, account_id: str, name: str, slug: str, at: str) -> None:
        d = self._db.dialect

        def op() -> Op[None]:
            yield from accounts.create_account(account_id, name, slug, at)
            yield from search_index.create(d, account_id)

        await self._db.write(op())

    async def get_account(self, account_id: str) -> AccountRow | None:
        return await self._read(accounts.get_account(account_id))

    async def list_accounts(self) -> list[AccountRow]:
        return await self._read(accounts.list_accounts())

    async def get_meta(self, key: str) -> str | None:
        return await self._read(accounts.get_meta(key))

    async def set_meta_if_absent(self, key: str, value: str) -> str:
        """Store value under key unless one is there; return the value that is stored."""
        return await self._db.write(accounts.set_meta_if_absent(key, value))

    async def delete_meta(self, key: str) -> None:
        """Remove key and its value (overwritten on disk where the backend can)."""
        await self._db.write(accounts.delete_meta(self._db.dialect, key))

    async def lookup_key(self, key_hash: str) -> KeyLookup | None:
        return await self._read(accounts.lookup_key(key_hash))

    async def find_key(self, key_id: str) -> ApiKeyRow | None:
        return await self._read(accounts.find_key(key_id))

    async def get_user(self, account_id: str, user_id: str) -> UserRow | None:
        return await self._read(accounts.get_user(account_id, user_id))

    async def list_users(self, account_id: str) -> list[dict[str, Any]]:
        """The workspace's users, oldest first (``fieldhouse user list``)."""
        return await self._read(accounts.list_users(account_id))

    async def list_api_keys(self, account_id: str) -> list[dict[str, Any]]:
        """The workspace's API keys, oldest first, without secrets or hashes."""
        return await self._read(accounts.list_api_keys(account_id))

    async def owner_user_id(self, account_id: str) -> str | None:
        """The workspace's first owner."""
        return await self._read(accounts.owner_user_id(account_id))

    async def get_role(self, account_id: str, slug: str) -> Role | None:
        return await self._read(accounts.get_role(account_id, slug))

    async def list_labels(self, account_id: str) -> list[dict[str, Any]]:
        return await self._read(accounts.list_named("labels", account_id))

    async def label_names(self, account_id: str) -> dict[str, str]:
        return await self._read(accounts.label_names(account_id))

    async def list_types(self, account_id: str) -> list[dict[str, Any]]:
        return await self._read(accounts.list_named("types", account_id))

    async def hit_rate_limit(self, bucket: str, window_start: int) -> int:
        """Count one request in a bucket's rate-limit window and return the window's count.

        Only stores shared between processes count here; the others count in memory.
        """
        if not self.shared_between_processes:
            raise NotImplementedError("a store of one process counts rate limits in memory")
        if window_start != self._rate_window:
            self._rate_window = window_start
            await self._db.write(accounts.prune_rate_windows(window_start))
        return await self._db.write(accounts.hit_rate_limit(bucket, window_start))

    # --- schemas ---

    async def schema_version(self, account_id: str) -> int:
        return await self._read(accounts.schema_version(account_id))

    async def load_schemas(self, account_id: str) -> tuple[int, dict[str, ModuleSchema]]:
        """The schema version and every module schema of a workspace, read consistently."""
        return await self._db.read(schemas.load_schemas(account_id), snapshot=True)

    # --- records ---

    async def all_modules(self, account_id: str) -> list[ModuleDef]:
        """Every module of the workspace, archived (inactive) ones too."""
        return await self._read(schemas.all_modules(account_id))

    async def get_record(self, account_id: str, module_id: str, record_id: str) -> RecordRow | None:
        """A live record of a module, or None."""
        found = await self._read(
            records.get_records(self._db.dialect, account_id, [record_id], module_id)
        )
        return found[0] if found else None

    async def get_records(self, account_id: str, ids: Collection[str]) -> list[RecordRow]:
        """The live records among ``ids``, by id (deleted and unknown ids are absent)."""
        return await self._read(records.get_records(self._db.dialect, account_id, ids))

    async def records_after(self, account_id: str, last_id: str, limit: int) -> list[RecordRow]:
        """Up to ``limit`` live records of the workspace with ids above ``last_id``, by id:
        ``""`` starts, the last id of a page continues."""
        return await self._read(records.records_after(self._db.dialect, account_id, last_id, limit))

    async def list_records(
        self,
        account_id: str,
        schema: ModuleSchema,
        query: ListQuery,
        *,
        search_ids: Sequence[str] | None = None,
    ) -> tuple[list[RecordRow], int]:
        """A page of a module's live records for a parsed list query, and the query's total.

        ``search_ids``, when given, are the search index's candidates for ``query.search``:
        the substring match then only checks those."""
        return await self._list(account_id, schema, query, search_ids, RECORDS.read_all)

    async def list_records_json(
        self,
        account_id: str,
        schema: ModuleSchema,
        query: ListQuery,
        *,
        search_ids: Sequence[str] | None = None,
    ) -> tuple[list[dict[str, Any]], int]:
        """As :meth:`list_records`, each record as the API writes it (``RecordRow.to_json``
        with the query's ``fields``), read straight from its row (:func:`records.page_json`)."""
        # archived fields' values stay stored and are never shown
        keep = query.fields if query.fields is not None else schema.live_keys
        read = records.page_json(schema.module.slug, keep)
        return await self._list(account_id, schema, query, search_ids, read)

    async def _list(
        self,
        account_id: str,
        schema: ModuleSchema,
        query: ListQuery,
        search_ids: Sequence[str] | None,
        read: records.PageReader[T],
    ) -> tuple[list[T], int]:

        def plan() -> tuple[CompiledList, Facet | None]:
            compiled = compile_list(
                query,
                schema,
                self._db.dialect,
                account_id=account_id,
                module_id=schema.module.module_id,
                search_ids=search_ids,
            )
            # a total over the search index's candidates of this moment is counted
            facet = None if search_ids is not None else countable(query, schema, account_id)
            return compiled, facet

        # a query with an advanced filter is planned each time: its operands are typed values,
        # and 1, 1.0 and True would be one key; search candidates change from one to the next
        if search_ids is None and query.advanced is None:
            compiled, facet = self._compiled.get(schema, (account_id, query), plan)
        else:
            compiled, facet = plan()
        if facet is not None:
            counted = records.list_counted(compiled, query.page_size, query.offset, facet, read)
            found = await self._db.read(counted, snapshot=True)
            if found is not None:
                return found
            async with self.write(account_id) as txn:  # the workspace's write lock
                await txn._run(start_counting(self._db.dialect, facet))
        op = records.list_records(compiled, query.page_size, query.offset, read)
        return await self._db.read(op, snapshot=True)

    async def index_list_query(self, schema: ModuleSchema, query: ListQuery) -> None:
        """Make expression indexes for what a slow list query filtered and sorted by, so the
        next one like it avoids a full scan of the module (best effort, made once)."""
        for key in index_keys(query, schema, self._db.dialect):
            if key not in self._indexed:
                self._indexed.add(key)
                await self._db.create_index(key)

    async def linked_targets(self, account_id: str, source_id: str, field_slug: str) -> list[str]:
        return await self._read(records.linked_targets(account_id, source_id, field_slug))

    async def picker(
        self, account_id: str, module_id: str, search: str | None, limit: int
    ) -> list[RecordRow]:
        return await self._read(records.picker(account_id, module_id, search, limit))

    # --- activity ---

    async def list_activity(
        self,
        account_id: str,
        *,
        module_ids: Collection[str] | None,
        record_id: str | None,
        types: Collection[str],
        limit: int,
        after_seq: int | None = None,
    ) -> list[dict[str, Any]]:
        """Newest first; with ``after_seq``, the entries above it oldest first (the change
        feed resumes from the last sequence number it saw). module_ids None means any module
        (and workspace-level entries)."""
        op = records.list_activity(account_id, module_ids, record_id, types, limit, after_seq)
        return await self._read(op)

    async def activity_since(self, account_id: str, seq: int, limit: int) -> list[dict[str, Any]]:
        """Activity entries of a workspace with a sequence number above ``seq``, oldest first
        (at most ``limit``): how a process learns of writes made through another one."""
        return await self._read(records.activity_since(account_id, seq, limit))

    # --- workspace objects ---

    # --- search (statements only: fieldhouse.search.service owns what is kept of them) ---

    async def keyword_stats(self, account_id: str) -> Stats:
        return await self._read(search_index.statistics(self._db.dialect, account_id))

    async def keyword_search(
        self,
        account_id: str,
        words: Sequence[str],
        stats: Stats,
        module_ids: Collection[str] | None,
        limit: int,
    ) -> KeywordHits:
        op = search_index.search(self._db.dialect, account_id, words, stats, module_ids, limit)
        # not in one snapshot: SQLite's search writes scratch tables of the connection, and a
        # write that a read overrunning its time on the trio thread has interrupted rolls back
        # the whole transaction (the snapshot, the scratch tables made in it)
        return await self._read(op)

    async def search_docs(self, account_id: str, ids: Sequence[str]) -> dict[str, dict[str, str]]:
        """id -> indexed text (module, title, body, labels, stamp) of those ``ids`` indexed."""
        return await self._read(search_index.stored(self._db.dialect, account_id, ids))

    async def reindex(self, account_id: str, docs: Sequence[Doc], *, first: bool) -> None:
        """Put ``docs`` in the workspace's keyword index (with ``first``, after emptying it)
        and queue them for vectors (a rebuild, in pages)."""
        d, model = self._db.dialect, self.vector_model

        def op() -> Op[None]:
            if first:
                yield from search_index.clear(d, account_id)
                yield from vectors.drop_account(account_id)
            yield from search_index.put_docs(d, account_id, docs)
            if model is not None:
                items = [(doc.record_id, doc.stamp) for doc in docs]
                yield from vectors.queue(account_id, items, time.time())

        await self._db.write(op())

    async def claim_embedding(self, limit: int, lease: float) -> list[vectors.Queued]:
        now = time.time()
        return await self._db.write(vectors.claim(self._db.dialect, limit, now, now + lease))

    async def store_vectors(
        self, account_id: str, model: str, items: Sequence[tuple[str, str, str, bytes]]
    ) -> None:
        """(record id, module id, stamp, vector bytes) of records whose text was embedded."""
        current = search_index.current(self._db.dialect, account_id)
        await self._db.write(vectors.store(account_id, model, items, current))

    async def drop_queued(self, items: Sequence[vectors.Queued]) -> None:
        await self._db.write(vectors.drop_queued(items))

    async def vectors_since(
        self, account_id: str, model: str, after: int, limit: int
    ) -> list[vectors.VectorRow]:
        return await self._read(vectors.since(account_id, model, after, limit))

    async def vector_backlog(self, account_id: str | None = None) -> vectors.Backlog:
        return await self._read(vectors.backlog(account_id))

    async def get_object(self, account_id: str, kind: str, object_id: str) -> ObjectRow | None:
        return await self._read(obj.get_object(account_id, kind, object_id))

    async def list_objects(
        self,
        account_id: str,
        kind: str,
        *,
        status: str | None = None,
        limit: int = 100,
        id_prefix: str = "",
    ) -> list[ObjectRow]:
        """Newest first; with ``id_prefix``, only objects whose id starts with it."""
        return await self._read(obj.list_objects(account_id, kind, status, limit, id_prefix))

    async def objects_of_kind(
        self, kind: str, status: str, *, after: tuple[str, str] = ("", ""), limit: int = 500
    ) -> list[ObjectRow]:
        """Objects of one kind and status across workspaces, ordered by (workspace, id); pass
        the last one's (account_id, object_id) as ``after`` for the next page."""
        return await self._read(obj.objects_of_kind(kind, status, after, limit))

    async def due_objects(
        self, kind: str, status: str, before: str, limit: int = 100
    ) -> list[ObjectRow]:
        """Objects of every workspace whose due_at has come, oldest first (for schedulers)."""
        return await self._read(obj.due_objects(kind, status, before, limit))

    async def aggregate(
        self, account_id: str, schema: ModuleSchema, query: ListQuery, spec: AggregateSpec
    ) -> dict[str, Any]:
        """Groups and metrics of the live records a list query matches (see
        :mod:`~fieldhouse.storage.aggregate`), read in one snapshot."""
        # advanced filters' operands are typed values (1, 1.0 and True would be one key)
        key = (
            None
            if query.advanced is not None
            else (account_id, schema.module.module_id, query, spec)
        )
        kept = aggregate_kept.plan(self._db.dialect, schema, query, spec, account_id)
        if kept is not None:  # answered from tables triggers keep (registered on first use)
            op = self._aggregates.answer(account_id, key, lambda: aggregate_kept.answer(kept, spec))
            found = await self._db.read(op, snapshot=True)
            if found is None:
                async with self.write(account_id) as txn:  # the workspace's write lock
                    await txn._run(aggregate_kept.register(kept))
                found = await self._db.read(aggregate_kept.answer(kept, spec), snapshot=True)
            assert found is not None
            return found
        compiled = compile_list(
            query,
            schema,
            self._db.dialect,
            account_id=account_id,
            module_id=schema.module.module_id,
        )
        op = self._aggregates.aggregate(self._db.dialect, account_id, key, compiled, spec)
        return await self._db.read(op, snapshot=True)

    async def expand(
        self,
        account_id: str,
        source_ids: Sequence[str],
        field_slugs: Collection[str],
        module_slugs: Collection[str],
    ) -> list[expand.Linked]:
        """The live records the sources link to under ``field_slugs``, in modules among
        ``module_slugs`` (see :mod:`~fieldhouse.storage.expand`): one query."""
        op = expand.linked_records(account_id, source_ids, field_slugs, module_slugs)
        return await self._read(op)


def _counters(account_id: str) -> Op[tuple[int, int, dict[str, dict[str, Any]]]]:
    version, seq = yield from accounts.counters(account_id)
    configs = yield from schemas.autonumber_configs(account_id)
    return version, seq, configs


class WriteTxn:
    """One write transaction of one workspace. Only the workspace actor holds one.

    Writes whose result the caller does not need are queued (see
    :mod:`~fieldhouse.storage.writebehind`) and run with the next statement that answers
    something, a strict savepoint's release, or the commit. The activity sequence and the
    auto-number counters are read once, advanced in memory and written back with each flush:
    the transaction holds the workspace's write lock, so no other writer can move them.
    """

    def __init__(
        self, txn: Txn, driver: Driver, account_id: str, vector_model: str | None = None
    ) -> None:
        self._txn = txn
        self._dialect = driver.dialect
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
        #: records inserted here, and (record, field) pairs whose links were written here
        self._inserted: set[str] = set()
        self._linked: set[tuple[str, str]] = set()
        #: set by the workspace actor: a module's schema by id, to read a record's words
        self.schema_of: Callable[[str], ModuleSchema | None] | None = None
        self._vector_model = vector_model
        #: label id -> name, read once a transaction when a record with labels is indexed
        self._label_names: dict[str, str] | None = None
        #: the search index's changes, in order: a record's text, or deleted (id, module);
        #: written with the counters (at the commit), the first ``_search_sent`` already
        self._search: list[Doc | tuple[str, str]] = []
        self._search_sent = 0

    # --- write-behind ---

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
                scope.stmt = wb.savepoint(scope.name)
                self._queue.insert(scope.index, scope.stmt)
        queued, self._queue = self._queue, []
        if not write_back:
            queued.extend(tail)
            return Batch(wb.coalesce(queued))
        if self._seq != self._stored_seq and self._seq is not None:
            queued.extend(accounts.set_activity_seq(self.account_id, self._seq))
            self._stored_seq = self._seq
        for field_id in sorted(self._dirty):
            config = self._configs[field_id]
            queued.extend(schemas.set_field_config(self.account_id, field_id, config))
        self._dirty.clear()
        queued.extend(self._search_statements())
        queued.extend(tail)
        return Batch(wb.coalesce(queued))

    def _search_statements(self) -> list[Stmt]:
        """The search index's changes not written yet: each run of puts (the records' text,
        and their places in the vector queue) and of deletes as one statement each."""
        changes = self._search[self._search_sent :]
        self._search_sent = len(self._search)
        out: list[Stmt] = []
        now = time.time()
        d, account, model = self._dialect, self.account_id, self._vector_model
        for kind, grouped in itertools.groupby(changes, key=type):
            run = list(grouped)
            if kind is Doc:
                docs = [c for c in run if isinstance(c, Doc)]
                out.extend(search_index.put_docs(d, account, docs))
                if model is not None:
                    out.extend(vectors.queue(account, [(c.record_id, c.stamp) for c in docs], now))
            else:
                gone = [c for c in run if isinstance(c, tuple)]
                out.extend(search_index.delete_docs(d, account, [rid for rid, _ in gone]))
                if model is not None:
                    out.extend(vectors.forget(d, account, gone, model))
        return out

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
            result = await self._txn.run(wb.chain(batch, op), commit=commit)
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
            await self._run(wb.nothing())

    async def commit(self) -> None:
        """Run everything queued and commit, in one hop."""
        await self._run(wb.nothing(), commit=True)

    def _state(self) -> Any:
        # the configs are never changed in place (``take_autonumber`` replaces one it advances)
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
                await self._run(wb.nothing(), [wb.release(scope.name)])
                scope.stmt = None  # released
        except BaseException:
            self._scopes.pop()
            self._seq, self._stored_seq, self._configs, self._dirty, searched, sent = scope.saved
            del self._search[searched:]
            # what was written in the scope (its changes, and earlier ones first written in
            # it), the database rolls back with the scope: written again at the next flush
            self._search_sent = sent
            if scope.stmt is None:
                del self._queue[scope.index :]
            elif scope.live:
                # what was queued since the last flush is this scope's
                self._queue = [wb.rollback_to(scope.name), wb.release(scope.name)]
            else:
                self._queue = []
            raise
        self._scopes.pop()
        if scope.stmt is not None:
            self._queue.append(wb.release(scope.name))

    # --- schema, users, roles, keys ---

    async def bump_schema_version(self) -> int:
        return await self._run(accounts.bump_counter(self.account_id, "schema_version"))

    async def schema_version(self) -> int:
        if self._seq is None:
            # the first read of a transaction also takes the counters it may advance
            version, seq, configs = await self._run(_counters(self.account_id))
            self._seq = self._stored_seq = seq
            self._configs = {**configs, **self._configs}
            return version
        return await self._run(accounts.schema_version(self.account_id))

    async def insert_user(self, user: UserRow, created_at: str) -> None:
        await self._run(accounts.insert_user(user, created_at))

    async def delete_user(self, user_id: str, deleted_at: str) -> bool:
        """Soft-delete a live user (their keys and session tokens stop working)."""
        return await self._run(accounts.delete_user(self.account_id, user_id, deleted_at))

    async def insert_role(self, role: Role, created_at: str) -> None:
        await self._run(accounts.insert_role(self.account_id, role, created_at))

    async def get_role(self, slug: str) -> Role | None:
        return await self._run(accounts.get_role(self.account_id, slug))

    async def insert_api_key(self, key: ApiKeyRow, prefix: str, created_at: str) -> None:
        self._defer(accounts.insert_api_key(key, prefix, created_at))

    async def revoke_api_key(self, key_id: str, revoked_at: str) -> bool:
        return await self._run(accounts.revoke_api_key(self.account_id, key_id, revoked_at))

    async def insert_label(
        self, label_id: str, name: str, color: str | None, created_at: str
    ) -> None:
        op = accounts.insert_label(self.account_id, label_id, name, color, created_at)
        await self._run(op)
        self._label_names = None

    async def insert_type(
        self, type_id: str, name: str, color: str | None, module_id: str | None, created_at: str
    ) -> None:
        op = accounts.insert_type(self.account_id, type_id, name, color, module_id, created_at)
        await self._run(op)

    async def existing_ids(self, table: str, ids: Collection[str]) -> set[str]:
        """Which of ids exist in labels, types or (live) users of this workspace."""
        return await self._run(accounts.existing_ids(table, self.account_id, ids))

    async def insert_module(self, module: ModuleDef) -> None:
        self._defer(schemas.insert_module(module))

    async def upsert_fields(self, fields: Sequence[FieldDef]) -> None:
        self._forget_configs()
        self._defer(schemas.upsert_fields(self.account_id, fields))

    async def delete_fields(self, module_id: str, field_ids: Sequence[str]) -> None:
        self._forget_configs()
        self._defer(schemas.delete_parts("fields", self.account_id, module_id, field_ids))

    async def upsert_views(self, views: Sequence[ViewDef]) -> None:
        self._defer(schemas.upsert_views(self.account_id, views))

    async def delete_views(self, module_id: str, view_ids: Sequence[str]) -> None:
        self._defer(schemas.delete_parts("views", self.account_id, module_id, view_ids))

    async def upsert_references(self, refs: Sequence[ReferenceDef]) -> None:
        self._defer(schemas.upsert_references(self.account_id, refs))

    async def delete_references(self, module_id: str, ref_ids: Sequence[str]) -> None:
        self._defer(schemas.delete_parts("module_references", self.account_id, module_id, ref_ids))

    async def all_modules(self) -> list[ModuleDef]:
        """Every module of the workspace, archived (inactive) ones too."""
        return await self._run(schemas.all_modules(self.account_id), write_back=True)

    async def set_module_active(self, module_id: str, active: bool, at: str) -> None:
        self._defer(schemas.set_module_active(self.account_id, module_id, active, at))

    async def module_fields(self, module_id: str) -> list[FieldDef]:
        """A module's fields, archived ones too, even while the module is archived."""
        return await self._run(schemas.module_fields(self.account_id, module_id), write_back=True)

    async def rename_module(self, module_id: str, name: str, at: str) -> None:
        self._defer(schemas.rename_module(self.account_id, module_id, name, at))

    async def module_schemas(self) -> dict[str, ModuleSchema]:
        """The workspace's module schemas as this transaction sees them, keyed by slug."""
        _, found = await self._run(schemas.load_schemas(self.account_id), write_back=True)
        return found

    async def take_autonumber(self, field_id: str, sequence: str | None) -> int:
        """The field's next number; its counter is read once per transaction and written
        back with the next flush."""
        config = self._configs.get(field_id)
        if config is None:
            config = await self._run(schemas.field_config(self.account_id, field_id))
        # advanced in a copy (what ``advance_autonumber`` changes: the autonumber part), so
        # an open savepoint's snapshot of the configs, a shallow copy, keeps the old one
        auto = dict(config.get("autonumber") or {})
        if "sequenceCounters" in auto:
            auto["sequenceCounters"] = dict(auto["sequenceCounters"])
        config = {**config, "autonumber": auto}
        number = advance_autonumber(config, sequence)
        self._configs[field_id] = config
        self._dirty.add(field_id)
        return number

    def _forget_configs(self) -> None:
        """A field definition is about to be written: queue the counters' write-back before it
        and read them afresh afterwards."""
        for field_id in sorted(self._dirty):
            config = self._configs[field_id]
            self._defer(schemas.set_field_config(self.account_id, field_id, config))
        self._dirty.clear()
        self._configs.clear()

    # --- records ---

    async def insert_record(self, row: RecordRow) -> None:
        self._inserted.add(row.record_id)
        self._defer(records.insert_record(row))
        await self._index(row)

    async def update_record(self, row: RecordRow) -> None:
        self._defer(records.update_record(row))
        await self._index(row)

    async def _index(self, row: RecordRow) -> None:
        """The record's searchable text, written with the transaction."""
        schema = self.schema_of(row.module_id) if self.schema_of is not None else None
        labels: dict[str, str] = {}
        if row.label_ids:
            if self._label_names is None:
                self._label_names = await self._run(accounts.label_names(self.account_id))
            labels = self._label_names
        self._search.append(record_doc(row, schema, labels))

    async def get_records(
        self, ids: Collection[str], module_id: str | None = None
    ) -> list[RecordRow]:
        """Live records among ids (missing and deleted ones are simply absent)."""
        return await self._run(records.get_records(self._dialect, self.account_id, ids, module_id))

    async def records_by_value(
        self, module_id: str, field_slug: str, values: Collection[str]
    ) -> list[RecordRow]:
        """Live records of a module whose text field ``field_slug`` holds one of ``values``
        (upsert by a unique field)."""
        op = records.records_by_value(self._dialect, self.account_id, module_id, field_slug, values)
        return await self._run(op)

    async def soft_delete(
        self, module_id: str, ids: Sequence[str], at: str, by: str | None
    ) -> list[str]:
        """Mark live records deleted; return the ids that were live."""
        deleted = await self._run(
            records.soft_delete(self._dialect, self.account_id, module_id, ids, at, by)
        )
        self._search.extend((rid, module_id) for rid in deleted)
        return deleted

    async def set_links(self, source_id: str, field_slug: str, targets: Sequence[str]) -> None:
        fresh = source_id in self._inserted and (source_id, field_slug) not in self._linked
        self._linked.add((source_id, field_slug))
        if fresh:
            # a record inserted in this transaction has no links yet: nothing to delete
            if targets:
                self._defer(records.insert_links(self.account_id, source_id, field_slug, targets))
            return
        self._defer(records.set_links(self.account_id, source_id, field_slug, targets))

    async def linked_targets(self, source_id: str, field_slug: str) -> list[str]:
        return await self._run(records.linked_targets(self.account_id, source_id, field_slug))

    async def linking_sources(self, target_ids: Collection[str]) -> list[tuple[str, str]]:
        return await self._run(records.linking_sources(self.account_id, target_ids))

    async def record_modules(self, ids: Collection[str]) -> dict[str, tuple[str, str]]:
        """record id -> (module slug, display name) for live records among ids."""
        return await self._run(records.record_modules(self._dialect, self.account_id, ids))

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

    # --- template maintenance (field definitions and their stored values) ---

    async def records_lacking_field(
        self, module_id: str, field_slug: str | None
    ) -> list[RecordRow]:
        """Live records of a module with no value (absent or null) under field_slug (every live
        record when None), oldest first (createdDateTime, then record id)."""
        op = records.records_lacking_field(self._dialect, self.account_id, module_id, field_slug)
        return await self._run(op)

    async def reindex_module(self, module_id: str) -> int:
        """Write the searchable text of a module's live records again, by its schema as the
        transaction sees it now (a field archived or back: its words leave or return)."""
        rows = await self.records_lacking_field(module_id, None)
        for row in rows:
            await self._index(row)
        return len(rows)

    async def remove_field_values(self, module_id: str, field_slug: str) -> int:
        """Drop field_slug from the fields of the module's live records and forget the record
        links stored under it; return how many records held a value."""
        op = records.remove_field_values(self._dialect, self.account_id, module_id, field_slug)
        return await self._run(op)

    # --- workspace objects ---

    async def put_object(self, row: ObjectRow) -> None:
        """Insert or replace one object of this workspace."""
        self._defer(obj.put_object(row))

    async def get_object(self, kind: str, object_id: str) -> ObjectRow | None:
        return await self._run(obj.get_object(self.account_id, kind, object_id))

    async def transition_object(
        self, kind: str, object_id: str, expected: str, status: str, at: str
    ) -> bool:
        """Move an object from status ``expected`` to ``status``; False if it was not there."""
        op = obj.transition(self.account_id, kind, object_id, expected, status, at)
        return await self._run(op)
