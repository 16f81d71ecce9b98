"""Requests typed under a pasted e-mail, spelled out as numbered steps, or noted with the verb
last (issue 32, item 6): ``offline_paste``. The phrasings and records are this file's own."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from fieldhouse.agents.providers.offline_paste import (
    plain_fragment,
    plain_pasted,
    plain_referred,
    plain_steps,
)
from fieldhouse.agents.providers.offline_schema import builtin
from tests.agents.providers.planner_walk import record, updated, written

NOW = datetime(2026, 11, 28, 10, 0, tzinfo=UTC)  # a Saturday
WS = builtin()
QUAYSIDE = record("deals", "Quayside cold storage", stage="lead")
BRONWEN = record("contacts", "Bronwen Achterberg", emails=["bronwen@ferrol.example"])
ODILE = record("contacts", "Odile Marchetti", **{"do-not-contact": True})
FERROL = record("companies", "Ferrol Shipping")
MARLOW = record("companies", "Marlow Health")  # "health" is also a field's word
LABEL = record("tasks", "Print the pallet labels")
EVERYONE = [QUAYSIDE, BRONWEN, ODILE, FERROL, MARLOW, LABEL]


def writes(message: str) -> list[Any]:
    return written(message, EVERYONE, NOW, WS)[0]


def only_write(message: str) -> dict[str, Any]:
    """The arguments of the one write the message makes."""
    made = writes(message)
    assert len(made) == 1, made
    return dict(made[0][1])


INTRO = (
    "From: Tomasz Wielgus <tomasz.wielgus@ferrol.example>\n"
    "Subject: Hello\n"
    "\n"
    "Good to meet you at the port expo.\n"
    "\n"
    "Kind regards,\n"
    "Tomasz Wielgus\n"
    "Fleet Planner | Ferrol Shipping\n"
    "m: +44 20 7946 0321\n"
    "\n"
)


@pytest.mark.parametrize("request_line", ["Add him as a contact.", "new contact please"])
def test_the_sender_of_a_pasted_email_becomes_a_contact_with_the_signature(
    request_line: str,
) -> None:
    args = only_write(INTRO + request_line)
    assert (args["module"], args["displayName"]) == ("contacts", "Tomasz Wielgus")
    assert args["fields"]["emails"] == ["tomasz.wielgus@ferrol.example"]
    assert args["fields"]["job-title"] == "Fleet Planner"
    assert args["fields"]["company"] == FERROL["recordId"]
    assert args["fields"]["phones"] == ["+442079460321"]


def test_a_number_in_a_pasted_email_goes_on_the_senders_contact() -> None:
    said = (
        "From: Bronwen Achterberg\nSubject: New mobile\n> My new number is +44 20 7946 0999.\n"
        "\nPut that number on her contact."
    )
    assert plain_pasted(said).startswith("Put that number")  # only "add ... to" is read
    said = said.replace("Put that number on her contact.", "Add that number to her contact.")
    assert writes(said) == updated(BRONWEN, phones=["+442079460999"])


def test_look_them_up_under_a_paste_searches_for_the_senders_address() -> None:
    said = "From: bronwen@ferrol.example\nSubject: (none)\n\nno idea who this is, look them up"
    assert plain_pasted(said) == "find bronwen@ferrol.example"


def test_the_request_under_a_forwarded_paste_is_read_alone() -> None:
    said = (
        "--- forwarded ---\nFrom: Odile Marchetti\nSubject: Re: cold storage\n"
        "> Signed and sent back.\n\nQuayside cold storage -> won."
    )
    assert writes(said) == updated(QUAYSIDE, stage="won")


def test_a_description_under_a_paste_is_asked_about_not_created() -> None:
    said = (
        "Subject: New starter\n> Please welcome our new fleet manager.\n--\nFerrol HR\n\n"
        "Add the new fleet manager as a contact."
    )
    assert writes(said) == []


def test_a_first_name_alone_is_the_sender_of_the_paste() -> None:
    said = (
        "From: Bronwen Achterberg\nSubject: rates?\n> could you send the rate card?\n\n"
        'Draft Bronwen an email, subject "Rate card", body "Attached, as promised."'
    )
    assert "Bronwen Achterberg an email" in plain_pasted(said)


def test_a_paste_with_no_request_below_it_is_left_as_it_is() -> None:
    said = "From: Odile Marchetti\nSubject: hi\n> see you Tuesday"
    assert plain_pasted(said) == said


def test_numbered_steps_on_one_record_are_one_update() -> None:
    said = (
        "1. Find the deal Quayside cold storage. 2. Set the win probability to 35. "
        "3. Set the stage to proposal."
    )
    assert writes(said) == updated(QUAYSIDE, probability=35, stage="proposal")


def test_an_unticked_box_in_a_step_is_false_not_ticked() -> None:
    said = "Step one: open the contact Odile Marchetti. Step two: untick Do not contact."
    assert writes(said) == updated(ODILE, **{"do-not-contact": False})


def test_untick_without_steps_is_false_too() -> None:
    assert writes("Untick do not contact on Odile Marchetti.") == updated(
        ODILE, **{"do-not-contact": False}
    )


def test_numbered_steps_that_make_a_record_are_one_create() -> None:
    args = only_write(
        'Steps: 1) New deal. 2) Name: "Ferrol reefer lease". 3) Company: Ferrol Shipping. '
        "4) Amount: 14,500. 5) Win probability: 40."
    )
    assert args["displayName"] == "Ferrol reefer lease"
    assert args["fields"]["company"] == FERROL["recordId"]
    assert args["fields"]["amount"] == {"amount": 14500, "currency": "USD"}
    assert args["fields"]["probability"] == 40


def test_steps_with_no_name_for_the_new_record_ask() -> None:
    said = "Step 1: create a new deal. Step 2: set the amount to 9,000. Step 3: save."
    assert writes(said) == []


def test_a_number_inside_a_step_is_no_step_of_its_own() -> None:
    said = "1. Find the deal Quayside cold storage. 2. Set the amount to 45. 3. Save."
    assert plain_steps(said) == "update deal Quayside cold storage: amount 45"


@pytest.mark.parametrize(
    ("said", "plain"),
    [
        ("1) Open Deals. 2) Filter: Stage is Won. 3) Show me the list.",
             "find Deals where Stage is Won"),
        ("1. Go to Companies 2. keep only those whose Industry is Retail 3. sort them by "
         "Employees, largest first.",
             "find Companies where Industry is Retail, sorted by Employees, largest first"),
    ],
)  # fmt: skip
def test_steps_that_narrow_a_list_are_one_search(said: str, plain: str) -> None:
    assert plain_steps(said) == plain


@pytest.mark.parametrize(
    ("said", "plain"),
    [
        ("Tomasz Wielgus, Fleet Planner, Ferrol Shipping. contact, create.",
             "create contact Tomasz Wielgus, job title Fleet Planner, company Ferrol Shipping"),
        ("Harwick Mills. company. industry retail, 80 staff. add.",
             "create company Harwick Mills, industry retail, 80 staff"),
        ("Task, restock the pallets, Monday, mine.",
             "create a task restock the pallets, Monday, assigned to me."),
        ('Follow-up task "Chase the reefer quote", due Monday.',
             'create a follow-up task "Chase the reefer quote", due Monday.'),
        # not notes: left alone
        ("Find company: ferrol", "Find company: ferrol"),
        ("tasks, mine, open?", "tasks, mine, open?"),
    ],
)  # fmt: skip
def test_a_note_with_its_verb_last_or_none_reads_verb_first(said: str, plain: str) -> None:
    assert plain_fragment(said) == plain


def test_find_company_colon_is_a_search_not_a_create() -> None:
    assert writes("Find company: ferrol") == []


# --- a request that points back into the story before it ---


def test_a_person_met_in_a_story_is_added_with_the_company_they_are_from() -> None:
    args = only_write(
        "Bumped into a nice woman at the port expo, Ines Carvalho from Ferrol Shipping, she "
        "handles their cold chain. Can you add her?"
    )
    assert (args["module"], args["displayName"]) == ("contacts", "Ines Carvalho")
    assert args["fields"]["company"] == FERROL["recordId"]


def test_a_phone_said_about_someone_goes_on_the_new_contact() -> None:
    args = only_write(
        "Ferrol finally named a harbour master; his name is Joao Pires and his phone is "
        "+351 21 555 0101, so add him as a contact at Ferrol Shipping."
    )
    assert args["displayName"] == "Joao Pires"
    assert args["fields"]["phones"] == ["+351215550101"]
    assert args["fields"]["company"] == FERROL["recordId"]


def test_a_company_told_of_is_added_with_its_headcount() -> None:
    args = only_write(
        "Spoke with a new outfit today, Harwick Mills, about 80 people, they weave sailcloth. "
        "Put them in as a company, manufacturing."
    )
    assert (args["module"], args["displayName"]) == ("companies", "Harwick Mills")
    assert args["fields"]["employees"] == 80
    assert args["fields"]["industry"] == "manufacturing"


def test_them_with_no_kind_said_is_left_to_ask() -> None:
    said = "Had lunch with Harwick Mills and Ines Carvalho. Add them."
    assert plain_referred(said) == said


@pytest.mark.parametrize("word", ["from", "at"])
def test_a_new_contact_from_a_company_after_a_colon_gets_that_company(word: str) -> None:
    # the company had been dropped ("from"), or ":" written as the job title ("at")
    args = only_write(f"add a contact: Ines Carvalho {word} Marlow Health")
    assert args["fields"].get("job-title") is None
    assert args["fields"]["company"] == MARLOW["recordId"]


def test_add_the_company_after_notes_creates_the_company_named_in_them() -> None:
    said = (
        "Notes from the port expo: we should go after Harwick Mills. Retail, about 80 staff. "
        "Add the company."
    )
    assert plain_referred(said) == "create a company named Harwick Mills, Retail, 80 employees"


def test_a_first_name_asked_for_is_the_full_name_said_before() -> None:
    said = (
        "Ferrol meeting, attendees: Bronwen and a new face, Ines Carvalho, their Fleet Planner "
        "(ines@ferrol.example). Please add Ines."
    )
    assert plain_referred(said) == (
        "create a contact named Ines Carvalho, job title Fleet Planner, email ines@ferrol.example"
    )
    assert (
        plain_referred("Lunch went well. Please add Ines.") == "Lunch went well. Please add Ines."
    )


def test_someone_wanted_in_as_a_lead_is_a_new_contact_but_wanted_to_call_is_not() -> None:
    said = (
        "Odile met Ines Carvalho, their Fleet Planner (ines@ferrol.example), and wants her in "
        "as a lead."
    )
    assert plain_referred(said) == (
        "create a contact named Ines Carvalho, job title Fleet Planner, email ines@ferrol.example,"
        " lifecycle lead"
    )
    said = "Bronwen rang about the quote from Ferrol Shipping and she wants him to call back."
    assert plain_referred(said) == said


def test_someones_assistant_is_asked_about_not_created_as_a_name() -> None:
    assert writes("add Bronwen Achterberg's assistant as a contact") == []


def test_a_sender_with_no_name_is_not_created_as_one() -> None:
    assert writes("From: unknown\nSubject: x\n\nAdd him as a contact.") == []


@pytest.mark.parametrize(
    "said",
    ["Bronwen Achterberg contact update", "Odile Marchetti, Bronwen Achterberg. contact, update."],
)
def test_the_word_contact_is_the_module_not_the_do_not_contact_box(said: str) -> None:
    # "contact" had been read as the tail of "Do not contact", and ticked it
    assert writes(said) == []
