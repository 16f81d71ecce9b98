"""The embedded store: SQLite in WAL mode, driven from trio through worker threads.

One writer connection sits behind a ``CapacityLimiter(1)`` and a lock held for a whole write
transaction; a small pool of reader connections serves reads concurrently (WAL lets readers
run beside the writer). Nothing here blocks the trio thread.
"""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator, Callable, Collection, Mapping, Sequence
from contextlib import asynccontextmanager
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

import trio

from fieldhouse.model.principal import Role
from fieldhouse.model.records import RecordRow
from fieldhouse.model.schema import FieldDef, ModuleDef, ModuleSchema, ReferenceDef, ViewDef
from fieldhouse.storage import sqlite_objects as obj
from fieldhouse.storage import sqlite_ops as ops
from fieldhouse.storage import sqlite_records as rec
from fieldhouse.storage.base import (
    AccountRow,
    ApiKeyRow,
    ConflictError,
    KeyLookup,
    Store,
    UserRow,
    WriteTxn,
)
from fieldhouse.storage.objects import ObjectRow
from fieldhouse.storage.sqldialect import SQLITE, Dialect
from fieldhouse.storage.sqlite_schema import migrate

T = TypeVar("T")
Conn = sqlite3.Connection


def _connect(path: str, synchronous: str) -> Conn:
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=30.0)
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute(f"PRAGMA synchronous={synchronous}")
    conn.execute("PRAGMA busy_timeout=30000")
    conn.execute("PRAGMA temp_store=MEMORY")
    conn.execute("PRAGMA cache_size=-65536")
    return conn


