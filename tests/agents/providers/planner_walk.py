"""Walk an offline plan to its end without a server: each search answers from a fixed set of
records (by exact or partial display name, and its filters: a field's value, an amount, a
referred record's id), every other call succeeds, and each call is checked against the real
tool's argument model. Each stage sees the run's earlier outcomes as it does in the provider."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from fieldhouse.agents.contract import ToolOutcome
from fieldhouse.agents.providers.offline_described import EARLIER
from fieldhouse.agents.providers.offline_plans import Call, Plan, plan_for
from fieldhouse.agents.providers.offline_schema import Workspace
from fieldhouse.agents.tools import ALL_TOOLS

TOOLS = {tool.spec.name: tool for tool in ALL_TOOLS}
READS = {"records.search", "records.get", "reminders.list"}


def record(module: str, name: str, **fields: Any) -> dict[str, Any]:
    """A record as records.search returns it (its id made from its name)."""
    rid = (name.lower().replace(" ", "-") + "-" * 36)[:36]
    return {"recordId": rid, "moduleSlug": module, "displayName": name, "fields": fields}


def _answer(call: Call, records: Sequence[Mapping[str, Any]]) -> ToolOutcome:
    name, args = call
    if name != "records.search":
        return ToolOutcome("ok", {}, f"Done: {name}.")
    query = str(args.get("query") or "").lower().split()
    filters = dict(args.get("filters") or {})
    found = [
        r
        for r in records
        if r["moduleSlug"] == args["module"]
        and all(w in str(r["displayName"]).lower() for w in query)
        and all(_holds(r["fields"].get(slug), value) for slug, value in filters.items())
    ]
    return ToolOutcome("ok", {"records": found}, f"Found {len(found)} record(s).")


def _holds(have: Any, want: Any) -> bool:
    """Whether a record's value passes a search filter: equal, in its list, or its amount."""
    if isinstance(have, Mapping):
        have = have.get("amount")
    if isinstance(have, list):
        return want in have
    return bool(have == want)


def walk(plan: Plan, records: Sequence[Mapping[str, Any]] = ()) -> tuple[list[Call], str]:
    """Every call the plan makes (in order) and its closing reply ("" when it just ends)."""
    made: list[Call] = []
    outcomes: list[ToolOutcome] = []
    earlier: list[tuple[ToolOutcome, ...]] = []
    for stage in plan.stages:
        token = EARLIER.set(tuple(earlier))
        try:
            calls = stage(outcomes)
        finally:
            EARLIER.reset(token)
        if isinstance(calls, str):
            return made, calls
        if not calls:
            break
        for name, args in calls:
            TOOLS[name].args.model_validate(args)
        made += calls
        outcomes = [_answer(call, records) for call in calls]
        earlier.append(tuple(outcomes))
    return made, plan.reply


def writes(plan: Plan, records: Sequence[Mapping[str, Any]] = ()) -> list[Call]:
    return [call for call in walk(plan, records)[0] if call[0] not in READS]


def walked(
    message: str, records: Sequence[Mapping[str, Any]], now: datetime, workspace: Workspace
) -> tuple[list[Call], str]:
    """Every call of the plan for ``message``, walked over ``records``, and its reply."""
    plan = plan_for(message, now, workspace)
    assert plan is not None, message
    return walk(plan, records)


def written(
    message: str, records: list[dict[str, Any]], now: datetime, workspace: Workspace
) -> tuple[list[Call], str]:
    """The writes of the plan for ``message``, walked over ``records``, and its reply."""
    made, reply = walked(message, records, now, workspace)
    return [call for call in made if call[0] not in READS], reply


def updated(target: Mapping[str, Any], **fields: Any) -> list[Call]:
    """The writes of a plan that changes ``fields`` on ``target`` and nothing else."""
    return [
        (
            "records.update",
            {"module": target["moduleSlug"], "recordId": target["recordId"], "fields": fields},
        )
    ]


def the_create(made: Sequence[Call]) -> dict[str, Any]:
    """The arguments of the one write of ``made``, a records.create."""
    assert len(made) == 1 and made[0][0] == "records.create", made
    args: dict[str, Any] = made[0][1]
    return args


def last_search(made: Sequence[Call]) -> dict[str, Any]:
    """The arguments of the last call of ``made``, a records.search."""
    assert made and made[-1][0] == "records.search", made
    args: dict[str, Any] = made[-1][1]
    return args


def conditions(args: Mapping[str, Any]) -> list[tuple[str, str, Any]]:
    """A search's advanced-filter conditions as (field, operator, value or values)."""
    said = args.get("advancedFilter", {}).get("root", {}).get("conditions", [])
    return [(c["fieldSlug"], c["operator"], c.get("value", c.get("values"))) for c in said]
