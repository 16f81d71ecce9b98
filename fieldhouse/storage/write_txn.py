"""A workspace's write transaction: what the workspace actor writes, over the write-behind of
:class:`~fieldhouse.storage.writebehind.WriteBehind`.

Opened with :meth:`fieldhouse.storage.Store.write`; everything written in one is committed
together or not at all.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence

from fieldhouse.model.principal import Role
from fieldhouse.model.records import RecordRow
from fieldhouse.model.schema import FieldDef, ModuleDef, ModuleSchema, ReferenceDef, ViewDef
from fieldhouse.model.search_doc import record_doc
from fieldhouse.storage import accounts, records, schemas
from fieldhouse.storage import objects as obj
from fieldhouse.storage.base import ApiKeyRow, Driver, Txn, UserRow
from fieldhouse.storage.objects import ObjectRow
from fieldhouse.storage.writebehind import WriteBehind


class WriteTxn(WriteBehind):
    """One write transaction of one workspace. Only the workspace actor holds one.

    Writes whose result the caller does not need are queued (see
    :mod:`~fieldhouse.storage.writebehind`) and run with the next statement that answers
    something, a strict savepoint's release, or the commit; the activity sequence and the
    auto-number counters are advanced in memory and written back with each flush.
    """

    def __init__(
        self, txn: Txn, driver: Driver, account_id: str, vector_model: str | None = None
    ) -> None:
        super().__init__(txn, driver.dialect, account_id, vector_model)
        #: records inserted here, and (record, field) pairs whose links were written here
        self._inserted: set[str] = set()
        self._linked: set[tuple[str, str]] = set()
        #: set by the workspace actor: a module's schema by id, to read a record's words
        self.schema_of: Callable[[str], ModuleSchema | None] | None = None
        #: label id -> name, read once a transaction when a record with labels is indexed
        self._label_names: dict[str, str] | None = None

    # --- schema, users, roles, keys ---

    async def bump_schema_version(self) -> int:
        return await self._run(accounts.bump_counter(self.account_id, "schema_version"))

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

    # --- records ---

    async def insert_record(self, row: RecordRow) -> None:
        self._inserted.add(row.record_id)
        self._unindexed.add(row.record_id)
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
