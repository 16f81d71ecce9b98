"""Record messages applied by the workspace actor directly (no HTTP), on both backends."""

from __future__ import annotations

from typing import Any

import pytest
import trio

from fieldhouse.actors.admin_ops import CreateLabel, CreateRole
from fieldhouse.actors.batch_ops import BatchItem, BatchWrite
from fieldhouse.actors.messages import Message
from fieldhouse.actors.record_ops import Categorise, CreateRecord, DeleteRecords, UpdateRecord
from fieldhouse.model.errors import Forbidden, NotFound, ValidationFailed
from fieldhouse.model.principal import Principal
from fieldhouse.model.schema import ModuleSchema
from fieldhouse.runtime import Runtime
from tests.conftest import Workspace, add_user


async def _deals(runtime: Runtime, ws: Workspace) -> ModuleSchema:
    schemas = await runtime.actors.schemas.get(ws.account_id)
    deals = schemas.get("deals")
    assert deals is not None
    return deals


async def test_create_returns_the_committed_row_with_its_number(
    runtime: Runtime, ws: Workspace
) -> None:
    deals = await _deals(runtime, ws)
    row = await runtime.actors.ask(
        CreateRecord(
            deals.module.module_id,
            "Globex renewal",
            {"name": "Globex renewal", "stage": "lead"},
            by=ws.as_owner,
        ),
    )
    assert row.display_name == "Globex renewal"
    assert row.fields["deal-number"] == "DEAL-00001"
    assert row.created_by == ws.owner_id
    stored = await runtime.store.get_record(ws.account_id, deals.module.module_id, row.record_id)
    assert stored == row


async def test_invalid_values_fail_alone_and_write_nothing(runtime: Runtime, ws: Workspace) -> None:
    deals = await _deals(runtime, ws)
    module_id = deals.module.module_id
    outcomes: dict[str, object] = {}

    async def send(name: str, fields: dict[str, object]) -> None:
        try:
            outcomes[name] = await runtime.actors.ask(
                CreateRecord(module_id, name, fields, by=ws.system)
            )
        except ValidationFailed as exc:
            outcomes[name] = exc

    async with trio.open_nursery() as nursery:
        nursery.start_soon(send, "good 1", {"name": "g1", "stage": "lead"})
        nursery.start_soon(send, "bad", {"name": "b", "stage": "no-such-stage"})
        nursery.start_soon(send, "good 2", {"name": "g2", "stage": "won"})
    bad = outcomes["bad"]
    assert isinstance(bad, ValidationFailed)
    assert [i.path for i in bad.issues] == [("fields", "stage")]
    numbers = sorted(o.fields["deal-number"] for o in outcomes.values() if hasattr(o, "fields"))
    assert numbers == ["DEAL-00001", "DEAL-00002"]  # the failed create took no number


async def test_update_changes_only_what_is_sent(runtime: Runtime, ws: Workspace) -> None:
    deals = await _deals(runtime, ws)
    module_id = deals.module.module_id
    made = await runtime.actors.ask(
        CreateRecord(module_id, "Initech", {"name": "Initech", "stage": "lead"}, by=ws.system)
    )
    changed = await runtime.actors.ask(
        UpdateRecord(module_id, made.record_id, None, {"stage": "won"}, by=ws.system)
    )
    assert changed.fields["stage"] == "won"
    assert changed.fields["name"] == "Initech"
    assert changed.display_name == "Initech"
    same = await runtime.actors.ask(
        UpdateRecord(module_id, made.record_id, None, {"stage": "won"}, by=ws.system)
    )
    assert same.updated_at == changed.updated_at  # nothing changed, nothing written
    with pytest.raises(NotFound):
        await runtime.actors.ask(
            UpdateRecord(
                module_id, "00000000-0000-4000-8000-000000000000", "x", None, by=ws.system
            ),
        )


async def test_delete_is_idempotent_and_counts_unique_live_records(
    runtime: Runtime, ws: Workspace
) -> None:
    deals = await _deals(runtime, ws)
    module_id = deals.module.module_id
    made = await runtime.actors.ask(
        CreateRecord(module_id, "Hooli", {"name": "Hooli", "stage": "lead"}, by=ws.system)
    )
    ids = (made.record_id, made.record_id)
    assert await runtime.actors.ask(DeleteRecords(module_id, ids, by=ws.system)) == [made.record_id]
    assert await runtime.actors.ask(DeleteRecords(module_id, ids, by=ws.system)) == []
    assert await runtime.store.get_record(ws.account_id, module_id, made.record_id) is None


