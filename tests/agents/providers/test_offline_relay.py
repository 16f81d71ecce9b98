"""Requests relayed for a colleague, or said in a spreadsheet's words (issue 32, item 6):
``offline_relay``. The phrasings and records are this file's own."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from fieldhouse.agents.providers.offline_relay import plain_relayed
from fieldhouse.agents.providers.offline_schema import builtin
from tests.agents.providers.planner_walk import record, updated, written

NOW = datetime(2026, 11, 28, 10, 0, tzinfo=UTC)  # a Saturday
WS = builtin()
QUAYSIDE = record("deals", "Quayside cold storage", stage="lead")
BRONWEN = record("contacts", "Bronwen Achterberg", emails=["bronwen@ferrol.example"])
FERROL = record("companies", "Ferrol Shipping")
LABEL = record("tasks", "Print the pallet labels")
EVERYONE = [QUAYSIDE, BRONWEN, FERROL, LABEL]


def writes(message: str) -> list[Any]:
    return written(message, EVERYONE, NOW, WS)[0]


@pytest.mark.parametrize(
    "said",
    [
        "Tell the CRM that Bronwen Achterberg is now Head of Logistics.",
        "The Ferrol folks told us Bronwen Achterberg's title is now Head of Logistics, please "
        "update it.",
        "Bronwen Achterberg is now Head of Logistics",
    ],
)
def test_a_new_title_passed_on_is_set(said: str) -> None:
    assert writes(said) == updated(BRONWEN, **{"job-title": "Head of Logistics"})


def test_a_task_asked_for_by_a_colleague_is_created_for_the_deal_named() -> None:
    made = writes(
        "Odile from ops said to create a follow-up task on the Quayside cold storage deal: "
        "'Send the revised quote', due Tuesday."
    )
    assert len(made) == 1
    tool, args = made[0]
    assert (tool, args["displayName"]) == ("records.create", "Send the revised quote")
    assert args["fields"]["related-deal"] == QUAYSIDE["recordId"]
    assert args["fields"]["due-date"] == "2026-12-01"


def test_a_change_reported_on_the_phone_is_made_on_the_deal_named() -> None:
    said = (
        "Bronwen just rang. She said the deal is now at proposal, please reflect that on "
        "Quayside cold storage."
    )
    assert writes(said) == updated(QUAYSIDE, stage="proposal")


def test_according_to_a_colleague_a_task_moves() -> None:
    said = "According to Odile, the Print the pallet labels task should be pushed to Friday."
    assert writes(said) == updated(LABEL, **{"due-date": "2026-12-04"})


def test_a_deal_the_boss_asked_for_is_created_for_its_company() -> None:
    made = writes(
        "My boss asked me to get a new deal in: 'Ferrol reefer lease', Ferrol Shipping, 80k."
    )
    assert len(made) == 1
    _, args = made[0]
    assert args["displayName"] == "Ferrol reefer lease"
    assert args["fields"]["company"] == FERROL["recordId"]
    assert args["fields"]["amount"] == {"amount": 80000, "currency": "USD"}


def test_a_row_added_to_a_sheet_is_a_record_with_its_cells() -> None:
    made = writes(
        "Add a row to the Deals sheet: Ferrol dry dock | Ferrol Shipping | Amount 12,000 | "
        "Stage qualified"
    )
    assert len(made) == 1
    _, args = made[0]
    assert (args["module"], args["displayName"]) == ("deals", "Ferrol dry dock")
    assert args["fields"]["company"] == FERROL["recordId"]
    assert args["fields"]["stage"] == "qualified"


def test_a_company_cell_naming_no_company_is_asked_about_not_dropped() -> None:
    # the company's words are in the deal's name too; no company "Ferrol Dredging" exists
    said = "Add a row to Deals: Deal name 'Ferrol Dredging survey', Company Ferrol Dredging"
    assert writes(said) == []


def test_the_old_value_said_beside_the_new_one_is_not_written() -> None:
    said = "I believe the Quayside cold storage amount should be 9,500 rather than 8,000?"
    assert writes(said) == updated(QUAYSIDE, amount={"amount": 9500, "currency": "USD"})


def test_a_cell_changed_from_one_value_to_another_takes_the_new_one() -> None:
    said = "Deals row 'Quayside cold storage': Amount 9000 -> 11000, Win probability 20 -> 35."
    assert writes(said) == updated(
        QUAYSIDE, amount={"amount": 11000, "currency": "USD"}, probability=35
    )


def test_a_ticked_checkbox_on_a_row_sets_the_field() -> None:
    assert writes("Tick the Do not contact checkbox on Bronwen Achterberg's row.") == updated(
        BRONWEN, **{"do-not-contact": True}
    )


def test_a_job_title_at_a_company_that_is_not_there_is_asked_about() -> None:
    # the company is looked up, not written into the title: none is found, so nothing is made
    assert writes("add contact Ilse Vorm, job title Planner at Ravel Freight") == []


@pytest.mark.parametrize(
    ("said", "plain"),
    [
        ("Filter column Amount > 50000 in the Deals sheet.", "deals with Amount > 50000"),
        ("Who does the address bronwen@ferrol.example belong to?", "find bronwen@ferrol.example"),
        ("Move Print the pallet labels to Monday, the printer can't do Friday.",
         "Move Print the pallet labels to Monday"),
        ("the Quayside amount should be 9,500 rather than 8,000",
         "the Quayside amount should be 9,500"),
        ("A new account came in via the web form: Harwick Mills, retail",
         "add a account: Harwick Mills, retail"),
        ("Odile wants to know who has the address bronwen@ferrol.example",
         "find bronwen@ferrol.example"),
        ("Someone in finance wants the Ferrol Shipping account pulled up.",
         "pull up the Ferrol Shipping account."),
        ("Met at the expo: Ilse Vorm, Planner at Ferrol Shipping.",
         "Add Ilse Vorm, Planner at Ferrol Shipping."),
        ("Draft an event follow-up email to Bronwen Achterberg about the expo",
         "Draft an email to Bronwen Achterberg about the expo"),
        ("Where's the Quayside cold storage deal? It's due for renewal.",
         "Where's the Quayside cold storage deal?"),
    ],
)  # fmt: skip
def test_the_request_is_said_plainly(said: str, plain: str) -> None:
    assert plain_relayed(said) == plain


@pytest.mark.parametrize(
    "said",
    [
        "Odile said the Quayside deal looks promising",  # no request in it
        "Add the pallet labels to the checklist",  # no tag and no sheet
        "Set amount to 9000 on Quayside cold storage",
    ],
)
def test_a_message_with_no_frame_stays_as_it_is(said: str) -> None:
    assert plain_relayed(said) == said


@pytest.mark.parametrize(
    "said",
    [
        "Log the shipment as a deal called 'Ferrol reefer lease', amount 8,000.",
        "Book me the lease as a deal: 'Ferrol reefer lease', amount 8,000.",
    ],
)
def test_a_thing_described_then_named_as_a_record_is_created(said: str) -> None:
    made = writes(said)
    assert len(made) == 1
    _, args = made[0]
    assert (args["module"], args["displayName"]) == ("deals", "Ferrol reefer lease")


# --- contrasts: what is not meant is left out ---


def test_a_reason_before_so_is_left_out_and_the_move_made() -> None:
    said = "The printer can't do Friday, so Print the pallet labels moves to Monday."
    assert writes(said) == updated(LABEL, **{"due-date": "2026-11-30"})


def test_what_someone_is_no_longer_is_not_written_what_they_are_now_is() -> None:
    said = "Bronwen Achterberg isn't a subscriber any more, she's a customer now."
    assert writes(said) == updated(BRONWEN, lifecycle="customer")


def test_a_change_said_after_what_is_not_done_is_made() -> None:
    said = "I'm not reopening the Quayside cold storage deal; just change its amount to 7,250."
    assert writes(said) == updated(QUAYSIDE, amount={"amount": 7250, "currency": "USD"})


def test_a_value_said_as_not_meant_is_not_written() -> None:
    made = writes(
        "Add a company called Harwick Mills. Industry retail, not logistics, whatever their "
        "brochure says. 80 employees."
    )
    assert len(made) == 1
    _, args = made[0]
    assert args["fields"]["industry"] == "retail"
    assert args["fields"]["employees"] == 80


def test_the_value_a_new_record_is_already_at_is_written_not_the_one_refused() -> None:
    made = writes(
        "Add a new deal, 'Ferrol reefer lease', for Ferrol Shipping at 8,000. Don't put it at "
        "lead, it's already qualified."
    )
    assert len(made) == 1
    _, args = made[0]
    assert args["fields"]["stage"] == "qualified"


@pytest.mark.parametrize(
    ("said", "plain"),
    [
        ("Show my reminders, not the ones that already went off, only those still pending.",
         "Show my reminders, only those still pending."),
        ("Draft, don't send, an email to bronwen@ferrol.example about rates",
         "Draft an email to bronwen@ferrol.example about rates"),
        ("Print the pallet labels got pushed to Monday, slay",
         "move Print the pallet labels to Monday"),
        ("Add Harwick Mills as a client company: retail, 80 people",
         "Add Harwick Mills as a company: retail, 80 people"),
        ("Is there a candidate called Odile in here somewhere?", "find contact Odile"),
        ("Kindly prepone the Print the pallet labels task to Monday.",
         "Kindly move the Print the pallet labels task to Monday."),
        ("Close the activity Print the pallet labels", "Close the task Print the pallet labels"),
        ("Could you set up a company for Harwick Mills? Retail.",
         "Could you set up a company called Harwick Mills? Retail."),
        ("Bronwen Achterberg's a proper customer now, not just a lead",
         "mark Bronwen Achterberg as customer"),
        ("Show every lead (the people, not the deals).", "Show every lead."),
        ("Newsletter-tagged contacts", "contacts tagged Newsletter"),
        ("Do we have a firm named Harwick Mills on file?", "find company Harwick Mills"),
    ],
)  # fmt: skip
def test_what_is_not_asked_for_is_left_out(said: str, plain: str) -> None:
    assert plain_relayed(said) == plain
