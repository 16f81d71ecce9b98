"""The PostgreSQL store: asyncpg, driven from trio through trio-asyncio.

Every asyncpg object lives inside the trio-asyncio loop that :func:`open_database` opens
around the store; each call crosses with ``aio_as_trio``, so a trio cancellation cancels the
asyncio task and asyncpg cancels the query on the server. One call runs one whole operation
(several statements when it needs them) on one pooled connection.

Ordering across processes: :meth:`PostgresStore.write` takes the workspace's transaction-level
advisory lock before anything else, so the write transactions of one workspace run one after
another whichever process runs them; its counters (activity sequence, schema version,
auto-number ``nextValue``) are rows updated inside those transactions.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Collection, Mapping, Sequence
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

import asyncpg
import trio
import trio_asyncio

from fieldhouse.model.principal import Role
from fieldhouse.model.records import RecordRow
from fieldhouse.model.schema import FieldDef, ModuleDef, ModuleSchema, ReferenceDef, ViewDef
from fieldhouse.storage import postgres_objects as pobj
from fieldhouse.storage import postgres_ops as ops
from fieldhouse.storage import postgres_records as rec
from fieldhouse.storage.base import (
    AccountRow,
    ApiKeyRow,
    ConflictError,
    KeyLookup,
    StorageError,
    Store,
    UserRow,
    WriteTxn,
)
from fieldhouse.storage.objects import ObjectRow
from fieldhouse.storage.postgres_ops import Conn
from fieldhouse.storage.postgres_schema import migrate
from fieldhouse.storage.sqldialect import POSTGRES, Dialect

log = logging.getLogger("fieldhouse.storage")

T = TypeVar("T")
P = ParamSpec("P")
if TYPE_CHECKING:
    Pool = asyncpg.Pool[asyncpg.Record]
else:
    Pool = asyncpg.Pool


class LoopNotOpen(StorageError):
    """A PostgreSQL store was opened outside a trio-asyncio loop."""


async def aio(fn: Callable[P, Awaitable[T]], *args: P.args, **kwargs: P.kwargs) -> T:
    """Await an asyncio coroutine function from trio; driver errors become named ones."""
    try:
        result: T = await trio_asyncio.aio_as_trio(fn)(*args, **kwargs)
    except asyncpg.IntegrityConstraintViolationError as exc:
        raise ConflictError(str(exc)) from exc
    return result


async def _on_pool(pool: Pool, fn: Callable[..., Awaitable[T]], *args: Any) -> T:
    async with pool.acquire() as conn:
        return await fn(conn, *args)


async def _snapshot(pool: Pool, fn: Callable[..., Awaitable[T]], *args: Any) -> T:
    """Run fn in one read-only REPEATABLE READ transaction: all its reads see one snapshot."""
    async with pool.acquire() as conn, conn.transaction(isolation="repeatable_read", readonly=True):
        return await fn(conn, *args)


async def _begin(conn: Conn, account_id: str) -> None:
    # READ COMMITTED (the default) on purpose: each statement after the lock sees what the
    # previous lock holder committed; a REPEATABLE READ snapshot would predate the lock.
    await conn.execute("BEGIN")
    await ops.lock_workspace(conn, account_id)


async def _execute(conn: Conn, sql: str) -> None:
    await conn.execute(sql)


async def _rollback(conn: Conn) -> None:
    if not conn.is_closed() and conn.is_in_transaction():
        await conn.execute("ROLLBACK")


async def commit(conn: Conn) -> None:
    await conn.execute("COMMIT")


async def _open_pool(url: str, min_size: int, max_size: int) -> Pool:
    # List queries bind their filter values as parameters; a generic plan cannot see how
    # selective a value is and falls back to scanning, so plan each execution for its values.
    pool = await asyncpg.create_pool(
        url,
        min_size=min_size,
        max_size=max_size,
        server_settings={"plan_cache_mode": "force_custom_plan"},
    )
    async with pool.acquire() as conn:
        await migrate(conn)
    return pool


class PostgresStore(Store):
    shared_between_processes = True

    def __init__(self, pool: Pool) -> None:
        self._pool = pool
        self._rate_window = -1
        self._indexed: set[str] = set()

    @classmethod
    async def open(cls, url: str, *, min_size: int = 1, max_size: int = 10) -> PostgresStore:
        """Connect a pool and migrate; must run inside ``trio_asyncio.open_loop()``."""
        if trio_asyncio.current_loop.get() is None:
            raise LoopNotOpen(
                "PostgreSQL needs the trio-asyncio loop: open the store with "
                "fieldhouse.storage.open_database(url)"
            )
        return cls(await aio(_open_pool, url, min_size, max_size))

    async def aclose(self) -> None:
        await aio(self._pool.close)

    async def _r(self, fn: Callable[..., Awaitable[T]], *args: Any) -> T:
        return await aio(_on_pool, self._pool, fn, *args)

    @asynccontextmanager
    async def write(self, account_id: str) -> AsyncIterator[WriteTxn]:
        conn: Conn = await aio(self._pool.acquire)
        try:
            await aio(_begin, conn, account_id)
            try:
                yield PostgresTxn(conn, account_id)
                await aio(commit, conn)
            except BaseException:
                # also after a failed COMMIT: the connection must leave the transaction
                with trio.CancelScope(shield=True):
                    await self._rollback_quietly(conn)
                raise
        finally:
            with trio.CancelScope(shield=True):
                await aio(self._pool.release, conn)

    @staticmethod
    async def _rollback_quietly(conn: Conn) -> None:
        try:
            await aio(_rollback, conn)
        except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError):
            log.warning("rollback failed; the pool will replace the connection", exc_info=True)

    # --- reads and account-level writes ---

    async def create_account(self, account_id: str, name: str, slug: str, at: str) -> None:
        await self._r(ops.create_account, account_id, name, slug, at)

    async def get_account(self, account_id: str) -> AccountRow | None:
        return await self._r(ops.get_account, account_id)

    async def list_accounts(self) -> list[AccountRow]:
        return await self._r(ops.list_accounts)

    async def get_meta(self, key: str) -> str | None:
        return await self._r(ops.get_meta, key)

    async def set_meta_if_absent(self, key: str, value: str) -> str:
        return await self._r(ops.set_meta_if_absent, key, value)

    async def delete_meta(self, key: str) -> None:
        await self._r(ops.delete_meta, key)

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
        return await aio(_snapshot, self._pool, ops.load_schemas, account_id)

    async def get_record(self, account_id: str, module_id: str, record_id: str) -> RecordRow | None:
        rows = await self._r(rec.get_records, account_id, [record_id], module_id)
        return rows[0] if rows else None

    async def list_records(
        self, where: str, params: Sequence[Any], order_by: str, limit: int, offset: int
    ) -> tuple[list[RecordRow], int]:
        return await aio(
            _snapshot, self._pool, rec.list_records, where, params, order_by, limit, offset
        )

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
        return await self._r(rec.list_activity, account_id, module_ids, record_id, types, limit)

    @property
    def dialect(self) -> Dialect:
        return POSTGRES

    async def list_labels(self, account_id: str) -> list[dict[str, Any]]:
        return await self._r(ops.list_named, "labels", account_id)

    async def list_types(self, account_id: str) -> list[dict[str, Any]]:
        return await self._r(ops.list_named, "types", account_id)

    async def ensure_indexes(self, expressions: Sequence[str]) -> None:
        for expr in expressions:
            if expr not in self._indexed:
                self._indexed.add(expr)
                await self._r(rec.create_expression_index, expr)

    # --- shared rate limits ---

    async def hit_rate_limit(self, bucket: str, window_start: int) -> int:
        """Count a request in the bucket's window, in the database every process shares."""
        if window_start != self._rate_window:
            self._rate_window = window_start
            await self._r(rec.prune_rate_windows, window_start)
        return await self._r(rec.hit_rate_limit, bucket, window_start)

    # --- workspace objects ---

    async def get_object(self, account_id: str, kind: str, object_id: str) -> ObjectRow | None:
        return await self._r(pobj.get_object, account_id, kind, object_id)

    async def list_objects(
        self, account_id: str, kind: str, *, status: str | None = None, limit: int = 100
    ) -> list[ObjectRow]:
        return await self._r(pobj.list_objects, account_id, kind, status, limit)

    async def due_objects(
        self, kind: str, status: str, before: str, limit: int = 100
    ) -> list[ObjectRow]:
        return await self._r(pobj.due_objects, kind, status, before, limit)

    # --- activity for other processes ---

    async def activity_since(self, account_id: str, seq: int, limit: int) -> list[dict[str, Any]]:
        return await self._r(rec.activity_since, account_id, seq, limit)