class SQLiteStore(Store):
    def __init__(self, writer: Conn, readers: list[Conn]) -> None:
        self._writer = writer
        self._write_limiter = trio.CapacityLimiter(1)
        self._write_lock = trio.Lock()
        self._readers = readers
        self._read_limiter = trio.CapacityLimiter(len(readers))
        self._indexed: set[str] = set()
        self._pending: list[str] = []

    @classmethod
    async def open(cls, path: Path, *, readers: int = 3, synchronous: str = "FULL") -> SQLiteStore:
        def setup() -> tuple[Conn, list[Conn]]:
            path.parent.mkdir(parents=True, exist_ok=True)
            writer = _connect(str(path), synchronous)
            migrate(writer)
            return writer, [_connect(str(path), synchronous) for _ in range(readers)]

        writer, pool = await trio.to_thread.run_sync(setup)
        return cls(writer, pool)

    async def aclose(self) -> None:
        async with self._write_lock:
            for conn in [self._writer, *self._readers]:
                await trio.to_thread.run_sync(conn.close)

    # --- plumbing ---

    async def _w(self, fn: Callable[..., T], *args: Any) -> T:
        try:
            return await trio.to_thread.run_sync(
                self._run_pending_then, fn, args, limiter=self._write_limiter
            )
        except sqlite3.IntegrityError as exc:
            raise ConflictError(str(exc)) from exc

    def _run_pending_then(self, fn: Callable[..., T], args: tuple[Any, ...]) -> T:
        # Transaction control (BEGIN, SAVEPOINT, RELEASE, ROLLBACK TO) rides along with the next
        # statement instead of costing a thread hop of its own; only this transaction's task
        # touches the queue, and it waits while the worker thread runs.
        pending, self._pending = self._pending, []
        for sql in pending:
            self._writer.execute(sql)
        return fn(self._writer, *args)

    async def _r(self, fn: Callable[..., T], *args: Any) -> T:
        async with self._read_limiter:
            conn = self._readers.pop()
            try:
                return await trio.to_thread.run_sync(fn, conn, *args)
            finally:
                self._readers.append(conn)

    @asynccontextmanager
    async def write(self, account_id: str) -> AsyncIterator[WriteTxn]:
        async with self._write_lock:
            self._pending = ["BEGIN IMMEDIATE"]
            try:
                yield SQLiteTxn(self, account_id)
                await self._w(ops.commit)
            except BaseException:
                # also after a failed COMMIT: the connection must leave the transaction
                self._pending = []
                with trio.CancelScope(shield=True):
                    await self._w(ops.rollback)
                raise

    # --- reads and account-level writes ---

    async def create_account(self, account_id: str, name: str, slug: str, at: str) -> None:
        async with self._write_lock:
            await self._w(ops.create_account, account_id, name, slug, at)

    async def get_account(self, account_id: str) -> AccountRow | None:
        return await self._r(ops.get_account, account_id)

    async def list_accounts(self) -> list[AccountRow]:
        return await self._r(ops.list_accounts)

    async def get_meta(self, key: str) -> str | None:
        return await self._r(ops.get_meta, key)

    async def set_meta_if_absent(self, key: str, value: str) -> str:
        async with self._write_lock:
            return await self._w(ops.set_meta_if_absent, key, value)

    async def delete_meta(self, key: str) -> None:
        async with self._write_lock:
            await self._w(ops.delete_meta, key)

    async def lookup_key(self, key_hash: str) -> KeyLookup | None:
        return await self._r(ops.lookup_key, key_hash)

    async def find_key(self, key_id: str) -> ApiKeyRow | None:
        return await self._r(ops.find_key, key_id)

    async def get_user(self, account_id: str, user_id: str) -> UserRow | None:
        return await self._r(ops.get_user, account_id, user_id)

    async def owner_user_id(self, account_id: str) -> str | None:
        return await self._r(ops.owner_user_id, account_id)

    async def schema_version(self, account_id: str) -> int:
        return await self._r(ops.schema_version, account_id)

    async def get_role(self, account_id: str, slug: str) -> Role | None:
        return await self._r(ops.get_role, account_id, slug)

    async def load_schemas(self, account_id: str) -> tuple[int, dict[str, ModuleSchema]]:
        return await self._r(ops.load_schemas, account_id)

    async def get_record(self, account_id: str, module_id: str, record_id: str) -> RecordRow | None:
        rows = await self._r(rec.get_records, account_id, [record_id], module_id)
        return rows[0] if rows else None

    async def list_records(
        self, where: str, params: Sequence[Any], order_by: str, limit: int, offset: int
    ) -> tuple[list[RecordRow], int]:
        return await self._r(rec.list_records, where, params, order_by, limit, offset)

    async def linked_targets(self, account_id: str, source_id: str, field_slug: str) -> list[str]:
        return await self._r(rec.linked_targets, account_id, source_id, field_slug)

    async def picker(
        self, account_id: str, module_id: str, search: str | None, limit: int
    ) -> list[RecordRow]:
        return await self._r(rec.picker, account_id, module_id, search, limit)

    async def list_activity(
        self,
        account_id: str,
        *,
        module_ids: Collection[str] | None,
        record_id: str | None,
        types: Collection[str],
        limit: int,
    ) -> list[dict[str, Any]]:
        return await self._r(
            partial(
                rec.list_activity,
                account_id=account_id,
                module_ids=module_ids,
                record_id=record_id,
                types=types,
                limit=limit,
            )
        )

    @property
    def dialect(self) -> Dialect:
        return SQLITE

    async def ensure_indexes(self, expressions: Sequence[str]) -> None:
        todo = [e for e in expressions if e not in self._indexed]
        if not todo:
            return
        self._indexed.update(todo)
        async with self._write_lock:
            for expr in todo:
                await self._w(rec.create_expression_index, expr)

    async def list_labels(self, account_id: str) -> list[dict[str, Any]]:
        return await self._r(ops.list_named, "labels", account_id)

    async def list_types(self, account_id: str) -> list[dict[str, Any]]:
        return await self._r(ops.list_named, "types", account_id)

    # --- workspace objects ---

    async def get_object(self, account_id: str, kind: str, object_id: str) -> ObjectRow | None:
        return await self._r(obj.get_object, account_id, kind, object_id)

    async def list_objects(
        self, account_id: str, kind: str, *, status: str | None = None, limit: int = 100
    ) -> list[ObjectRow]:
        return await self._r(obj.list_objects, account_id, kind, status, limit)

    async def due_objects(
        self, kind: str, status: str, before: str, limit: int = 100
    ) -> list[ObjectRow]:
        return await self._r(obj.due_objects, kind, status, before, limit)

    # --- activity for other processes ---

    async def activity_since(self, account_id: str, seq: int, limit: int) -> list[dict[str, Any]]:
        return await self._r(rec.activity_since, account_id, seq, limit)


