"""Record tools use the record machinery and obey the caller's role."""

from __future__ import annotations

import json
from pathlib import Path

from fieldhouse.actors import admin_ops as ops
from fieldhouse.actors.object_ops import ApplyObjects, ObjectWrite
from fieldhouse.agents.providers import OfflineProvider
from fieldhouse.agents.registry import build_executor
from fieldhouse.agents.run import AgentRun, AgentRuntime, RunRequest
from fieldhouse.runtime import Runtime
from tests.agents.toolkit import activity_types, call, context, objects, principal_of
from tests.conftest import Workspace, add_user


async def test_create_get_update_search(runtime: Runtime, ws: Workspace) -> None:
    ctx = await context(runtime, ws)
    made = await call(
        ctx, "records.create", module="contacts", displayName="Ada Lovelace",
        fields={"job-title": "Analyst", "first-name": "Ada"},
    )  # fmt: skip
    assert made.status == "ok", made.summary
    record = made.result["record"]
    assert record["fields"]["job-title"] == "Analyst"
    await call(
        ctx, "records.create", module="contacts", displayName="Grace Hopper",
        fields={"first-name": "Grace"},
    )  # fmt: skip
    got = await call(ctx, "records.get", module="contacts", recordId=record["recordId"])
    assert got.status == "ok" and got.result["record"]["displayName"] == "Ada Lovelace"
    changed = await call(
        ctx, "records.update", module="contacts", recordId=record["recordId"],
        fields={"job-title": "Mathematician"},
    )  # fmt: skip
    assert changed.status == "ok"
    assert changed.result["record"]["fields"]["job-title"] == "Mathematician"
    found = await call(ctx, "records.search", module="contacts", query="lovelace")
    assert [r["displayName"] for r in found.result["records"]] == ["Ada Lovelace"]
    by_filter = await call(
        ctx, "records.search", module="contacts", filters={"job-title": ["Mathematician"]}
    )
    assert by_filter.result["total"] == 1
    advanced = {
        "root": {
            "id": "g",
            "conjunction": "AND",
            "conditions": [
                {"id": "c", "fieldSlug": "job-title", "operator": "contains", "value": "math"}
            ],
        }
    }
    assert (await call(ctx, "records.search", module="contacts", advancedFilter=advanced)).result[
        "total"
    ] == 1
    everyone = await call(ctx, "records.search", module="contacts", limit=1)
    assert everyone.result["total"] == 2 and len(everyone.result["records"]) == 1
    bad_filter = await call(ctx, "records.search", module="contacts", filters={"nope": "x"})
    assert bad_filter.status == "error"
    missing = await call(
        ctx, "records.get", module="contacts", recordId="00000000-0000-4000-8000-000000000000"
    )
    assert missing.status == "error" and "not found" in missing.summary
    invalid = await call(ctx, "records.create", module="contacts", displayName="X",
                         fields={"emails": "not a list"})  # fmt: skip
    assert invalid.status == "error"
    types = await activity_types(runtime, ws)
    assert types.count("record_created") == 2 and "record_updated" in types
    assert types.count("agent_tool_call") >= 6


async def test_role_without_module_sees_no_module(runtime: Runtime, ws: Workspace) -> None:
    await runtime.actors.ask(
        ops.CreateRole("sales", frozenset({"deals"}), frozenset({"deals"}), by=ws.system)
    )
    sales = await context(runtime, await add_user(runtime, ws, "sales"))
    for name, args in (
        ("records.search", {"module": "contacts"}),
        ("records.get", {"module": "contacts", "recordId": "0" * 36}),
        ("records.create", {"module": "contacts", "displayName": "X"}),
        ("records.update", {"module": "contacts", "recordId": "0" * 36, "displayName": "X"}),
    ):
        outcome = await call(sales, name, **args)
        assert outcome.status == "error"
        assert outcome.summary == "Module 'contacts' not found"
    made = await call(sales, "records.create", module="deals", displayName="Big deal")
    assert made.status == "error"  # the deal is incomplete, but the module is there
    assert ["fields", "name"] in [i["path"] for i in made.result["issues"]]
    assert (await call(sales, "records.search", module="deals")).status == "ok"


async def test_viewer_cannot_write(runtime: Runtime, ws: Workspace) -> None:
    owner = await context(runtime, ws)
    made = await call(
        owner, "records.create", module="contacts", displayName="Ada",
        fields={"first-name": "Ada"},
    )  # fmt: skip
    viewer = await context(runtime, await add_user(runtime, ws, "viewer"))
    denied = await call(viewer, "records.create", module="contacts", displayName="X")
    assert denied.status == "error" and "lacks the 'records:write' scope" in denied.summary
    update = await call(
        viewer, "records.update", module="contacts",
        recordId=made.result["record"]["recordId"], displayName="Eve",
    )  # fmt: skip
    assert update.status == "error"
    assert (await call(viewer, "records.search", module="contacts")).result["total"] == 1


async def test_a_write_the_caller_may_not_make_is_refused_not_queued(
    runtime: Runtime, ws: Workspace
) -> None:
    """With the policy requiring approvals for record writes, a role that may view deals but not
    edit them gets the refusal at once; no approval is queued for an approver to grant."""
    policy = ObjectWrite(
        "policy", "agents", {"requireApproval": ["records.update"]}, "active", mode="upsert"
    )
    await runtime.actors.ask(ApplyObjects((policy,), by=ws.system))
    await runtime.actors.ask(
        ops.CreateRole("readers", frozenset({"deals"}), frozenset({"tasks"}), by=ws.system)
    )
    reader = await context(runtime, await add_user(runtime, ws, "readers"))
    outcome = await call(reader, "records.update", module="deals", name="Big One", displayName="X")
    assert outcome.status == "error" and "may not change records of module 'deals'" in (
        outcome.summary
    )
    assert await objects(runtime, ws, "approval") == []
    owner = await context(runtime, ws)
    queued = await call(owner, "records.update", module="deals", name="Big One", displayName="X")
    assert queued.status == "pending_approval"


PHRASINGS = json.loads((Path(__file__).parent.parent / "data" / "phrasings.json").read_text())


async def test_every_phrasing_of_the_table_runs_end_to_end(runtime: Runtime, ws: Workspace) -> None:
    """Issue 32 item 5: the planner's table is checked against the planner alone; end to end,
    every task creation and every deal made without a stage failed validation (the required
    status and stage the model does not name now take their fields' defaults)."""
    rt = AgentRuntime(
        runtime.settings, runtime.actors, runtime.store, OfflineProvider(), build_executor()
    )
    principal = await principal_of(runtime, ws)
    failed = {}
    for row in PHRASINGS["rows"]:
        if row["tool"] is None:
            continue
        run = AgentRun(rt, RunRequest(principal, row["message"], None))
        await run.execute()
        errors = [e.summary for e in run.tool_calls if e.status == "error"]
        if errors:
            failed[row["message"]] = errors
    assert failed == {}
    tasks = await call(await context(runtime, ws), "records.search", module="tasks")
    assert sorted(r["displayName"] for r in tasks.result["records"]) == [
        "Renew the lease",
        "send the invoice",
    ]
    assert {r["fields"]["status"] for r in tasks.result["records"]} == {"todo"}
    big = await call(await context(runtime, ws), "records.search", module="deals", query="Big")
    (deal,) = big.result["records"]  # made with the default stage, then marked won
    assert deal["displayName"] == "Big One" and deal["fields"]["stage"] == "won"
