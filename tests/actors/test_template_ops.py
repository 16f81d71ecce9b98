"""Template maintenance through the workspace actor (no HTTP), on both backends: reset to the
template, custom fields computed at once, auto-number backfill, and field deletion that keeps
no dangling values or references."""

from __future__ import annotations

from typing import Any

import pytest

from fieldhouse.actors.record_ops import CreateRecord, UpdateRecord
from fieldhouse.actors.template_ops import (
    CreateField,
    DeleteField,
    ResetOutcome,
    ResetToTemplate,
    UpdateField,
)
from fieldhouse.model.errors import Conflict, ValidationFailed
from fieldhouse.model.records import RecordRow
from fieldhouse.model.schema import FieldDef, ModuleDef, ModuleSchema
from fieldhouse.runtime import Runtime
from tests.conftest import Workspace

TICKET = {"autonumber": {"formatType": "prefix", "prefix": "t-", "padding": 3, "startFrom": 10}}


async def deals(runtime: Runtime, ws: Workspace) -> ModuleSchema:
    _, schemas = await runtime.store.load_schemas(ws.account_id)
    return schemas["deals"]


async def field(runtime: Runtime, ws: Workspace, slug: str) -> FieldDef:
    found = (await deals(runtime, ws)).field(slug)
    assert found is not None, slug
    return found


async def new_deal(runtime: Runtime, ws: Workspace, name: str, **fields: Any) -> RecordRow:
    module_id = (await deals(runtime, ws)).module.module_id
    values = {"name": name, "stage": "lead", **fields}
    row: RecordRow = await runtime.actors.ask(CreateRecord(module_id, name, values, by=ws.system))
    return row


async def fields_of(runtime: Runtime, ws: Workspace, record_id: str) -> dict[str, Any]:
    (row,) = await runtime.store.get_records(ws.account_id, [record_id])
    return row.fields


async def activity(runtime: Runtime, ws: Workspace, kind: str) -> list[dict[str, Any]]:
    entries = await runtime.store.list_activity(
        ws.account_id, module_ids=None, record_id=None, types=(kind,), limit=50
    )
    return [e["data"] for e in entries]


async def test_reset_restores_the_template_and_keeps_the_counter(
    runtime: Runtime, ws: Workspace
) -> None:
    ask = runtime.actors.ask
    schema = await deals(runtime, ws)
    module_id = schema.module.module_id
    first = await new_deal(runtime, ws, "One")
    stage, lost = await field(runtime, ws, "stage"), await field(runtime, ws, "lost-reason")
    await ask(UpdateField(module_id, stage.field_id, label="Phase", by=ws.system))
    await ask(DeleteField(module_id, lost.field_id, by=ws.system))
    region = await ask(CreateField(module_id, "Region", None, "text", {}, by=ws.system))
    outcome = await ask(ResetToTemplate(module_id, by=ws.as_owner))
    assert outcome == ResetOutcome(
        fields_removed=1, fields_added=1, views_added=0, references_added=0, skipped_slugs=()
    )
    after = await deals(runtime, ws)
    assert [f.slug for f in after.fields if f.vendor_managed] == [f.slug for f in schema.fields]
    assert (await field(runtime, ws, "stage")).label == "Stage"
    assert after.field("region") == region  # a user's field is left as it was
    # the auto-number counter moved on with the records: the reset does not rewind it
    assert first.fields["deal-number"] == "DEAL-00001"
    assert (await new_deal(runtime, ws, "Two")).fields["deal-number"] == "DEAL-00002"
    (logged,) = await activity(runtime, ws, "template_reset")
    assert (logged["templateSlug"], logged["fieldsRemoved"], logged["fieldsAdded"]) == (
        "deals",
        1,
        1,
    )
    again = await ask(ResetToTemplate(module_id, by=ws.system))
    assert (again.fields_removed, again.fields_added) == (0, 0)


