"""Requests written as Markdown notes or small forms, or said value first (issue 32, item 6:
what blind12's tuning half showed the planner missing): ``offline_forms`` and the value-first
rules of ``offline_relay``. The phrasings and records are this file's own, not the blind
sets'."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from fieldhouse.agents.providers.offline_forms import plain_form, plain_markdown
from fieldhouse.agents.providers.offline_schema import builtin
from tests.agents.providers.planner_walk import (
    conditions,
    last_search,
    record,
    the_create,
    updated,
    walked,
    written,
)

NOW = datetime(2026, 11, 28, 10, 0, tzinfo=UTC)  # a Saturday
WS = builtin()
KELPIE = record("companies", "Kelpie Freight", employees=80)
HALYARD = record("deals", "Halyard fleet telemetry", stage="qualified")
RIGGING = record("tasks", "Audit the rigging inventory", status="todo", priority="medium")
MAREN = record(
    "contacts", "Maren Oyelaran", emails=["maren@kelpie.example"], **{"job-title": "Fleet Manager"}
)
EVERYONE = [KELPIE, HALYARD, RIGGING, MAREN]


def writes(message: str) -> list[Any]:
    return written(message, EVERYONE, NOW, WS)[0]


def created(message: str) -> dict[str, Any]:
    return the_create(writes(message))


def searched(message: str) -> dict[str, Any]:
    return last_search(walked(message, EVERYONE, NOW, WS)[0])


# --- Markdown notes and forms ---


def test_markdown_goes_and_a_struck_value_with_it() -> None:
    note = "# Kelpie Freight\n\n- **Employees:** ~~80~~ 95\n- [site](https://kelpie.example)"
    assert plain_markdown(note) == "Kelpie Freight\n\nEmployees: 95\nhttps://kelpie.example"


def test_a_plain_message_is_no_markdown() -> None:
    said = "Set Kelpie Freight's employees to 95 - thanks"
    assert plain_markdown(said) == said


def test_a_note_headed_by_a_record_changes_it() -> None:
    assert writes("# Kelpie Freight\n\nEmployees: ~~80~~ **95**") == updated(KELPIE, employees=95)


def test_a_note_headed_new_contact_creates_one_with_its_title_as_the_job_title() -> None:
    args = created(
        "## New contact\n- **Name:** Teodor Vasquez\n- **Title:** Harbour Master\n"
        "- **Company:** Kelpie Freight\n- **Email:** teodor@kelpie.example"
    )
    assert args["displayName"] == "Teodor Vasquez"
    assert args["fields"]["job-title"] == "Harbour Master"
    assert args["fields"]["company"] == KELPIE["recordId"]


def test_a_task_note_takes_its_title_as_the_name() -> None:
    args = created("### Task\n**Title:** Splice the mooring lines\n**Priority:** high")
    assert args["module"] == "tasks"
    assert args["displayName"] == "Splice the mooring lines"
    assert args["fields"]["priority"] == "high"


def test_a_table_of_changes_is_a_change_a_row() -> None:
    table = "| Company | Field | New value |\n|---|---|---|\n| Kelpie Freight | Employees | 95 |"
    assert plain_markdown(table) == "set Kelpie Freight's Employees to 95."
    assert writes(table) == updated(KELPIE, employees=95)


def test_a_reminder_note_sets_a_reminder() -> None:
    made = writes("### Reminder\n- **when:** tomorrow at 9:30\n- **what:** chase the crane quote")
    assert made == [
        (
            "reminders.create",
            {"text": "chase the crane quote", "dueAt": "2026-11-29T09:30:00+00:00"},
        )
    ]


def test_an_email_note_kept_as_a_draft_has_what_to_tell_as_its_body() -> None:
    note = (
        "# Email draft\n> to: maren@kelpie.example\n> re: berth schedule\n\n"
        "Keep it as a draft; tell her the berth is confirmed."
    )
    assert plain_form(plain_markdown(note)) == (
        'draft an email to maren@kelpie.example about "berth schedule", saying the berth is '
        "confirmed"
    )


def test_a_search_note_over_all_modules_searches_every_module() -> None:
    assert plain_form("Search everything\nquery: telemetry\nmodules: all") == (
        'search for "telemetry"'
    )


def test_code_quotes_still_quote_a_name() -> None:
    assert plain_markdown("mark `Audit the rigging inventory` as done") == (
        'mark "Audit the rigging inventory" as done'
    )


# --- the value first, the record last ---


@pytest.mark.parametrize(
    ("said", "fields"),
    [
        ("95 — Kelpie Freight's new headcount.", {"employees": 95}),
        ("Head of Fleet: Maren Oyelaran's job title from now on, please.",
         {"job-title": "Head of Fleet"}),
        ("The 3rd of next month: new due date for the Audit the rigging inventory task.",
         {"due-date": "2026-12-03"}),
    ],
)  # fmt: skip
def test_a_value_said_before_the_record_and_field_is_set(said: str, fields: dict[str, Any]) -> None:
    target = next(r for r in EVERYONE if r["displayName"].split()[0] in said)
    assert writes(said) == updated(target, **fields)


def test_values_said_before_the_create_are_the_new_records() -> None:
    args = created("Logistics, 40 staff — create a company record for Brindle Haulage.")
    assert args["displayName"] == "Brindle Haulage"
    assert args["fields"]["employees"] == 40


def test_a_reminder_after_its_moment_is_set() -> None:
    made = writes("The 2nd of next month at 10am: a reminder to renew the berth permit.")
    assert made == [
        (
            "reminders.create",
            {"text": "renew the berth permit", "dueAt": "2026-12-02T10:00:00+00:00"},
        )
    ]


def test_a_lost_deal_said_first_gets_its_reason() -> None:
    said = "Lost, because the pilot overran — that's the Halyard fleet telemetry deal now."
    assert writes(said) == updated(HALYARD, stage="lost", **{"lost-reason": "pilot overran"})


# --- comparisons that include the number ---


@pytest.mark.parametrize(
    ("said", "op"),
    [
        ("companies with at least 80 employees", "gte"),
        ("companies with at most 80 employees", "lte"),
        ("companies with 80 employees or more", "gte"),
        ("companies with 80 employees or fewer", "lte"),
        ("companies with more than 80 employees", "gt"),
        ("companies with fewer than 80 employees", "lt"),
    ],
)
def test_at_least_and_or_more_include_the_number(said: str, op: str) -> None:
    assert conditions(searched(said)) == [("employees", op, 80)]


def test_a_heading_before_an_email_is_no_part_of_it() -> None:
    made = writes("Quick one after the call: send an email to maren@kelpie.example about berths")
    assert [tool for tool, _ in made] == ["email.send"]
    assert made[0][1]["subject"] == "berths"


def test_a_condition_said_first_is_kept_with_the_list_asked_for_after_it() -> None:
    assert conditions(searched("Over 50 employees: list those companies.")) == [
        ("employees", "gt", 50)
    ]


def test_a_text_value_running_into_another_sentence_is_asked_about_not_written() -> None:
    made, reply = written(
        "set Maren Oyelaran's job title to Head of Fleet. Call me back", EVERYONE, NOW, WS
    )
    assert made == []
    assert reply == "What should job title of Maren Oyelaran be?"
    assert writes("set Maren Oyelaran's job title to Sr. Fleet Manager") == updated(
        MAREN, **{"job-title": "Sr. Fleet Manager"}
    )
