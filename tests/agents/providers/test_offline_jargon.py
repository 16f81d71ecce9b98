"""Requests in a team's jargon, a legal register, chat with asides and yes/no questions, and
dates said the British way (issue 32, item 6: what blind11's tuning half showed the planner
missing). The phrasings and records are this file's own, not the blind sets'."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from fieldhouse.agents.providers.offline_forms import plain_form
from fieldhouse.agents.providers.offline_register import plain_register
from fieldhouse.agents.providers.offline_schema import builtin
from fieldhouse.agents.providers.offline_values import find_date
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
KELPIE = record("companies", "Kelpie Freight")
ORMOND = record("companies", "Ormond Glassworks")
HALYARD = record("deals", "Halyard fleet telemetry", stage="qualified")
SEXTANT = record("deals", "Sextant renewal", stage="lead")
RIGGING = record("tasks", "Audit the rigging inventory", status="todo", priority="medium")
BUOY = record("tasks", "Repaint the harbour buoys", status="in-progress")
MAREN = record("contacts", "Maren Oyelaran", **{"job-title": "Fleet Manager"})
EVERYONE = [KELPIE, ORMOND, HALYARD, SEXTANT, RIGGING, BUOY, MAREN]


def writes(message: str) -> list[Any]:
    return written(message, EVERYONE, NOW, WS)[0]


def created(message: str) -> dict[str, Any]:
    return the_create(writes(message))


def searched(message: str) -> dict[str, Any]:
    return last_search(walked(message, EVERYONE, NOW, WS)[0])


# --- a team's jargon: a ticket is a task ---


def test_a_ticket_is_a_task() -> None:
    args = created('New ticket: "Splice the mooring lines", priority high, due Friday.')
    assert args["module"] == "tasks"
    assert args["displayName"] == "Splice the mooring lines"
    assert args["fields"]["priority"] == "high"
    assert args["fields"]["due-date"] == "2026-12-04"


def test_a_ticket_thrown_on_the_backlog_is_created_and_an_empty_assignee_left_out() -> None:
    args = created(
        'Throw a ticket on the backlog: "Splice the mooring lines", priority low. No one has '
        "claimed it so leave the assignee blank."
    )
    assert args["displayName"] == "Splice the mooring lines"
    assert args["fields"]["priority"] == "low"
    assert "assignee" not in args["fields"]


def test_tickets_are_listed_as_tasks() -> None:
    args = searched("List the tickets due before next Wednesday.")
    assert args["module"] == "tasks"
    assert conditions(args) == [("due-date", "lt", "2026-12-02")]


def test_a_ticket_asked_for_with_where_is_found_by_what_it_is_about() -> None:
    args = searched("Where's the ticket about the rigging inventory? Find it.")
    assert args["module"] == "tasks"
    assert "rigging inventory" in args["query"].lower()
    assert "where" not in args["query"].lower()


def test_an_escalation_sets_the_priority() -> None:
    said = (
        "Escalate the Audit the rigging inventory ticket to priority urgent, it blocks the release."
    )
    assert writes(said) == updated(RIGGING, priority="urgent")


def test_a_ticket_said_to_be_done_is_marked_done() -> None:
    said = "Shipped: the Repaint the harbour buoys ticket is done, close it out."
    assert writes(said) == updated(BUOY, status="done")


def test_a_heading_before_the_change_is_no_part_of_the_record_name() -> None:
    said = "Notes from the retro: Sextant renewal has moved to proposal. Update the stage."
    assert writes(said) == updated(SEXTANT, stage="proposal")


def test_the_deal_named_in_the_sentence_before_is_the_one_changed() -> None:
    said = "More scope on the Halyard fleet telemetry. Bump the deal amount to 41,000."
    assert writes(said) == updated(HALYARD, amount={"amount": 41000, "currency": "USD"})


def test_a_record_before_a_colon_is_the_one_whose_date_moves() -> None:
    said = "Halyard fleet telemetry: move the expected close date to a week today."
    assert writes(said) == updated(HALYARD, **{"close-date": "2026-12-05"})


# --- chat: what someone adds in passing ---


def test_small_talk_after_a_change_is_left_out() -> None:
    said = "you can move Sextant renewal to qualified, they liked the demo. oh and the pizza's here"
    assert writes(said) == updated(SEXTANT, stage="qualified")


def test_a_new_contact_for_this_one_is_created_with_the_title_said_and_without_the_chat() -> None:
    args = created(
        "you'll want a new contact for this one: Teodor Vasquez from Kelpie Freight, he's "
        "their Harbour Master, teodor@kelpie.example. ugh mondays"
    )
    assert args["displayName"] == "Teodor Vasquez"
    assert args["fields"]["job-title"] == "Harbour Master"
    assert args["fields"]["company"] == KELPIE["recordId"]
    assert args["fields"]["emails"] == ["teodor@kelpie.example"]


def test_a_deal_named_after_the_company_it_is_for_is_created_with_that_name() -> None:
    args = created(
        'btw new deal for Ormond Glassworks, can you call it "Ormond kiln sensors"? 12,000, '
        "lead stage"
    )
    assert args["displayName"] == "Ormond kiln sensors"
    assert args["fields"]["company"] == ORMOND["recordId"]
    assert args["fields"]["stage"] == "lead"


def test_a_reminder_asked_for_with_oh_and_is_set() -> None:
    made = writes("oh and can you ping me Thursday at 4pm about the crane hire")
    assert made == [
        ("reminders.create", {"text": "the crane hire", "dueAt": "2026-12-03T16:00:00+00:00"})
    ]


# --- nothing written on a guess ---


@pytest.mark.parametrize(
    "said",
    [
        "Remind me sometime next week.",
        "Remind me later today",
        "add that woman from the webinar as a contact, btw she's at Kelpie Freight",
    ],
)
def test_a_request_missing_what_it_is_about_asks(said: str) -> None:
    made, reply = written(said, EVERYONE, NOW, WS)
    assert made == []
    assert reply.endswith("?")


@pytest.mark.parametrize(
    "said",
    [
        "Add a contact Inge Halvorsen at Ormond Glassworks; her job title is Kiln Supervisor.",
        "Would you be able to add Inge Halvorsen as a contact at Ormond Glassworks? Her job "
        "title is Kiln Supervisor.",
    ],
)
def test_a_title_said_after_an_add_is_the_new_contacts(said: str) -> None:
    args = created(said)
    assert args["displayName"] == "Inge Halvorsen"
    assert args["fields"]["job-title"] == "Kiln Supervisor"
    assert args["fields"]["company"] == ORMOND["recordId"]


def test_a_title_said_in_passing_after_an_add_is_never_read_as_a_change() -> None:
    said = "Could you add a contact Inge Halvorsen, btw her title is CTO"
    assert plain_register(said) == said


# --- the legal register ---


def test_a_task_required_of_a_type_and_entitled_is_created() -> None:
    args = created(
        "For the avoidance of doubt, I require a new Task of the Meeting type, entitled "
        '"Board minutes review", due tomorrow.'
    )
    assert args["displayName"] == "Board minutes review"
    assert args["fields"]["task-type"] == "meeting"
    assert args["fields"]["due-date"] == "2026-11-29"


def test_a_field_amended_to_read_a_quoted_text_is_set() -> None:
    said = (
        'Please be advised that the deal "Sextant renewal" is recorded wrongly; amend its Lost '
        'reason to read "Chose an in-house tool".'
    )
    assert writes(said) == updated(SEXTANT, **{"lost-reason": "Chose an in-house tool"})


def test_a_task_hereby_to_be_marked_done_is_marked_done() -> None:
    said = (
        'The Task entitled "Audit the rigging inventory" is hereby to be marked as done, the '
        "inventory having been counted."
    )
    assert writes(said) == updated(RIGGING, status="done")


def test_an_email_stating_something_has_it_as_its_body() -> None:
    made = writes(
        'Please send forthwith an e-mail to maren@kelpie.example, subject "Berth allocation", '
        "stating that the berth is confirmed for Tuesday."
    )
    (tool, args), *_ = made
    assert tool == "email.send"
    assert args["subject"] == "Berth allocation"
    assert "Tuesday" in args["body"]


def test_a_list_whose_amount_exceeds_is_a_greater_than_condition() -> None:
    args = searched(
        "Please list every Deal at the stage Qualified, the amount of which exceeds 30,000."
    )
    assert ("amount", "gt", 30000) in conditions(args)
    assert ("stage", "eq", "qualified") in conditions(args)


def test_a_search_of_every_module_for_a_word_in_the_name() -> None:
    made, _ = walked(
        'Locate, across all modules, any record whose name includes the word "renewal".',
        EVERYONE,
        NOW,
        WS,
    )
    assert made and all(tool == "records.search" for tool, _ in made)
    assert {args["module"] for _, args in made} >= {"deals", "tasks", "companies", "contacts"}
    assert all(args["query"].lower() == "renewal" for _, args in made)


# --- yes/no questions around a request ---


def test_a_deal_created_if_it_does_not_exist_yet() -> None:
    args = created(
        'Could you check whether we already have a deal called "Kelpie crane lease" and, if '
        "not, create it for Kelpie Freight at 9,000, stage lead?"
    )
    assert args["displayName"] == "Kelpie crane lease"
    assert args["fields"]["company"] == KELPIE["recordId"]


def test_a_title_checked_then_changed_is_changed() -> None:
    said = (
        "Can you see whether Maren Oyelaran's title is still Fleet Manager, and if so change it "
        "to Head of Fleet?"
    )
    assert writes(said) == updated(MAREN, **{"job-title": "Head of Fleet"})


def test_which_of_the_contacts_at_a_company_are_customers_filters_on_both() -> None:
    made, _ = walked(
        "Can I see which of the contacts at Kelpie Freight are customers?", EVERYONE, NOW, WS
    )
    assert made[0][1] == {"module": "companies", "query": "Kelpie Freight", "limit": 10}
    last = made[-1][1]
    assert ("lifecycle", "eq", "customer") in conditions(last)
    assert last["filters"] == {"company": KELPIE["recordId"]}


def test_a_company_named_as_such_ends_before_the_clause_after_it() -> None:
    made, _ = walked(
        "List all Contacts at the company Kelpie Freight who are tagged Decision maker.",
        EVERYONE,
        NOW,
        WS,
    )
    assert made[0][1]["query"] == "Kelpie Freight"


def test_a_company_created_when_asked_if_there_is_any_way_to() -> None:
    args = created("Is there any way to create a company called Brindle Optics, 40 employees?")
    assert args["displayName"] == "Brindle Optics"
    assert args["fields"]["employees"] == 40


def test_a_task_linked_to_a_deal_is_related_to_it() -> None:
    args = created(
        'Is it possible to log a call task called "Telemetry pricing call" for Monday and link '
        "it to the Halyard fleet telemetry deal?"
    )
    assert args["fields"]["related-deal"] == HALYARD["recordId"]
    assert args["fields"]["task-type"] == "call"


# --- dates, and the order of what is listed ---


@pytest.mark.parametrize(
    ("said", "day"),
    [
        ("a fortnight from today", "2026-12-12"),
        ("in a fortnight", "2026-12-12"),
        ("a week today", "2026-12-05"),
        ("two weeks today", "2026-12-12"),
    ],
)
def test_weeks_and_fortnights_from_today(said: str, day: str) -> None:
    found = find_date(said, NOW.date())
    assert found is not None and found.value.isoformat() == day


def test_a_deal_expected_to_close_a_fortnight_from_today_gets_that_close_date() -> None:
    args = created(
        'New deal "Kelpie dock cameras" for Kelpie Freight, 6k, expected to close a fortnight '
        "from today."
    )
    assert args["fields"]["close-date"] == "2026-12-12"


def test_soonest_first_after_a_date_condition_sorts_by_that_date() -> None:
    args = searched("Deals with a close date after the end of next month, soonest first.")
    assert (args["sortField"], args["sortDirection"]) == ("close-date", "asc")


def test_ordered_by_a_date_earliest_first_is_ascending() -> None:
    args = searched("List all deals ordered by close date, latest first.")
    assert (args["sortField"], args["sortDirection"]) == ("close-date", "desc")


@pytest.mark.parametrize(
    "said",
    [
        "new support ticket: VPN drops every hour",
        "Open a ticket with IT: laptop charger broken",
    ],
)
def test_a_ticket_to_a_support_desk_is_no_task(said: str) -> None:
    made, _ = written(said, EVERYONE, NOW, WS)
    assert made == []


def test_a_form_line_that_asks_for_something_is_the_request_not_a_field() -> None:
    said = (
        "Crane hire\nSubject: crane hire\nWhen: Thursday\nRemind me Thursday at 2:30pm to book it"
    )
    assert plain_form(said) == said  # no "update Crane hire: ..., Remind me Thursday at 2 ..."
    made, _ = written(said, EVERYONE, NOW, WS)
    assert made == []
