"""The Store interface, shared by the SQLite and PostgreSQL backends.

Reads take the account id explicitly, so no query can cross workspaces. Writes happen only in a
:class:`WriteTxn`, opened by the workspace actor with :meth:`Store.write`; everything written in
one is committed together or not at all.
"""

from __future__ import annotations

import abc
from collections.abc import Collection, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any

from fieldhouse.model.principal import Role
from fieldhouse.model.records import RecordRow
from fieldhouse.model.schema import FieldDef, ModuleDef, ModuleSchema, ReferenceDef, ViewDef
from fieldhouse.storage.objects import ObjectRow
from fieldhouse.storage.sqldialect import Dialect


class StorageError(Exception):
    """A condition the storage layer names for its callers."""


class ConflictError(StorageError):
    """A uniqueness rule was broken (duplicate slug, e-mail, ...)."""


@dataclass(frozen=True)
class AccountRow:
    account_id: str
    name: str
    slug: str
    schema_version: int
    created_at: str


@dataclass(frozen=True)
class UserRow:
    user_id: str
    account_id: str
    email: str
    display_name: str
    role_slug: str
    deleted: bool


@dataclass(frozen=True)
class ApiKeyRow:
    """An API key as stored: only the hash of the secret is ever kept."""

    key_id: str
    account_id: str
    user_id: str
    name: str | None
    key_hash: str
    scopes: tuple[str, ...] | None
    revoked: bool


@dataclass(frozen=True)
class KeyLookup:
    """Everything authentication needs, read in one query."""

    key: ApiKeyRow
    user: UserRow
    schema_version: int


class WriteTxn(abc.ABC):
    """One write transaction of one workspace. Only the workspace actor holds one."""

    account_id: str

    @abc.abstractmethod
    def savepoint(self) -> AbstractAsyncContextManager[None]:
        """Nested scope: an exception inside rolls back only what the scope wrote."""

    @abc.abstractmethod
    async def bump_schema_version(self) -> int: ...

    @abc.abstractmethod
    async def schema_version(self) -> int: ...

    @abc.abstractmethod
    async def insert_user(self, user: UserRow, created_at: str) -> None: ...

    @abc.abstractmethod
    async def insert_role(self, role: Role, created_at: str) -> None: ...

    @abc.abstractmethod
    async def get_role(self, slug: str) -> Role | None: ...

    @abc.abstractmethod
    async def insert_api_key(self, key: ApiKeyRow, prefix: str, created_at: str) -> None: ...

    @abc.abstractmethod
    async def revoke_api_key(self, key_id: str, revoked_at: str) -> bool: ...

    @abc.abstractmethod
    async def delete_user(self, user_id: str, deleted_at: str) -> bool:
        """Soft-delete a live user (their keys and session tokens stop working)."""

    @abc.abstractmethod
    async def insert_module(self, module: ModuleDef) -> None: ...

    @abc.abstractmethod
    async def upsert_fields(self, fields: Sequence[FieldDef]) -> None: ...

    @abc.abstractmethod
    async def delete_fields(self, module_id: str, field_ids: Sequence[str]) -> None: ...

    @abc.abstractmethod
    async def upsert_views(self, views: Sequence[ViewDef]) -> None: ...

    @abc.abstractmethod
    async def delete_views(self, module_id: str, view_ids: Sequence[str]) -> None: ...

    @abc.abstractmethod
    async def upsert_references(self, refs: Sequence[ReferenceDef]) -> None: ...

    @abc.abstractmethod
    async def delete_references(self, module_id: str, ref_ids: Sequence[str]) -> None: ...

    @abc.abstractmethod
    async def module_schemas(self) -> dict[str, ModuleSchema]:
        """The workspace's module schemas as this transaction sees them, keyed by slug."""

    @abc.abstractmethod
    async def insert_label(
        self, label_id: str, name: str, color: str | None, created_at: str
    ) -> None: ...

    @abc.abstractmethod
    async def insert_type(
        self, type_id: str, name: str, color: str | None, module_id: str | None, created_at: str
    ) -> None: ...

    # --- records ---

    @abc.abstractmethod
    async def insert_record(self, row: RecordRow) -> None: ...

    @abc.abstractmethod
    async def update_record(self, row: RecordRow) -> None: ...

    @abc.abstractmethod
    async def get_records(
        self, ids: Collection[str], module_id: str | None = None
    ) -> list[RecordRow]:
        """Live records among ids (missing and deleted ones are simply absent)."""

    @abc.abstractmethod
    async def soft_delete(
        self, module_id: str, ids: Sequence[str], at: str, by: str | None
    ) -> list[str]:
        """Mark live records deleted; return the ids that were live."""

    @abc.abstractmethod
    async def set_links(self, source_id: str, field_slug: str, targets: Sequence[str]) -> None: ...

    @abc.abstractmethod
    async def linked_targets(self, source_id: str, field_slug: str) -> list[str]: ...

    @abc.abstractmethod
    async def linking_sources(self, target_ids: Collection[str]) -> list[tuple[str, str]]: ...

    @abc.abstractmethod
    async def take_autonumber(self, field_id: str, sequence: str | None) -> int: ...

    @abc.abstractmethod
    async def existing_ids(self, table: str, ids: Collection[str]) -> set[str]:
        """Which of ids exist in labels, types or (live) users of this workspace."""

    @abc.abstractmethod
    async def record_modules(self, ids: Collection[str]) -> dict[str, tuple[str, str]]:
        """record id -> (module slug, display name) for live records among ids."""

    @abc.abstractmethod
    async def append_activity(self, entry: Mapping[str, Any]) -> int:
        """Take the workspace's next activity sequence number and store the entry under it
        (``entry`` has every key but ``seq``); return the number."""

    # --- template maintenance (field definitions and their stored values) ---

    @abc.abstractmethod
    async def records_lacking_field(
        self, module_id: str, field_slug: str | None
    ) -> list[RecordRow]:
        """Live records of a module with no value (absent or null) under field_slug (every live
        record when None), oldest first (createdDateTime, then record id)."""

    @abc.abstractmethod
    async def remove_field_values(self, module_id: str, field_slug: str) -> int:
        """Drop field_slug from the fields of the module's live records and forget the record
        links stored under it; return how many records held a value."""

    # --- workspace objects (see storage/objects.py) ---

    @abc.abstractmethod
    async def put_object(self, row: ObjectRow) -> None:
        """Insert or replace one object of this workspace."""

    @abc.abstractmethod
    async def get_object(self, kind: str, object_id: str) -> ObjectRow | None: ...

    @abc.abstractmethod
    async def transition_object(
        self, kind: str, object_id: str, expected: str, status: str, at: str
    ) -> bool:
        """Move an object from status ``expected`` to ``status``; False if it was not there."""


