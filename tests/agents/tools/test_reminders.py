"""The reminder tools: create one, list them."""

from __future__ import annotations

from fieldhouse.runtime import Runtime
from tests.agents.toolkit import activity_types, call, context, objects
from tests.agents.tools.support import ok
from tests.conftest import Workspace, add_user

DUE = "2100-01-01T10:00:00Z"


async def test_reminders_create_and_list(runtime: Runtime, ws: Workspace) -> None:
    ctx = await context(runtime, ws)
    await ok(ctx, "reminders.create", text="Call Ada", dueAt="2100-01-01T10:00:00+01:00")
    (row,) = await objects(runtime, ws, "reminder")
    assert row.status == "scheduled" and row.due_at == "2100-01-01T09:00:00.000000Z"
    listed = await ok(ctx, "reminders.list", status="scheduled")
    assert [r["text"] for r in listed["reminders"]] == ["Call Ada"]  # type: ignore[attr-defined]
    bad = await call(ctx, "reminders.create", text="x", dueAt="next tuesday")
    assert bad.status == "error" and "dueAt" in bad.summary
    assert "reminder_created" in await activity_types(runtime, ws)


async def test_a_reminder_is_about_a_record_of_its_workspace_only(
    runtime: Runtime, ws: Workspace, other_ws: Workspace
) -> None:
    """Issue 32 item 5: another workspace's record id (or a made-up one) is refused as not
    found, and nothing is stored; a record of the workspace is accepted."""
    theirs = await ok(
        await context(runtime, other_ws), "records.create", module="contacts",
        displayName="Eve", fields={"first-name": "Eve"},
    )  # fmt: skip
    ctx = await context(runtime, ws)
    for record_id in (theirs["record"]["recordId"], "00000000-0000-4000-8000-000000000000", "x"):  # type: ignore[index]
        refused = await call(ctx, "reminders.create", text="Call", dueAt=DUE, recordId=record_id)
        assert refused.status == "error" and "not found" in refused.summary, refused.summary
    assert await objects(runtime, ws, "reminder") == []
    ours = await ok(
        ctx, "records.create", module="contacts", displayName="Ada", fields={"first-name": "Ada"}
    )
    record_id = ours["record"]["recordId"]  # type: ignore[index]
    await ok(ctx, "reminders.create", text="Call Ada", dueAt=DUE, recordId=record_id)
    (row,) = await objects(runtime, ws, "reminder")
    assert row.data["recordId"] == record_id


async def test_each_user_lists_only_their_own_reminders(runtime: Runtime, ws: Workspace) -> None:
    """Issue 32 item 5: reminders were listed across users."""
    member = await add_user(runtime, ws, "member")
    mine, theirs = await context(runtime, ws), await context(runtime, member)
    await ok(mine, "reminders.create", text="Owner's", dueAt=DUE)
    await ok(theirs, "reminders.create", text="Member's", dueAt=DUE)
    for ctx, text in ((mine, "Owner's"), (theirs, "Member's")):
        listed = await ok(ctx, "reminders.list")
        assert [r["text"] for r in listed["reminders"]] == [text]  # type: ignore[attr-defined]
