"""Workspace objects on both backends: put, get, list, status transitions, due lists."""

from __future__ import annotations

from fieldhouse.runtime import Runtime
from fieldhouse.storage.objects import ObjectRow
from tests.conftest import Workspace


def _row(ws: Workspace, kind: str, oid: str, status: str, due: str | None = None) -> ObjectRow:
    at = f"2026-01-01T00:00:0{oid[-1]}.000000Z"
    return ObjectRow(ws.account_id, kind, oid, {"n": oid}, status, due, at, at)


async def test_objects_round_trip(runtime: Runtime, ws: Workspace, other_ws: Workspace) -> None:
    store = runtime.store
    async with store.write(ws.account_id) as txn:
        await txn.put_object(_row(ws, "approval", "a1", "pending"))
        await txn.put_object(_row(ws, "approval", "a2", "pending"))
        await txn.put_object(_row(ws, "reminder", "r1", "scheduled", "2026-01-01T09:00:00Z"))
        got = await txn.get_object("approval", "a1")
        assert got is not None and got.data == {"n": "a1"}
    async with store.write(ws.account_id) as txn:
        assert await txn.transition_object("approval", "a1", "pending", "approved", "t")
        # a second decision finds the object no longer pending
        assert not await txn.transition_object("approval", "a1", "pending", "rejected", "t")
    listed = await store.list_objects(ws.account_id, "approval")
    assert [o.object_id for o in listed] == ["a2", "a1"]
    pending = await store.list_objects(ws.account_id, "approval", status="pending")
    assert [o.object_id for o in pending] == ["a2"]
    assert await store.get_object(other_ws.account_id, "approval", "a1") is None
    assert await store.list_objects(other_ws.account_id, "approval") == []
    due = await store.due_objects("reminder", "scheduled", "2026-01-01T10:00:00Z")
    assert [o.object_id for o in due] == ["r1"]
    assert await store.due_objects("reminder", "scheduled", "2026-01-01T08:00:00Z") == []


async def test_failed_transaction_leaves_no_object(runtime: Runtime, ws: Workspace) -> None:
    class Boom(Exception):
        pass

    try:
        async with runtime.store.write(ws.account_id) as txn:
            await txn.put_object(_row(ws, "email", "e1", "draft"))
            raise Boom
    except Boom:
        pass
    assert await runtime.store.get_object(ws.account_id, "email", "e1") is None


async def test_objects_of_kind_walks_every_workspace_in_pages(
    runtime: Runtime, ws: Workspace, other_ws: Workspace
) -> None:
    store = runtime.store
    for w in (ws, other_ws):
        async with store.write(w.account_id) as txn:
            for oid in ("h1", "h2", "h3"):
                await txn.put_object(_row(w, "webhook", oid, "active"))
            await txn.put_object(_row(w, "webhook", "h4", "deleted"))
            await txn.put_object(_row(w, "agent", "g1", "active"))
    expected = sorted((w.account_id, oid) for w in (ws, other_ws) for oid in ("h1", "h2", "h3"))
    seen: list[tuple[str, str]] = []
    after = ("", "")
    while page := await store.objects_of_kind("webhook", "active", after=after, limit=2):
        seen += [(o.account_id, o.object_id) for o in page]
        after = seen[-1]
    assert seen == expected  # every active hook once, in order, none of another kind or status
