"""A change said in no sentence shape the planner reads: the fields and values from the schema,
the record from the names the search finds for the message's words (issue 32, item 6)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from fieldhouse.agents.providers.offline_plans import plan_for
from fieldhouse.agents.providers.offline_schema import builtin
from tests.agents.providers.planner_walk import record, walk

NOW = datetime(2026, 11, 28, 10, 0, tzinfo=UTC)
WS = builtin()
EDSGER = record("contacts", "Edsger Dijkstra")
BARBARA = record("contacts", "Barbara Liskov")
GLOBEX = record("companies", "Globex Systems")


def calls(message: str, records: list[dict[str, Any]]) -> tuple[list[Any], str]:
    made = plan_for(message, NOW, WS)
    assert made is not None, message
    return walk(made, records)


def test_a_flag_set_after_some_context_changes_the_one_record_named() -> None:
    made, _ = calls(
        "Edsger Dijkstra phoned about the newsletter, so set do-not-contact to true for him",
        [EDSGER, BARBARA],
    )
    assert made[-1] == (
        "records.update",
        {"module": "contacts", "recordId": EDSGER["recordId"], "fields": {"do-not-contact": True}},
    )


def test_a_number_said_before_its_field_changes_the_record() -> None:
    made, _ = calls("Globex Systems grew to 340 employees, please amend", [GLOBEX])
    assert made[-1] == (
        "records.update",
        {"module": "companies", "recordId": GLOBEX["recordId"], "fields": {"employees": 340}},
    )


def test_a_name_with_one_slip_in_a_long_word_is_still_the_record() -> None:
    made, _ = calls(
        "Edsgar Dijkstra signed last week, so update the lifecycle to customer", [EDSGER]
    )
    assert made[-1][1]["recordId"] == EDSGER["recordId"]
    assert made[-1][1]["fields"] == {"lifecycle": "customer"}


def test_no_record_or_two_records_named_is_asked_about_not_written() -> None:
    made, reply = calls("Alan Kay moved to 12 employees, set that", [GLOBEX])
    assert all(name == "records.search" for name, _ in made)
    made, reply = calls(
        "Barbara and Edsger asked us, so set do-not-contact to true for them",
        [record("contacts", "Barbara"), record("contacts", "Edsger")],
    )
    assert all(name == "records.search" for name, _ in made)
    assert "which record" in reply.lower()