class SQLiteTxn(WriteTxn):
    def __init__(self, store: SQLiteStore, account_id: str) -> None:
        self._store = store
        self.account_id = account_id
        self._depth = 0

    async def _w(self, fn: Callable[..., T], *args: Any) -> T:
        return await self._store._w(fn, *args)

    @asynccontextmanager
    async def savepoint(self) -> AsyncIterator[None]:
        self._depth += 1
        name = f"sp{self._depth}"
        self._store._pending.append(f"SAVEPOINT {name}")
        try:
            yield
        except BaseException:
            # flushed with the next statement (or dropped if the whole transaction rolls back)
            self._store._pending.extend((f"ROLLBACK TO {name}", f"RELEASE {name}"))
            raise
        else:
            self._store._pending.append(f"RELEASE {name}")
        finally:
            self._depth -= 1

    async def bump_schema_version(self) -> int:
        return await self._w(ops.bump_counter, "schema_version", self.account_id)

    async def schema_version(self) -> int:
        return await self._w(ops.schema_version, self.account_id)

    async def insert_user(self, user: UserRow, created_at: str) -> None:
        await self._w(ops.insert_user, user, created_at)

    async def insert_role(self, role: Role, created_at: str) -> None:
        await self._w(ops.insert_role, self.account_id, role, created_at)

    async def get_role(self, slug: str) -> Role | None:
        return await self._w(ops.get_role, self.account_id, slug)

    async def insert_api_key(self, key: ApiKeyRow, prefix: str, created_at: str) -> None:
        await self._w(ops.insert_api_key, key, prefix, created_at)

    async def revoke_api_key(self, key_id: str, revoked_at: str) -> bool:
        return await self._w(ops.revoke_api_key, self.account_id, key_id, revoked_at)

    async def delete_user(self, user_id: str, deleted_at: str) -> bool:
        return await self._w(ops.delete_user, self.account_id, user_id, deleted_at)

    async def insert_module(self, module: ModuleDef) -> None:
        await self._w(ops.insert_module, module)

    async def upsert_fields(self, fields: Sequence[FieldDef]) -> None:
        await self._w(ops.upsert_fields, self.account_id, fields)

    async def delete_fields(self, module_id: str, field_ids: Sequence[str]) -> None:
        await self._w(ops.delete_in, "fields", self.account_id, module_id, field_ids)

    async def upsert_views(self, views: Sequence[ViewDef]) -> None:
        await self._w(ops.upsert_views, self.account_id, views)

    async def delete_views(self, module_id: str, view_ids: Sequence[str]) -> None:
        await self._w(ops.delete_in, "views", self.account_id, module_id, view_ids)

    async def upsert_references(self, refs: Sequence[ReferenceDef]) -> None:
        await self._w(ops.upsert_references, self.account_id, refs)

    async def delete_references(self, module_id: str, ref_ids: Sequence[str]) -> None:
        await self._w(ops.delete_in, "module_references", self.account_id, module_id, ref_ids)

    async def module_schemas(self) -> dict[str, ModuleSchema]:
        _, schemas = await self._w(ops.load_schemas, self.account_id)
        return schemas

    async def insert_label(
        self, label_id: str, name: str, color: str | None, created_at: str
    ) -> None:
        await self._w(ops.insert_label, self.account_id, label_id, name, color, created_at)

    async def insert_type(
        self, type_id: str, name: str, color: str | None, module_id: str | None, created_at: str
    ) -> None:
        await self._w(ops.insert_type, self.account_id, type_id, name, color, module_id, created_at)

    async def append_activity(self, entry: Mapping[str, Any]) -> int:
        return await self._w(ops.append_activity, self.account_id, entry)

    async def insert_record(self, row: RecordRow) -> None:
        await self._w(rec.insert_record, row)

    async def update_record(self, row: RecordRow) -> None:
        await self._w(rec.update_record, row)

    async def get_records(
        self, ids: Collection[str], module_id: str | None = None
    ) -> list[RecordRow]:
        return await self._w(rec.get_records, self.account_id, list(ids), module_id)

    async def soft_delete(
        self, module_id: str, ids: Sequence[str], at: str, by: str | None
    ) -> list[str]:
        return await self._w(rec.soft_delete, self.account_id, module_id, ids, at, by)

    async def set_links(self, source_id: str, field_slug: str, targets: Sequence[str]) -> None:
        await self._w(rec.set_links, self.account_id, source_id, field_slug, targets)

    async def linked_targets(self, source_id: str, field_slug: str) -> list[str]:
        return await self._w(rec.linked_targets, self.account_id, source_id, field_slug)

    async def linking_sources(self, target_ids: Collection[str]) -> list[tuple[str, str]]:
        return await self._w(rec.linking_sources, self.account_id, list(target_ids))

    async def take_autonumber(self, field_id: str, sequence: str | None) -> int:
        return await self._w(rec.take_autonumber, self.account_id, field_id, sequence)

    async def existing_ids(self, table: str, ids: Collection[str]) -> set[str]:
        return await self._w(rec.existing_ids, table, self.account_id, list(ids))

    async def record_modules(self, ids: Collection[str]) -> dict[str, tuple[str, str]]:
        return await self._w(rec.record_modules, self.account_id, list(ids))

    async def records_lacking_field(
        self, module_id: str, field_slug: str | None
    ) -> list[RecordRow]:
        return await self._w(rec.records_lacking_field, self.account_id, module_id, field_slug)

    async def remove_field_values(self, module_id: str, field_slug: str) -> int:
        return await self._w(rec.remove_field_values, self.account_id, module_id, field_slug)

    async def put_object(self, row: ObjectRow) -> None:
        await self._w(obj.put_object, row)

    async def get_object(self, kind: str, object_id: str) -> ObjectRow | None:
        return await self._w(obj.get_object, self.account_id, kind, object_id)

    async def transition_object(
        self, kind: str, object_id: str, expected: str, status: str, at: str
    ) -> bool:
        return await self._w(obj.transition, self.account_id, kind, object_id, expected, status, at)
