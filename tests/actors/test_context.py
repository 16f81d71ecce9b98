"""What a message handler gets: activity entries numbered in the write transaction, and a
schema edit that is counted and read back, over a real store on both backends."""

from __future__ import annotations

from dataclasses import replace

from fieldhouse.actors.context import Event, WriteContext
from fieldhouse.model.activity import ActivityKind
from fieldhouse.model.schema import FieldDef
from fieldhouse.runtime import Runtime
from tests.conftest import Workspace

#: an activity kind these tests write themselves (no setup writes it)
PROBE = ActivityKind.REMINDER_FIRED


async def last_seq(runtime: Runtime, ws: Workspace) -> int:
    (newest,) = await runtime.store.list_activity(
        ws.account_id, module_ids=None, record_id=None, types=(), limit=1
    )
    return int(newest["seq"])


async def test_activity_takes_the_next_numbers_and_announces_them_in_order(
    runtime: Runtime, ws: Workspace
) -> None:
    before = await last_seq(runtime, ws)
    async with runtime.store.write(ws.account_id) as txn:
        ctx = WriteContext(txn, ws.account_id, {})
        first = await ctx.activity(PROBE, user_id=ws.owner_id, data={"n": 1})
        second = await ctx.activity(
            PROBE, user_id=None, module_id="m-1", record_id="r-1", data={"n": 2}
        )
    assert (first, second) == (before + 1, before + 2)
    assert ctx.events == [
        Event(ws.account_id, PROBE, before + 1),
        Event(ws.account_id, PROBE, before + 2, "r-1", "m-1"),
    ]
    stored = await runtime.store.list_activity(
        ws.account_id, module_ids=None, record_id=None, types=(PROBE,), limit=10, after_seq=before
    )
    assert [(e["seq"], e["userId"], e["moduleId"], e["recordId"], e["data"]) for e in stored] == [
        (before + 1, ws.owner_id, None, None, {"n": 1}),
        (before + 2, None, "m-1", "r-1", {"n": 2}),
    ]
    # every entry of one context carries the context's one timestamp
    assert {e["createdDateTime"] for e in stored} == {ctx.now}


async def test_a_schema_edit_is_counted_and_read_back_in_the_transaction(
    runtime: Runtime, ws: Workspace
) -> None:
    version, schemas = await runtime.store.load_schemas(ws.account_id)
    deals = schemas["deals"]
    async with runtime.store.write(ws.account_id) as txn:
        ctx = WriteContext(txn, ws.account_id, schemas)
        assert not ctx.schema_changed
        extra = FieldDef("f-extra", deals.module.module_id, "Extra", "extra", "Extra", "text", {})
        await txn.upsert_fields([extra])
        await ctx.schema_edited()
        assert ctx.schema_changed
        # the handler sees its own edit at once, before the commit
        assert ctx.schemas["deals"].field("extra") is not None
    new_version, stored = await runtime.store.load_schemas(ws.account_id)
    assert new_version == version + 1
    stored_extra = stored["deals"].field("extra")
    assert stored_extra is not None
    assert replace(stored_extra, created_at="", updated_at="") == replace(
        extra, created_at="", updated_at=""
    )