@pytest.mark.parametrize(
    ("template_slug", "reason"),
    [
        (None, "was not installed from a template"),
        ("boats", "was installed from template 'boats', which no longer exists"),
    ],
)
async def test_only_a_module_of_a_known_template_can_be_reset(
    runtime: Runtime, ws: Workspace, template_slug: str | None, reason: str
) -> None:
    plain = ModuleDef(
        "00000000-0000-4000-8000-00000000abcd",
        ws.account_id,
        "Plain",
        "plain",
        template_slug=template_slug,
        created_at="x",
    )
    async with runtime.store.write(ws.account_id) as txn:
        await txn.insert_module(plain)
        await txn.bump_schema_version()
    with pytest.raises(Conflict) as refused:
        await runtime.actors.ask(ResetToTemplate(plain.module_id, by=ws.system))
    assert refused.value.message == f"Module 'plain' {reason}; there is nothing to reset it to"
    assert refused.value.data == {"moduleId": plain.module_id, "templateSlug": template_slug}


async def test_a_new_formula_field_is_computed_for_existing_records(
    runtime: Runtime, ws: Workspace
) -> None:
    ask = runtime.actors.ask
    module_id = (await deals(runtime, ws)).module.module_id
    deal = await new_deal(runtime, ws, "Big One")
    last = max(f.sort_order for f in (await deals(runtime, ws)).fields)
    shout = CreateField(
        module_id,
        "Shout",
        None,
        "formula",
        {"formula": {"expression": "UPPER({name})"}},
        by=ws.system,
    )
    made = await ask(shout)
    assert (made.slug, made.vendor_managed, made.sort_order) == ("shout", False, last + 1)
    assert made == await field(runtime, ws, "shout")
    assert (await fields_of(runtime, ws, deal.record_id))["shout"] == "BIG ONE"
    with pytest.raises(Conflict) as taken:
        await ask(CreateField(module_id, "Shout", None, "text", {}, by=ws.system))
    assert taken.value.message == (
        "Module 'deals' already has a field with slug 'shout'; send a different slug"
    )
    assert taken.value.data == {"slug": "shout"}
    version = await runtime.store.schema_version(ws.account_id)
    with pytest.raises(ValidationFailed):
        bad = {"formula": {"expression": "UPPER("}}
        await ask(CreateField(module_id, "Broken", None, "formula", bad, by=ws.system))
    assert await runtime.store.schema_version(ws.account_id) == version
    assert (await deals(runtime, ws)).field("broken") is None


async def test_backfill_numbers_only_the_records_without_a_number(
    runtime: Runtime, ws: Workspace
) -> None:
    ask = runtime.actors.ask
    module_id = (await deals(runtime, ws)).module.module_id
    older, newer = await new_deal(runtime, ws, "A"), await new_deal(runtime, ws, "B")
    ticket = await ask(CreateField(module_id, "Ticket", None, "autonumber", TICKET, by=ws.system))
    shout = {"formula": {"expression": "UPPER({ticket})"}}
    await ask(CreateField(module_id, "Shout", None, "formula", shout, by=ws.system))
    numbered = await new_deal(runtime, ws, "C")
    assert numbered.fields["ticket"] == "t-010"
    edited, count = await ask(
        UpdateField(module_id, ticket.field_id, backfill_existing=True, by=ws.system)
    )
    assert count == 2
    assert edited.config["autonumber"]["nextValue"] == 13
    got = [await fields_of(runtime, ws, r.record_id) for r in (older, newer, numbered)]
    assert [(f["ticket"], f["shout"]) for f in got] == [
        ("t-011", "T-011"),
        ("t-012", "T-012"),
        ("t-010", "T-010"),
    ]
    # a system change: the records do not look edited
    (row,) = await runtime.store.get_records(ws.account_id, [older.record_id])
    assert row.updated_at == older.updated_at
    assert await activity(runtime, ws, "field_backfilled") == [
        {"fieldId": ticket.field_id, "slug": "ticket", "count": 2}
    ]
    stage = await field(runtime, ws, "stage")
    with pytest.raises(ValidationFailed) as wrong:
        await ask(UpdateField(module_id, stage.field_id, backfill_existing=True, by=ws.system))
    assert wrong.value.issues[0].path == ("backfillExisting",)