async def test_categorise_refuses_unknown_labels_and_applies_known_ones(
    runtime: Runtime, ws: Workspace
) -> None:
    deals = await _deals(runtime, ws)
    module_id = deals.module.module_id
    made = await runtime.actors.ask(
        CreateRecord(module_id, "Umbrella", {"name": "Umbrella", "stage": "lead"}, by=ws.system)
    )
    label = await runtime.actors.ask(CreateLabel("hot", by=ws.system))
    unknown = "00000000-0000-4000-8000-000000000001"
    with pytest.raises(ValidationFailed) as refused:
        await runtime.actors.ask(
            Categorise(module_id, (made.record_id,), add_labels=(unknown,), by=ws.system)
        )
    assert [i.path for i in refused.value.issues] == [("addLabelIds", 0)]
    [row] = await runtime.actors.ask(
        Categorise(module_id, (made.record_id,), add_labels=(str(label["id"]),), by=ws.system)
    )
    assert row.label_ids == [label["id"]]
    assert row.fields == made.fields  # categorising never touches field values


async def _newest_seq(runtime: Runtime, ws: Workspace) -> int:
    newest = await runtime.store.list_activity(
        ws.account_id, module_ids=None, record_id=None, types=(), limit=1
    )
    return int(newest[0]["seq"]) if newest else 0


async def _principal(
    runtime: Runtime, ws: Workspace, role: str, scopes: tuple[str, ...] | None = None
) -> Principal:
    """A real user of the workspace with ``role`` and a key (``scopes``), as it authenticates."""
    user = await add_user(runtime, ws, role, scopes)
    principal, _ = await runtime.services.auth.authenticate(f"Bearer {user.key}")
    assert principal is not None
    return principal


async def test_the_actor_refuses_a_record_write_its_principal_may_not_make(
    runtime: Runtime, ws: Workspace
) -> None:
    """Whoever sends it (a route, an agent tool, an approved call run later as its requester),
    a record write is checked in the actor, with the routes' envelopes; nothing is written."""
    deals = await _deals(runtime, ws)
    module_id = deals.module.module_id
    row = await runtime.actors.ask(
        CreateRecord(module_id, "Kept", {"name": "Kept", "stage": "lead"}, by=ws.system)
    )
    sees, changes = frozenset({"contacts", "deals"}), frozenset({"contacts"})
    await runtime.actors.ask(CreateRole("sales", sees, changes, by=ws.system))
    await runtime.actors.ask(CreateRole("hr", changes, changes, by=ws.system))
    sales = await _principal(runtime, ws, "sales")  # sees deals, changes only contacts
    hr = await _principal(runtime, ws, "hr")  # does not see deals
    reader = await _principal(runtime, ws, "member", ("workspace:read", "records:read"))
    before = await _newest_seq(runtime, ws)

    def writes(by: Principal) -> list[Message[Any]]:
        fields = {"name": "New", "stage": "lead"}
        return [
            CreateRecord(module_id, "New", fields, by=by),
            UpdateRecord(module_id, row.record_id, "Renamed", None, by=by),
            DeleteRecords(module_id, (row.record_id,), by=by),
            Categorise(module_id, (row.record_id,), by=by),
            BatchWrite(module_id, (BatchItem("New", fields),), by=by),
        ]

    for by, error, message in (
        (sales, Forbidden, "Your role may not change records of module 'deals'"),
        (hr, NotFound, "Module 'deals' not found"),
        (reader, Forbidden, "This credential lacks the 'records:write' scope"),
    ):
        for write in writes(by):
            with pytest.raises(error) as refused:
                await runtime.actors.ask(write)
            assert refused.value.message == message, (type(write).__name__, by.role.slug)
    assert await _newest_seq(runtime, ws) == before  # no activity: nothing was written
    stored = await runtime.store.get_record(ws.account_id, module_id, row.record_id)
    assert stored == row
