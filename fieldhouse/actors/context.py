"""What a message handler gets: the transaction and the workspace's current schema."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from fieldhouse.model.activity import ActivityEntry, ActivityKind
from fieldhouse.model.clock import new_id, now_iso
from fieldhouse.model.principal import Principal
from fieldhouse.model.schema import ModuleSchema
from fieldhouse.storage.base import UserRow
from fieldhouse.storage.write_txn import WriteTxn

#: Looks a user of the workspace up by id (outside the write transaction: users are not
#: written by record messages).
FindUser = Callable[[str], Awaitable[UserRow | None]]
#: What a principal may do now (``actors/rights.py``): None once their key is revoked or their
#: user deleted
RightsNow = Callable[[Principal], Awaitable[Principal | None]]


@dataclass(frozen=True)
class Event:
    """Published after commit: what changed, in which order."""

    account_id: str
    kind: ActivityKind
    seq: int | None
    record_id: str | None = None
    module_id: str | None = None


@dataclass
class WriteContext:
    txn: WriteTxn
    account_id: str
    schemas: dict[str, ModuleSchema]
    now: str = field(default_factory=now_iso)
    events: list[Event] = field(default_factory=list)
    schema_changed: bool = False
    #: a key or user lost its access: every process's credential cache must forget it
    access_changed: bool = False
    find_user: FindUser | None = None
    #: reads what a message's principal may do at the write (None: the rights it carries)
    rights: RightsNow | None = None

    def __post_init__(self) -> None:
        # the transaction indexes each record it writes by its module's schema
        self.txn.schema_of = self.schema_by_id

    def schema_by_id(self, module_id: str) -> ModuleSchema | None:
        for schema in self.schemas.values():
            if schema.module.module_id == module_id:
                return schema
        return None

    async def activity(
        self,
        kind: ActivityKind,
        *,
        user_id: str | None,
        module_id: str | None = None,
        record_id: str | None = None,
        data: Mapping[str, Any] | None = None,
    ) -> int:
        """Append an activity entry with the workspace's next sequence number."""
        entry = ActivityEntry(
            new_id(), kind, user_id, self.now, module_id, record_id, dict(data or {})
        )
        seq = await self.txn.append_activity(entry.to_json())
        self.events.append(Event(self.account_id, kind, seq, record_id, module_id))
        return seq

    async def schema_edited(self) -> None:
        await self.txn.bump_schema_version()
        self.schema_changed = True
        self.schemas = await self.txn.module_schemas()
