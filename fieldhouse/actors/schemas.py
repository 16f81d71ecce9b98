"""Immutable per-workspace schema snapshots that readers take without locks."""

from __future__ import annotations

from dataclasses import dataclass

from pyrsistent import PMap, pmap

from fieldhouse.model.schema import ModuleSchema
from fieldhouse.storage.store import Store


@dataclass(frozen=True)
class WorkspaceSchemas:
    version: int
    modules: PMap[str, ModuleSchema]

    def get(self, slug: str) -> ModuleSchema | None:
        return self.modules.get(slug)

    def by_id(self, module_id: str) -> ModuleSchema | None:
        for schema in self.modules.values():
            if schema.module.module_id == module_id:
                return schema
        return None


class SchemaRegistry:
    """Caches each workspace's snapshot; a newer schema version replaces it."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._cache: dict[str, WorkspaceSchemas] = {}

    async def get(self, account_id: str, at_least: int | None = None) -> WorkspaceSchemas:
        snap = self._cache.get(account_id)
        if snap is not None and (at_least is None or snap.version >= at_least):
            return snap
        version, schemas = await self._store.load_schemas(account_id)
        fresh = WorkspaceSchemas(version, pmap(schemas))
        current = self._cache.get(account_id)
        if current is None or current.version <= version:
            self._cache[account_id] = fresh
        return fresh

    def publish(self, account_id: str, version: int, schemas: dict[str, ModuleSchema]) -> None:
        current = self._cache.get(account_id)
        if current is None or current.version <= version:
            self._cache[account_id] = WorkspaceSchemas(version, pmap(schemas))

    def forget(self, account_id: str) -> None:
        self._cache.pop(account_id, None)