class Store(abc.ABC):
    """A Fieldhouse database. Open with :func:`fieldhouse.storage.open_database`."""

    #: several server processes may share this store; rate limits are then counted in it
    shared_between_processes: bool = False

    async def hit_rate_limit(self, bucket: str, window_start: int) -> int:
        """Count one request in a bucket's rate-limit window and return the window's count.

        Only stores shared between processes implement it; the others count in memory.
        """
        raise NotImplementedError(f"{type(self).__name__} counts rate limits in memory")

    @abc.abstractmethod
    def write(self, account_id: str) -> AbstractAsyncContextManager[WriteTxn]:
        """A write transaction of one workspace, committed when the block exits cleanly."""

    @abc.abstractmethod
    async def create_account(self, account_id: str, name: str, slug: str, at: str) -> None: ...

    @abc.abstractmethod
    async def get_account(self, account_id: str) -> AccountRow | None: ...

    @abc.abstractmethod
    async def list_accounts(self) -> list[AccountRow]: ...

    @abc.abstractmethod
    async def get_meta(self, key: str) -> str | None: ...

    @abc.abstractmethod
    async def set_meta_if_absent(self, key: str, value: str) -> str:
        """Store value under key unless one is there; return the value that is stored."""

    @abc.abstractmethod
    async def delete_meta(self, key: str) -> None:
        """Remove key and its value (overwritten on disk where the backend can)."""

    @abc.abstractmethod
    async def lookup_key(self, key_hash: str) -> KeyLookup | None: ...

    @abc.abstractmethod
    async def find_key(self, key_id: str) -> ApiKeyRow | None: ...

    @abc.abstractmethod
    async def get_user(self, account_id: str, user_id: str) -> UserRow | None: ...

    @abc.abstractmethod
    async def owner_user_id(self, account_id: str) -> str | None:
        """The workspace's first owner."""

    @abc.abstractmethod
    async def schema_version(self, account_id: str) -> int: ...

    @abc.abstractmethod
    async def get_role(self, account_id: str, slug: str) -> Role | None: ...

    @abc.abstractmethod
    async def load_schemas(self, account_id: str) -> tuple[int, dict[str, ModuleSchema]]:
        """The schema version and every module schema of a workspace, read consistently."""

    @abc.abstractmethod
    async def list_labels(self, account_id: str) -> list[dict[str, Any]]: ...

    @abc.abstractmethod
    async def list_types(self, account_id: str) -> list[dict[str, Any]]: ...

    @abc.abstractmethod
    async def get_record(self, account_id: str, module_id: str, record_id: str) -> RecordRow | None:
        """A live record of a module, or None."""

    @abc.abstractmethod
    async def list_records(
        self, where: str, params: Sequence[Any], order_by: str, limit: int, offset: int
    ) -> tuple[list[RecordRow], int]:
        """A page of records for a compiled list query (it scopes the account) and the total."""

    @abc.abstractmethod
    async def linked_targets(
        self, account_id: str, source_id: str, field_slug: str
    ) -> list[str]: ...

    @abc.abstractmethod
    async def picker(
        self, account_id: str, module_id: str, search: str | None, limit: int
    ) -> list[RecordRow]: ...

    @abc.abstractmethod
    async def list_activity(
        self,
        account_id: str,
        *,
        module_ids: Collection[str] | None,
        record_id: str | None,
        types: Collection[str],
        limit: int,
    ) -> list[dict[str, Any]]: ...

    async def ensure_indexes(self, expressions: Sequence[str]) -> None:
        """Make expression indexes for list-query expressions that run slowly (optional)."""
        return None

    @property
    @abc.abstractmethod
    def dialect(self) -> Dialect:
        """The SQL dialect list queries compile to."""

    @abc.abstractmethod
    async def aclose(self) -> None: ...

    # --- workspace objects (see storage/objects.py) ---

    @abc.abstractmethod
    async def get_object(self, account_id: str, kind: str, object_id: str) -> ObjectRow | None: ...

    @abc.abstractmethod
    async def list_objects(
        self, account_id: str, kind: str, *, status: str | None = None, limit: int = 100
    ) -> list[ObjectRow]:
        """Newest first."""

    @abc.abstractmethod
    async def due_objects(
        self, kind: str, status: str, before: str, limit: int = 100
    ) -> list[ObjectRow]:
        """Objects of every workspace whose due_at has come, oldest first (for schedulers)."""

    @abc.abstractmethod
    async def activity_since(self, account_id: str, seq: int, limit: int) -> list[dict[str, Any]]:
        """Activity entries of a workspace with a sequence number above ``seq``, oldest first
        (at most ``limit``): how a process learns of writes made through another one."""