class PostgresTxn(WriteTxn):
    def __init__(self, conn: Conn, account_id: str) -> None:
        self._conn = conn
        self.account_id = account_id
        self._depth = 0

    async def _x(self, fn: Callable[..., Awaitable[T]], *args: Any) -> T:
        return await aio(fn, self._conn, *args)

    @asynccontextmanager
    async def savepoint(self) -> AsyncIterator[None]:
        self._depth += 1
        name = f"sp{self._depth}"
        await self._x(_execute, f"SAVEPOINT {name}")
        try:
            yield
        except BaseException:
            with trio.CancelScope(shield=True):
                await self._x(_execute, f"ROLLBACK TO SAVEPOINT {name}")
                await self._x(_execute, f"RELEASE SAVEPOINT {name}")
            raise
        else:
            await self._x(_execute, f"RELEASE SAVEPOINT {name}")
        finally:
            self._depth -= 1

    async def bump_schema_version(self) -> int:
        return await self._x(ops.bump_counter, "schema_version", self.account_id)

    async def schema_version(self) -> int:
        return await self._x(ops.schema_version, self.account_id)

    async def insert_user(self, user: UserRow, created_at: str) -> None:
        await self._x(ops.insert_user, user, created_at)

    async def insert_role(self, role: Role, created_at: str) -> None:
        await self._x(ops.insert_role, self.account_id, role, created_at)

    async def get_role(self, slug: str) -> Role | None:
        return await self._x(ops.get_role, self.account_id, slug)

    async def insert_api_key(self, key: ApiKeyRow, prefix: str, created_at: str) -> None:
        await self._x(ops.insert_api_key, key, prefix, created_at)

    async def revoke_api_key(self, key_id: str, revoked_at: str) -> bool:
        return await self._x(ops.revoke_api_key, self.account_id, key_id, revoked_at)

    async def delete_user(self, user_id: str, deleted_at: str) -> bool:
        return await self._x(ops.delete_user, self.account_id, user_id, deleted_at)

    async def insert_module(self, module: ModuleDef) -> None:
        await self._x(ops.insert_module, module)

    async def upsert_fields(self, fields: Sequence[FieldDef]) -> None:
        await self._x(ops.upsert_fields, self.account_id, fields)

    async def delete_fields(self, module_id: str, field_ids: Sequence[str]) -> None:
        await self._x(ops.delete_in, "fields", self.account_id, module_id, field_ids)

    async def upsert_views(self, views: Sequence[ViewDef]) -> None:
        await self._x(ops.upsert_views, self.account_id, views)

    async def delete_views(self, module_id: str, view_ids: Sequence[str]) -> None:
        await self._x(ops.delete_in, "views", self.account_id, module_id, view_ids)

    async def upsert_references(self, refs: Sequence[ReferenceDef]) -> None:
        await self._x(ops.upsert_references, self.account_id, refs)

    async def delete_references(self, module_id: str, ref_ids: Sequence[str]) -> None:
        await self._x(ops.delete_in, "module_references", self.account_id, module_id, ref_ids)

    async def module_schemas(self) -> dict[str, ModuleSchema]:
        _, schemas = await self._x(ops.load_schemas, self.account_id)
        return schemas

    async def insert_label(
        self, label_id: str, name: str, color: str | None, created_at: str
    ) -> None:
        await self._x(ops.insert_label, self.account_id, label_id, name, color, created_at)

    async def insert_type(
        self, type_id: str, name: str, color: str | None, module_id: str | None, created_at: str
    ) -> None:
        await self._x(ops.insert_type, self.account_id, type_id, name, color, module_id, created_at)

    async def append_activity(self, entry: Mapping[str, Any]) -> int:
        return await self._x(ops.append_activity, self.account_id, entry)

    async def insert_record(self, row: RecordRow) -> None:
        await self._x(rec.insert_record, row)

    async def update_record(self, row: RecordRow) -> None:
        await self._x(rec.update_record, row)

    async def get_records(
        self, ids: Collection[str], module_id: str | None = None
    ) -> list[RecordRow]:
        return await self._x(rec.get_records, self.account_id, list(ids), module_id)

    async def soft_delete(
        self, module_id: str, ids: Sequence[str], at: str, by: str | None
    ) -> list[str]:
        return await self._x(rec.soft_delete, self.account_id, module_id, ids, at, by)

    async def set_links(self, source_id: str, field_slug: str, targets: Sequence[str]) -> None:
        await self._x(rec.set_links, self.account_id, source_id, field_slug, targets)

    async def linked_targets(self, source_id: str, field_slug: str) -> list[str]:
        return await self._x(rec.linked_targets, self.account_id, source_id, field_slug)

    async def linking_sources(self, target_ids: Collection[str]) -> list[tuple[str, str]]:
        return await self._x(rec.linking_sources, self.account_id, list(target_ids))

    async def take_autonumber(self, field_id: str, sequence: str | None) -> int:
        return await self._x(rec.take_autonumber, self.account_id, field_id, sequence)

    async def existing_ids(self, table: str, ids: Collection[str]) -> set[str]:
        return await self._x(rec.existing_ids, table, self.account_id, list(ids))

    async def record_modules(self, ids: Collection[str]) -> dict[str, tuple[str, str]]:
        return await self._x(rec.record_modules, self.account_id, list(ids))

    async def records_lacking_field(
        self, module_id: str, field_slug: str | None
    ) -> list[RecordRow]:
        return await self._x(rec.records_lacking_field, self.account_id, module_id, field_slug)

    async def remove_field_values(self, module_id: str, field_slug: str) -> int:
        return await self._x(rec.remove_field_values, self.account_id, module_id, field_slug)

    async def put_object(self, row: ObjectRow) -> None:
        await self._x(pobj.put_object, row)

    async def get_object(self, kind: str, object_id: str) -> ObjectRow | None:
        return await self._x(pobj.get_object, self.account_id, kind, object_id)

    async def transition_object(
        self, kind: str, object_id: str, expected: str, status: str, at: str
    ) -> bool:
        return await self._x(
            pobj.transition, self.account_id, kind, object_id, expected, status, at
        )
