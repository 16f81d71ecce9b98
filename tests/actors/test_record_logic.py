"""Field values around a record write, called directly inside a write transaction of a real
store (both backends): defaults, auto-numbers, link checks, hierarchies, computed fields, and
linking records brought up to date when their targets are renamed or deleted."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import replace
from typing import Any

import pytest

from fieldhouse.actors.context import WriteContext
from fieldhouse.actors.record_logic import (
    apply_defaults,
    assign_autonumbers,
    compute_derived,
    module_by_id,
    propagate,
    verify_links,
)
from fieldhouse.actors.record_ops import CreateRecord
from fieldhouse.model.errors import NotFound
from fieldhouse.model.records import RecordRow
from fieldhouse.model.schema import ModuleSchema
from fieldhouse.model.values import check_values
from fieldhouse.runtime import Runtime
from tests.conftest import Workspace


@asynccontextmanager
async def writing(runtime: Runtime, ws: Workspace) -> AsyncIterator[WriteContext]:
    """A write transaction of the workspace, committed when the block ends."""
    _, schemas = await runtime.store.load_schemas(ws.account_id)
    async with runtime.store.write(ws.account_id) as txn:
        yield WriteContext(
            txn,
            ws.account_id,
            schemas,
            find_user=lambda uid: runtime.store.get_user(ws.account_id, uid),
        )


async def schema_of(runtime: Runtime, ws: Workspace, slug: str) -> ModuleSchema:
    _, schemas = await runtime.store.load_schemas(ws.account_id)
    return schemas[slug]


async def create(
    runtime: Runtime, ws: Workspace, module: str, name: str, **fields: Any
) -> RecordRow:
    schema = await schema_of(runtime, ws, module)
    if schema.field("name") is not None:
        fields = {"name": name, **fields}
    message = CreateRecord(schema.module.module_id, name, fields, by=ws.system)
    row: RecordRow = await runtime.actors.ask(message)
    return row


async def read(runtime: Runtime, ws: Workspace, record_id: str) -> RecordRow:
    (row,) = await runtime.store.get_records(ws.account_id, [record_id])
    return row


def issues_of(found: list[Any]) -> list[tuple[str, str]]:
    return [(i.code, i.message) for i in found]


async def test_defaults_fill_only_what_a_create_left_out(runtime: Runtime, ws: Workspace) -> None:
    deals = await schema_of(runtime, ws, "deals")
    values: dict[str, Any] = {"name": "Big"}
    apply_defaults(deals, values)
    assert values == {"name": "Big", "stage": "lead"}
    chosen: dict[str, Any] = {"name": "Big", "stage": "won"}
    apply_defaults(deals, chosen)
    assert chosen == {"name": "Big", "stage": "won"}
    async with writing(runtime, ws) as ctx:
        assert module_by_id(ctx, deals.module.module_id) == deals
        with pytest.raises(NotFound):
            module_by_id(ctx, "no-such-module")


async def test_auto_numbers_follow_each_other_across_transactions(
    runtime: Runtime, ws: Workspace
) -> None:
    deals = await schema_of(runtime, ws, "deals")
    numbers: list[str] = []
    async with writing(runtime, ws) as ctx:
        for _ in range(2):
            values: dict[str, Any] = {"name": "x"}
            await assign_autonumbers(ctx, deals, values)
            numbers.append(values["deal-number"])
    async with writing(runtime, ws) as ctx:
        values = {"name": "y"}
        await assign_autonumbers(ctx, deals, values)
        numbers.append(values["deal-number"])
    assert numbers == ["DEAL-00001", "DEAL-00002", "DEAL-00003"]


async def test_links_must_point_at_live_records_of_the_right_module_and_real_users(
    runtime: Runtime, ws: Workspace
) -> None:
    ada = await create(runtime, ws, "contacts", "Ada", **{"first-name": "Ada"})
    acme = await create(runtime, ws, "companies", "Acme")
    missing = "00000000-0000-4000-8000-000000000000"
    deals = await schema_of(runtime, ws, "deals")
    supplied: Mapping[str, Any] = {
        "name": "Big",
        "stage": "lead",
        "contacts": [ada.record_id, acme.record_id, missing],
        "owner": ws.owner_id,
    }
    check = check_values(deals.fields, supplied, existing=None)
    assert check.issues == ()
    values = dict(check.values)
    async with writing(runtime, ws) as ctx:
        found = await verify_links(ctx, deals, check, values, record_id=None)
    assert issues_of(found) == [
        (
            "invalid_reference",
            f"Record {acme.record_id} is in module 'companies'; this field links to: contacts",
        ),
        ("invalid_reference", f"Record {missing} does not exist"),
    ]
    # the names shown with the values are the targets' own
    assert values["contacts"][0]["displayName"] == "Ada"
    owner = await runtime.store.get_user(ws.account_id, ws.owner_id)
    assert owner is not None
    assert values["owner"]["displayName"] == owner.display_name
    assert values["owner"]["email"] == owner.email
    stranger = check_values(
        deals.fields, {"name": "Big", "stage": "lead", "owner": missing}, existing=None
    )
    async with writing(runtime, ws) as ctx:
        found = await verify_links(ctx, deals, stranger, dict(stranger.values), record_id=None)
    assert issues_of(found) == [("invalid_reference", f"User {missing} does not exist")]


async def test_a_hierarchy_stays_acyclic_and_within_its_depth(
    runtime: Runtime, ws: Workspace
) -> None:
    companies = await schema_of(runtime, ws, "companies")
    chain = [await create(runtime, ws, "companies", "Level 1")]
    for level in range(2, 6):  # maxDepth is 5: five levels fit
        parent = {"parent-company": chain[-1].record_id}
        chain.append(await create(runtime, ws, "companies", f"Level {level}", **parent))
    top, middle, bottom = chain[0], chain[2], chain[-1]
    deal = await create(runtime, ws, "deals", "Big", stage="lead")

    async def parent_issues(record_id: str | None, parent_id: str) -> list[tuple[str, str]]:
        check = check_values(companies.fields, {"parent-company": parent_id}, existing={})
        async with writing(runtime, ws) as ctx:
            found = await verify_links(
                ctx, companies, check, dict(check.values), record_id=record_id
            )
        return issues_of(found)

    assert await parent_issues(middle.record_id, middle.record_id) == [
        ("cycle", "A record cannot be its own parent")
    ]
    assert await parent_issues(top.record_id, bottom.record_id) == [
        ("cycle", "This parent would make the hierarchy a cycle")
    ]
    too_deep = [("too_big", "Hierarchy would be deeper than maxDepth 5")]
    assert await parent_issues(None, bottom.record_id) == too_deep
    # a record's subtree moves with it: three levels fit under level 2, not under level 3
    side = await create(runtime, ws, "companies", "Side", **{"parent-company": chain[1].record_id})
    assert await parent_issues(None, side.record_id) == []
    assert await parent_issues(middle.record_id, chain[1].record_id) == []
    assert await parent_issues(middle.record_id, side.record_id) == too_deep
    assert await parent_issues(None, deal.record_id) == [
        ("invalid_reference", f"Parent record {deal.record_id} does not exist in this module")
    ]


async def test_rollups_then_formulas_are_computed_from_linked_records(
    runtime: Runtime, ws: Workspace
) -> None:
    won = await create(
        runtime, ws, "deals", "Won", stage="won", amount={"amount": 1000, "currency": "USD"}
    )
    lead = await create(
        runtime, ws, "deals", "Lead", stage="lead", amount={"amount": 500, "currency": "USD"}
    )
    companies = await schema_of(runtime, ws, "companies")
    check = check_values(
        companies.fields, {"name": "Acme", "deals": [won.record_id, lead.record_id]}, existing=None
    )
    values = dict(check.values)
    async with writing(runtime, ws) as ctx:
        await compute_derived(ctx, companies, values)
    assert (values["deal-count"], values["total-won-deal-value"]) == (2, 1000)
    deals = await schema_of(runtime, ws, "deals")
    deal_values: dict[str, Any] = {"amount": {"amount": 200, "currency": "USD"}, "probability": 25}
    async with writing(runtime, ws) as ctx:
        await compute_derived(ctx, deals, deal_values)
    assert deal_values["weighted-value"] == 50


async def test_linking_records_follow_a_renamed_or_deleted_target(
    runtime: Runtime, ws: Workspace
) -> None:
    won = await create(
        runtime, ws, "deals", "Won", stage="won", amount={"amount": 1000, "currency": "USD"}
    )
    other = await create(runtime, ws, "deals", "Other", stage="lead")
    acme = await create(runtime, ws, "companies", "Acme", deals=[won.record_id, other.record_id])
    assert acme.fields["deal-count"] == 2
    async with writing(runtime, ws) as ctx:
        await ctx.txn.update_record(replace(won, display_name="Won big"))
        await propagate(ctx, {won.record_id})
    renamed = await read(runtime, ws, acme.record_id)
    assert [d["displayName"] for d in renamed.fields["deals"]] == ["Won big", "Other"]
    assert renamed.fields["total-won-deal-value"] == 1000
    deals_id = won.module_id
    async with writing(runtime, ws) as ctx:
        await ctx.txn.soft_delete(deals_id, [won.record_id], ctx.now, None)
        await propagate(ctx, {won.record_id}, deleted=True)
    left = await read(runtime, ws, acme.record_id)
    assert [d["recordId"] for d in left.fields["deals"]] == [other.record_id]
    assert (left.fields["deal-count"], left.fields["total-won-deal-value"]) == (1, 0)
    linked = await runtime.store.linked_targets(ws.account_id, acme.record_id, "deals")
    assert linked == [other.record_id]
