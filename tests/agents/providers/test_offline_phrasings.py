"""The offline planner against a table of phrasings written before the planner was changed
(tests/agents/data/phrasings.json): each gets its expected first tool call, and what the
planner does not understand gets a clear "I did not understand" reply."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from fieldhouse.agents.providers.base import Turn
from fieldhouse.agents.providers.offline import OfflineProvider
from fieldhouse.agents.providers.offline_plans import plan_for
from fieldhouse.agents.tools import ALL_TOOLS
from tests.agents.providers.planner_walk import walk, writes
from tests.agents.replay import Collect

NOW = datetime(2026, 3, 2, 15, 30, tzinfo=UTC)
TOOLS = {tool.spec.name: tool for tool in ALL_TOOLS}
TABLE = json.loads((Path(__file__).parent.parent / "data" / "phrasings.json").read_text())["rows"]


def canonical(tool: str, args: dict[str, Any]) -> dict[str, Any]:
    dumped: dict[str, Any] = TOOLS[tool].args.model_validate(args).model_dump(mode="json")
    return dumped


def test_the_table_is_large_enough() -> None:
    assert len(TABLE) >= 40
    assert len({row["message"] for row in TABLE}) == len(TABLE)


@pytest.mark.parametrize("row", TABLE, ids=[row["message"][:40] for row in TABLE])
async def test_phrasing(row: dict[str, Any]) -> None:
    """The row's tool among the calls the plan makes in an empty workspace (a create after
    its look-up for a duplicate, an update's look-up, a search, ...); a row without a tool
    gets a reply and no write."""
    plan = plan_for(row["message"], NOW)
    if row["tool"] is None:
        said = Collect()
        step = await OfflineProvider(lambda: NOW).step(
            [Turn("user", row["message"])], [t.spec for t in ALL_TOOLS], said
        )
        if plan is None:
            assert step.final and step.text.startswith("Sorry, I did not understand")
        else:  # a refusal, a question, or a look-up that finds nothing: never a write
            assert not writes(plan), row["message"]
        return
    assert plan is not None, row["message"]
    calls, _ = walk(plan)
    wanted = [(tool, args) for tool, args in calls if tool == row["tool"]]
    assert wanted, (row["message"], calls)
    # a look-up is the first search (one that finds nothing is followed by word searches)
    tool, args = wanted[0] if row["tool"] == "records.search" else wanted[-1]
    got = canonical(tool, args)
    for key, value in row["args"].items():
        if key == "dueAt":
            value = canonical(tool, {**args, "dueAt": value})["dueAt"]
        assert got[key] == value, (row["message"], key, got[key])
