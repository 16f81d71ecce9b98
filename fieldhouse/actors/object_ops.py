"""Workspace objects through the workspace actor: typed objects (approvals, runs, webhooks,
deliveries, reminders) written whole, created, updated or upserted, with their activity.

The agents' own messages (``agents/writes.py``) write their objects with :func:`write_object`;
the webhook dispatcher and the scheduler send :class:`ApplyObjects`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from fieldhouse.actors.context import WriteContext
from fieldhouse.actors.messages import Message
from fieldhouse.model.activity import ActivityKind
from fieldhouse.model.agents import StoredObject
from fieldhouse.model.errors import Conflict, NotFound
from fieldhouse.storage.objects import ObjectRow


@dataclass(frozen=True)
class ObjectWrite:
    """One workspace object to write.

    ``create`` inserts a new object (409 if the id is taken); ``update`` merges ``data`` into an
    existing object whose status is one of ``expect`` (409 otherwise: someone got there first);
    ``upsert`` replaces or inserts.
    """

    kind: str
    object_id: str
    data: Mapping[str, Any]
    status: str
    mode: Literal["create", "update", "upsert"] = "create"
    expect: tuple[str, ...] = ()
    due_at: str | None = None
    #: the activity entry written with it (None: none)
    activity: ActivityKind | None = None
    activity_data: Mapping[str, Any] | None = None
    module_id: str | None = None
    record_id: str | None = None

    @classmethod
    def of(
        cls,
        obj: StoredObject,
        mode: Literal["create", "update", "upsert"] = "create",
        expect: tuple[str, ...] = (),
        **options: Any,
    ) -> ObjectWrite:
        """The write of a typed object, whole: its data, status and due time as they are (an
        update clears a due time the object no longer has). The one place a typed object
        becomes a row; ``options`` are the activity and its record."""
        due = obj.due_at if obj.due_at is not None or mode != "update" else ""
        return cls(obj.kind, obj.object_id, obj.data(), obj.status, mode, expect, due, **options)


@dataclass(frozen=True)
class ApplyObjects(Message[list[ObjectRow]]):
    """Write objects in one transaction, each with its activity entry (if any)."""

    writes: tuple[ObjectWrite, ...]

    async def apply(self, ctx: WriteContext) -> list[ObjectRow]:
        return [await write_object(ctx, w, self.by.user_id) for w in self.writes]


async def write_object(ctx: WriteContext, w: ObjectWrite, user_id: str | None) -> ObjectRow:
    """Write one object as ``w`` says (its activity entry in ``user_id``'s name)."""
    old = await ctx.txn.get_object(w.kind, w.object_id)
    if w.mode == "create" and old is not None:
        raise Conflict(f"A {w.kind.replace('_', ' ')} {w.object_id!r} already exists")
    if w.mode == "update":
        if old is None:
            raise NotFound(f"No {w.kind.replace('_', ' ')} {w.object_id!r}")
        if old.status not in w.expect:
            raise Conflict(
                f"The {w.kind.replace('_', ' ')} {w.object_id!r} is {old.status}, "
                f"not {' or '.join(w.expect)}"
            )
    merged = {**old.data, **w.data} if (old is not None and w.mode == "update") else dict(w.data)
    row = ObjectRow(
        account_id=ctx.account_id,
        kind=w.kind,
        object_id=w.object_id,
        data=merged,
        status=w.status,
        due_at=w.due_at if w.due_at is not None else (old.due_at if old else None),
        created_at=old.created_at if old is not None else ctx.now,
        updated_at=ctx.now,
    )
    await ctx.txn.put_object(row)
    if w.activity is not None:
        await ctx.activity(
            w.activity,
            user_id=user_id,
            module_id=w.module_id,
            record_id=w.record_id,
            data={"kind": w.kind, "objectId": w.object_id, **(w.activity_data or {})},
        )
    return row
