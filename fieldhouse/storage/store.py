"""The Store, written once over a :class:`~fieldhouse.storage.base.Driver`.

Reads take the account id explicitly, so no query can cross workspaces. Writes happen only in a
:class:`~fieldhouse.storage.write_txn.WriteTxn`, opened by the workspace actor with
:meth:`Store.write`; everything written in one is committed together or not at all.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Collection, Sequence
from contextlib import asynccontextmanager
from typing import Any, TypeVar

from fieldhouse.model.aggregate import AggregateSpec
from fieldhouse.model.listquery import ListQuery
from fieldhouse.model.memo import SchemaMemo
from fieldhouse.model.principal import Role
from fieldhouse.model.records import RecordRow
from fieldhouse.model.schema import ModuleDef, ModuleSchema
from fieldhouse.model.search_doc import Doc
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
from fieldhouse.storage.base import AccountRow, ApiKeyRow, Driver, KeyLookup, Op, UserRow
from fieldhouse.storage.facets import Facet, countable, start_counting
from fieldhouse.storage.fulltext import KeywordHits, Stats
from fieldhouse.storage.objects import ObjectRow
from fieldhouse.storage.rows import RECORDS
from fieldhouse.storage.sqlquery import CompiledList, compile_list, index_keys
from fieldhouse.storage.write_txn import WriteTxn

__all__ = ["Store", "WriteTxn"]

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

    async def user_and_key(
        self, account_id: str, user_id: str, key_id: str | None
    ) -> tuple[UserRow | None, ApiKeyRow | None]:
        """The user and (when ``key_id`` is given and the user is there) the key, in one read."""
        return await self._read(accounts.user_and_key(account_id, user_id, key_id))

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

    # --- workspace objects ---

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