async def test_an_update_that_changes_nothing_writes_nothing(
    runtime: Runtime, ws: Workspace
) -> None:
    stage = await field(runtime, ws, "stage")
    version = await runtime.store.schema_version(ws.account_id)
    same = UpdateField(
        stage.module_id, stage.field_id, label=stage.label, is_required=True, by=ws.system
    )
    assert await runtime.actors.ask(same) == (stage, 0)
    assert await runtime.store.schema_version(ws.account_id) == version
    assert await activity(runtime, ws, "field_updated") == []


async def test_an_archived_formula_is_computed_again_when_it_comes_back(
    runtime: Runtime, ws: Workspace
) -> None:
    """Pins update_field's archive branches (issue 35's split keeps them): an update that
    archives and relabels writes both activity entries; an archived field takes a new label but
    no config; brought back, a formula catches up with the edits made while it was hidden."""
    ask = runtime.actors.ask
    module_id = (await deals(runtime, ws)).module.module_id
    deal = await new_deal(runtime, ws, "Big One")
    shout = {"formula": {"expression": "UPPER({name})"}}
    made = await ask(CreateField(module_id, "Shout", None, "formula", shout, by=ws.system))
    archived, _ = await ask(
        UpdateField(module_id, made.field_id, label="Loud", archived=True, by=ws.system)
    )
    assert (archived.label, archived.archived_at is not None) == ("Loud", True)
    await ask(
        UpdateRecord(module_id, deal.record_id, "Small One", {"name": "Small One"}, by=ws.system),
    )
    assert (await fields_of(runtime, ws, deal.record_id))["shout"] == "BIG ONE"
    with pytest.raises(Conflict) as refused:
        await ask(UpdateField(module_id, made.field_id, config=shout, by=ws.system))
    assert refused.value.message == (
        "Field 'shout' is archived; send archived false (with or before other changes) to "
        "change its config or backfill it"
    )
    assert refused.value.data == {"fieldId": made.field_id, "slug": "shout"}
    relabelled, _ = await ask(UpdateField(module_id, made.field_id, label="Shout", by=ws.system))
    assert relabelled.archived_at is not None
    assert (await fields_of(runtime, ws, deal.record_id))["shout"] == "BIG ONE"
    back, count = await ask(UpdateField(module_id, made.field_id, archived=False, by=ws.system))
    assert (back.label, back.archived_at, count) == ("Shout", None, 0)
    assert (await fields_of(runtime, ws, deal.record_id))["shout"] == "SMALL ONE"
    ids = {"fieldId": made.field_id, "slug": "shout"}
    assert await activity(runtime, ws, "field_updated") == [
        {**ids, "changed": ["label"]},
        {**ids, "changed": ["label"]},
    ]
    for kind in ("field_archived", "field_unarchived"):
        assert await activity(runtime, ws, kind) == [{**ids, "dataType": "formula"}]


async def test_deleting_a_field_clears_its_values_and_references(
    runtime: Runtime, ws: Workspace
) -> None:
    ask = runtime.actors.ask
    schema = await deals(runtime, ws)
    module_id = schema.module.module_id
    amount = await field(runtime, ws, "amount")
    with pytest.raises(Conflict) as used:
        await ask(DeleteField(module_id, amount.field_id, by=ws.system))
    # a formula of its own module and a rollup of another one compute from it
    assert used.value.data == {
        "dependentFields": ["deals.weighted-value", "companies.total-won-deal-value"]
    }
    assert (await deals(runtime, ws)).field("amount") == amount
    company_schema = (await runtime.store.load_schemas(ws.account_id))[1]["companies"]
    acme: RecordRow = await ask(
        CreateRecord(company_schema.module.module_id, "Acme", {"name": "Acme"}, by=ws.system),
    )
    deal = await new_deal(runtime, ws, "Big", company=acme.record_id)
    company = await field(runtime, ws, "company")
    await ask(DeleteField(module_id, company.field_id, by=ws.as_owner))
    after = await deals(runtime, ws)
    assert after.field("company") is None
    assert [r.slug for r in after.references] == ["contacts"]
    assert "company" not in await fields_of(runtime, ws, deal.record_id)
    assert await runtime.store.linked_targets(ws.account_id, deal.record_id, "company") == []
    (logged,) = await activity(runtime, ws, "field_deleted")
    assert (logged["referencesRemoved"], logged["valuesCleared"], logged["vendorManaged"]) == (
        ["company"],
        1,
        True,
    )
