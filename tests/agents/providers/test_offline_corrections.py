"""A message that corrects itself is read with the value it ends with; one whose correction
cannot be placed is asked about, never written."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from fieldhouse.agents.providers.offline_corrections import settle
from fieldhouse.agents.providers.offline_plans import UNSETTLED
from fieldhouse.agents.providers.offline_schema import builtin
from tests.agents.providers.planner_walk import record, written

NOW = datetime(2026, 11, 28, 10, 0, tzinfo=UTC)  # a Saturday
WS = builtin()


@pytest.mark.parametrize(
    ("said", "meant"),
    [
        ("due Friday, no, Thursday.", "due Thursday."),
        ("email ada@a.io, no scratch that, ada@b.io", "email ada@b.io"),
        ("tomorrow at 10, er, 11, to phone Ken", "tomorrow at 11, to phone Ken"),
        ("close date 10 January 2027, sorry, 17 January 2027.", "close date 17 January 2027."),
        ("probability 80 percent, or let's say 75.", "probability 75 percent."),
        ("closes on the 20th of next month, er, the 25th.", "closes on the 25th of next month."),
        ("stage won, no wait, lost", "stage lost"),
    ],
)
def test_the_value_a_message_ends_with_replaces_the_one_it_withdraws(said: str, meant: str) -> None:
    assert settle(said) == meant


@pytest.mark.parametrize(
    "said", ["Yes, no problem, add it", "Actually, list all deals", "the deal is actually won"]
)
def test_a_message_that_corrects_nothing_is_left_as_it_is(said: str) -> None:
    assert settle(said) == said


def writes(message: str, records: list[dict[str, Any]]) -> tuple[list[Any], str]:
    return written(message, records, NOW, WS)


def test_a_create_that_corrects_its_date_is_made_with_the_corrected_one() -> None:
    made, _ = writes("New task: prep the board slides, due Friday, no, Thursday.", [])
    assert [(tool, args["fields"].get("due-date")) for tool, args in made] == [
        ("records.create", "2026-12-03")  # the first Thursday after Saturday 28 November
    ]


def test_a_reminder_that_corrects_its_hour_is_set_at_the_corrected_one() -> None:
    made, _ = writes("Set a reminder for tomorrow at 10, er, 11, to phone Ken Thompson.", [])
    assert len(made) == 1 and made[0][0] == "reminders.create"
    assert made[0][1]["dueAt"].startswith("2026-11-29T11:00")
    assert "er," not in made[0][1]["text"]


def test_a_correction_that_cannot_be_placed_is_asked_about() -> None:
    ada = record("contacts", "Ada Lovelace")
    made, reply = writes("Update Ada Lovelace's title to CTO, no wait, the other Ada", [ada])
    assert made == [] and reply == UNSETTLED
