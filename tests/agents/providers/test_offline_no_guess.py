"""What the planner must not guess at (issue 32, item 6): the three wrong writes of the fourth
blind set's held-out half (scored once, then read), made general: a new person's "name" that
is the rest of a sentence, a bare number a company could mean as revenue or as headcount, and
"the day after tomorrow"."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from fieldhouse.agents.providers.offline_schema import builtin
from tests.agents.providers.planner_walk import walked

NOW = datetime(2026, 11, 28, 10, 0, tzinfo=UTC)
WS = builtin()


def calls(message: str) -> tuple[list[Any], str]:
    return walked(message, [], NOW, WS)


def writes(made: list[Any]) -> list[Any]:
    return [call for call in made if call[0] != "records.search"]


def test_a_person_named_only_by_where_they_were_met_is_asked_for_a_name() -> None:
    made, reply = calls("Add the new person from the Northwind meeting as a contact.")
    assert writes(made) == []
    assert "called" in reply


def test_a_bare_number_on_a_company_is_not_taken_for_its_revenue() -> None:
    made, _ = calls("add co Greenleaf Energy industry other, ~120 ppl")
    assert all("annual-revenue" not in args.get("fields", {}) for _, args in writes(made))


def test_a_bare_number_on_a_deal_is_still_its_amount() -> None:
    made, _ = calls("new deal Orbit renewal, 24000")
    assert writes(made)[-1][1]["fields"]["amount"] == {"amount": 24000, "currency": "USD"}


def test_the_day_after_tomorrow_is_two_days_on() -> None:
    made, _ = calls("Reminder for the day after tomorrow 09:00 - re-import the contact sheet")
    (name, args), *_ = writes(made)
    assert name == "reminders.create"
    assert args["dueAt"].startswith("2026-11-30T09:00")
    assert "day after" not in args["text"]
