"""Workspace objects through the workspace actor, on both backends: written by mode, and a
typed object written whole with its due time."""

from __future__ import annotations

from dataclasses import replace

import pytest

from fieldhouse.actors.object_ops import ApplyObjects, ObjectWrite
from fieldhouse.model.activity import ActivityKind
from fieldhouse.model.agents import Approval, ApprovalStatus
from fieldhouse.model.errors import Conflict, NotFound
from fieldhouse.runtime import Runtime
from tests.agents.test_writes import FUTURE, activity, approval, stored
from tests.conftest import Workspace


async def test_objects_are_created_updated_and_upserted_by_mode(
    runtime: Runtime, ws: Workspace
) -> None:
    ask = runtime.actors.ask
    draft = ObjectWrite(
        "email",
        "e1",
        {"subject": "Hi", "body": "Hello"},
        "draft",
        due_at=FUTURE,
        activity=ActivityKind.EMAIL_DRAFTED,
    )
    (created,) = await ask(ApplyObjects((draft,), by=ws.as_owner))
    with pytest.raises(Conflict, match="A email 'e1' already exists"):
        await ask(ApplyObjects((draft,), by=ws.system))
    send = ObjectWrite("email", "e1", {"body": "Hello!"}, "queued", "update", ("draft",))
    (updated,) = await ask(ApplyObjects((send,), by=ws.system))
    # an update merges into the stored data and keeps when it was made and when it is due
    assert updated.data == {"subject": "Hi", "body": "Hello!"}
    assert (updated.status, updated.due_at, updated.created_at) == (
        "queued",
        FUTURE,
        created.created_at,
    )
    with pytest.raises(Conflict, match="The email 'e1' is queued, not draft"):
        await ask(ApplyObjects((send,), by=ws.system))
    with pytest.raises(NotFound, match="No email 'e2'"):
        await ask(ApplyObjects((ObjectWrite("email", "e2", {}, "x", "update"),), by=ws.system))
    replace = ObjectWrite("email", "e1", {"subject": "New"}, "draft", "upsert")
    await ask(ApplyObjects((replace,), by=ws.system))
    row = await stored(runtime, ws, "email", "e1")
    assert (row.data, row.status) == ({"subject": "New"}, "draft")
    (entry,) = await activity(runtime, ws, "email_drafted")
    assert entry["userId"] == ws.owner_id and entry["data"] == {"kind": "email", "objectId": "e1"}


async def test_a_typed_object_is_written_whole_with_its_due_time(
    runtime: Runtime, ws: Workspace
) -> None:
    pending = approval(ApprovalStatus.PENDING)
    await runtime.actors.ask(ApplyObjects((ObjectWrite.of(pending),), by=ws.system))
    row = await stored(runtime, ws)
    assert Approval.from_row(row) == replace(pending, updated_at=row.updated_at)
    assert row.due_at == FUTURE  # a pending approval is due at its expiry
    decided = replace(pending, status=ApprovalStatus.REJECTED, reason="no")
    write = ObjectWrite.of(decided, "update", (ApprovalStatus.PENDING,))
    await runtime.actors.ask(ApplyObjects((write,), by=ws.system))
    row = await stored(runtime, ws)
    assert row.status == "rejected" and row.data["reason"] == "no"
    assert not row.due_at  # no longer due: the scheduler will not expire it
    with pytest.raises(Conflict):  # the update expected it pending
        await runtime.actors.ask(ApplyObjects((write,), by=ws.system))
