"""Requests said formally, as a correction, typed the quick way or after their reasons, read
as the plain requests they are (issue 32, item 6): ``offline_register`` and the readers it
feeds. Each test fails on the planner before this change."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from fieldhouse.agents.providers.offline_register import plain_register
from fieldhouse.agents.providers.offline_schema import builtin
from tests.agents.providers.planner_walk import record, the_create, walked, written

NOW = datetime(2026, 11, 28, 10, 0, tzinfo=UTC)
WS = builtin()
BEACON = record("deals", "Beacon fleet telematics")
ORLA = record("contacts", "Orla Finnegan")
KESTREL = record("companies", "Kestrel Freight")
AUDIT = record("tasks", "Vendor audit checklist")
EVERYONE = [BEACON, ORLA, KESTREL, AUDIT]


def writes(message: str, records: list[dict[str, Any]] = EVERYONE) -> list[Any]:
    return written(message, records, NOW, WS)[0]


def update(target: dict[str, Any], **fields: Any) -> tuple[str, dict[str, Any]]:
    module = target["moduleSlug"]
    return ("records.update", {"module": module, "recordId": target["recordId"], "fields": fields})


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        # a value said to be wrong, and the right one after it
        ("Orla Finnegan's job title is wrong, it should say Fleet Director.",
         update(ORLA, **{"job-title": "Fleet Director"})),
        ("The Beacon fleet telematics stage looks wrong; it should be proposal, not lead.",
         update(BEACON, stage="proposal")),
        ("Vendor audit checklist shouldn't be low priority, it's high.",
         update(AUDIT, priority="high")),
        # officialese
        ("Kindly note that Ms. Finnegan's job title is hereby amended to Head of Fleet.",
         update(ORLA, **{"job-title": "Head of Fleet"})),
        ("The amount of the Beacon fleet telematics deal is to be revised to 64,000.",
         update(BEACON, amount={"amount": 64000, "currency": "USD"})),
        # the field first, then the record
        ("Probability on the Beacon fleet telematics deal is 35 percent.",
         update(BEACON, probability=35)),
        ("The priority of the task 'Vendor audit checklist' shall be changed from low to urgent.",
         update(AUDIT, priority="urgent")),
        # a promotion said as news
        ("Orla Finnegan's been made Chief Operating Officer, could you update her record?",
         update(ORLA, **{"job-title": "Chief Operating Officer"})),
        # typed the quick way
        ("beacon fleet telematics prob 70% pls", update(BEACON, probability=70)),
    ],
)  # fmt: skip
def test_a_change_said_in_other_words_writes_the_value_meant(
    message: str, expected: tuple[str, dict[str, Any]]
) -> None:
    assert writes(message) == [expected]


def test_a_create_in_the_passive_reads_its_quoted_name_and_its_details() -> None:
    made = writes(
        "A new deal, 'Kestrel cold chain sensors', is to be recorded against Kestrel Freight, "
        "stage qualified."
    )
    assert len(made) == 1
    tool, args = made[0]
    assert (tool, args["module"], args["displayName"]) == (
        "records.create",
        "deals",
        "Kestrel cold chain sensors",
    )
    assert args["fields"]["stage"] == "qualified"
    assert args["fields"]["company"] == KESTREL["recordId"]


def test_an_amount_after_at_is_money_not_a_time_of_day() -> None:
    made = writes("open a deal called 'Kestrel depot pilot' for Kestrel Freight at 18,000")
    assert made[0][1]["fields"]["amount"] == {"amount": 18000, "currency": "USD"}


def test_the_word_that_names_the_kind_of_task_sets_its_type() -> None:
    made = writes("create a to-do called 'Renew the depot lease'")
    assert made[0][1]["fields"]["task-type"] == "to-do"
    made = writes("log a follow-up called 'Chase the depot invoice'")
    assert made[0][1]["fields"]["task-type"] == "follow-up"


def test_asking_for_a_list_is_no_create() -> None:
    assert writes("I need a list of every company in retail.") == []


def test_a_list_asked_for_after_its_reasons_reads_the_request_alone() -> None:
    made, _ = walked(
        "The board meets on Friday and I have to explain what is late, so give me all the tasks "
        "that are overdue.",
        EVERYONE,
        NOW,
        WS,
    )
    assert [(name, args["module"]) for name, args in made] == [("records.search", "tasks")]
    (condition,) = made[0][1]["advancedFilter"]["root"]["conditions"]
    assert (condition["fieldSlug"], condition["operator"]) == ("due-date", "lt")


def test_what_the_person_will_do_next_is_no_part_of_the_value() -> None:
    made = writes(
        "Orla and her team argued about scope for weeks and finally agreed, so please move "
        "Beacon fleet telematics to proposal. I'll send the contract on Monday."
    )
    assert made == [update(BEACON, stage="proposal")]


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("tsks assigned 2 me that r blocked", "tasks assigned to me that are blocked"),
        ("new deal 4 kestrel 20k", "new deal for kestrel 20k"),
        ("remind me in 2 hours to call orla", "remind me in 2 hours to call orla"),
        ("Send 2 copies to Orla", "Send 2 copies to Orla"),  # a capital: not typed the quick way
    ],
)
def test_shorthand_is_read_only_in_a_message_typed_the_quick_way(typed: str, meant: str) -> None:
    assert plain_register(typed) == meant


def test_a_name_that_is_not_said_whole_is_asked_about_not_guessed() -> None:
    # "4" read as "for": a deal for a company, with no name of its own
    assert writes("new deal 4 kestrel freight 20k") == []


def test_a_note_after_a_colon_is_the_body_and_a_word_in_it_is_no_verb() -> None:
    made = writes(
        "send orla@kestrel.example a quick note: the draft contract is ready. subj 'Contract'"
    )
    assert made == [
        (
            "email.send",
            {
                "to": ["orla@kestrel.example"],
                "subject": "Contract",
                "body": "the draft contract is ready",
            },
        )
    ]


@pytest.mark.parametrize(
    ("message", "tool", "args"),
    [
        ("Which reminders are still open for me?", "reminders.list", {"status": "scheduled"}),
        ("shoot orla@kestrel.example an email, subject 'Depot', tell her the depot is ready",
         "email.send",
         {"to": ["orla@kestrel.example"], "subject": "Depot", "body": "the depot is ready"}),
    ],
)  # fmt: skip
def test_everyday_words_for_a_list_or_a_send(message: str, tool: str, args: Any) -> None:
    made, _ = walked(message, EVERYONE, NOW, WS)
    assert made == [(tool, args)]


def test_a_period_without_the_is_still_a_range() -> None:
    made, _ = walked("deals closing in next 30 days", EVERYONE, NOW, WS)
    conditions = made[0][1]["advancedFilter"]["root"]["conditions"]
    assert [(c["fieldSlug"], c["operator"], c["value"]) for c in conditions] == [
        ("close-date", "gte", "2026-11-28"),
        ("close-date", "lte", "2026-12-28"),
    ]


def test_a_person_with_a_role_at_a_company_is_a_new_contact() -> None:
    made = writes("add Nuala Byrne, head of depots at Kestrel Freight")
    assert len(made) == 1
    tool, args = made[0]
    assert (tool, args["module"], args["displayName"]) == (
        "records.create",
        "contacts",
        "Nuala Byrne",
    )
    assert args["fields"]["job-title"] == "head of depots"
    assert args["fields"]["company"] == KESTREL["recordId"]


def test_asking_whether_a_name_is_in_here_looks_it_up() -> None:
    made, _ = walked("is Kestrel Freight already in here?", EVERYONE, NOW, WS)
    assert (
        "records.search",
        {"module": "companies", "query": "Kestrel Freight", "limit": 10},
    ) in made
    assert all(name == "records.search" for name, _ in made)


def test_a_year_said_with_a_date_is_that_year() -> None:
    made = writes(
        "create a deal called 'Kestrel rail spur' for Kestrel Freight, stage lead, with an "
        "expected close date of 31 March 2028."
    )
    assert made[0][1]["fields"]["close-date"] == "2028-03-31"


def test_a_sum_in_dollars_is_the_deal_amount() -> None:
    made = writes("create a deal called 'Kestrel yard lights' for Kestrel Freight, 40000 dollar")
    assert made[0][1]["fields"]["amount"] == {"amount": 40000, "currency": "USD"}


def test_drop_to_a_value_is_a_change_not_a_delete() -> None:
    assert writes("drop the Beacon fleet telematics probability to 10") == [
        update(BEACON, probability=10)
    ]
    assert writes("lower the Beacon fleet telematics probability to 15") == [
        update(BEACON, probability=15)
    ]


@pytest.mark.parametrize(
    ("message", "text", "due"),
    [
        ("Give me a nudge on Monday to ring Orla.", "ring Orla", "2026-11-30T09:00:00+00:00"),
        ("A reminder is to be scheduled for the 1st of next month concerning the depot lease.",
         "the depot lease", "2026-12-01T09:00:00+00:00"),
        ("Kestrel decide after their board meets, so remind me on the 10th of next month at "
         "11:00 to call Orla.", "call Orla", "2026-12-10T11:00:00+00:00"),
    ],
)  # fmt: skip
def test_a_reminder_asked_for_in_other_words(message: str, text: str, due: str) -> None:
    made, _ = walked(message, EVERYONE, NOW, WS)
    assert len(made) == 1 and made[0][0] == "reminders.create"
    assert text in made[0][1]["text"] and made[0][1]["dueAt"] == due


def test_an_order_and_a_bound_said_in_words() -> None:
    made, _ = walked(
        "Please furnish a list of deals valued in excess of 30,000, in descending order of amount.",
        EVERYONE,
        NOW,
        WS,
    )
    ((tool, args),) = made
    assert (tool, args["sortField"], args["sortDirection"]) == ("records.search", "amount", "desc")
    (condition,) = args["advancedFilter"]["root"]["conditions"]
    assert (condition["fieldSlug"], condition["operator"], condition["value"]) == (
        "amount",
        "gt",
        30000,
    )
    made, _ = walked("list the companies by number of employees, most first", EVERYONE, NOW, WS)
    assert (made[0][1]["sortField"], made[0][1]["sortDirection"]) == ("employees", "desc")


def test_a_name_said_before_as_a_contact_is_the_name_and_the_rest_its_details() -> None:
    made = writes(
        "Kindly register Mr. Dara Quinlan as a contact; he holds the position of Depot Manager "
        "at Kestrel Freight."
    )
    ((tool, args),) = made
    assert (tool, args["displayName"]) == ("records.create", "Dara Quinlan")
    assert args["fields"]["job-title"] == "Depot Manager"
    assert args["fields"]["company"] == KESTREL["recordId"]


def test_a_company_record_for_a_name() -> None:
    made = writes("create a company record for Harland Wharf Logistics, industry software")
    assert [args["displayName"] for _, args in made] == ["Harland Wharf Logistics"]
    # an industry the field has no option for is asked about, not dropped
    made, reply = written(
        "create a company record for Harland Wharf Logistics, industry logistics", [], NOW, WS
    )
    assert made == [] and "did not understand 'industry logistics'" in reply


@pytest.mark.parametrize(
    ("message", "title"),
    [
        ("Orla Finnegan got promoted, shes coo now, update her", "coo"),
        ("Orla Finnegan's job is different now, she is the Chief Operating Officer. Can you "
         "change that?", "Chief Operating Officer"),
        ("Had coffee with Orla Finnegan; she is now Head of Fleet. Could you update her title?",
         "Head of Fleet"),
        ("Orla Finnegan let me know that her title is now 'VP of Depots'. Please reflect that.",
         "VP of Depots"),
    ],
)  # fmt: skip
def test_a_new_title_said_in_passing_updates_the_persons_title(message: str, title: str) -> None:
    assert writes(message) == [update(ORLA, **{"job-title": title})]


@pytest.mark.parametrize(
    "message",
    [
        # a second change asked for beside the title: not read as the title alone
        "Orla Finnegan says she's now Chief Operating Officer; please also tag her champion",
        # not a title: a lifecycle, which the title reader leaves alone
        "Orla Finnegan is now a customer, please update her",
    ],
)
def test_the_title_reader_keeps_out_of_other_changes(message: str) -> None:
    assert all("job-title" not in args.get("fields", {}) for _, args in writes(message))


def test_a_phone_number_given_for_the_record_named_first() -> None:
    made = writes("Orla Finnegan gave me her phone number, it's +353 1 555 0142. Can you add it?")
    assert made == [update(ORLA, phones=["+35315550142"])]
    made = writes("Kestrel Freight has a new main line, +12125550188. Please change the phone.")
    assert made == [update(KESTREL, phone="+12125550188")]


def test_a_phone_for_someone_described_at_a_company_is_not_the_companys() -> None:
    made = writes("Our fleet contact at Kestrel Freight changed her number, it's now +12125550190.")
    assert all(args["recordId"] != KESTREL["recordId"] for _, args in made)


def test_an_email_to_him_goes_to_the_one_person_named_before() -> None:
    orla = dict(ORLA, fields={"emails": ["orla@kestrel.example"]})
    made, _ = walked(
        "I promised Orla Finnegan the depot plans; send her an email, subject 'Depot plans', "
        "body 'Attached as promised.'",
        [orla, BEACON],
        NOW,
        WS,
    )
    assert made[-1] == (
        "email.send",
        {"to": ["orla@kestrel.example"], "subject": "Depot plans", "body": "Attached as promised."},
    )


def test_an_email_to_him_after_two_people_is_not_guessed() -> None:
    said = plain_register("Orla Finnegan and Dara Quinlan met, so send him an email about it")
    assert said == "Orla Finnegan and Dara Quinlan met, so send him an email about it"


@pytest.mark.parametrize(
    "message",
    [
        "Have we got anyone at Kestrel Freight on file?",
        "Hi, sorry to bother you, but which of our contacts work at Kestrel Freight? I'd like to "
        "send them a card.",
    ],
)
def test_people_at_a_company_are_its_contacts(message: str) -> None:
    made, _ = walked(message, EVERYONE, NOW, WS)
    assert made[-1] == (
        "records.search",
        {"module": "contacts", "limit": 20, "filters": {"company": KESTREL["recordId"]}},
    )


def test_a_correction_without_commas_keeps_the_last_value() -> None:
    assert writes("uh move the beacon fleet telematics to proposal no wait negotiation") == [
        update(BEACON, stage="negotiation")
    ]


def test_must_be_with_the_old_value_after_it() -> None:
    assert writes("the amount of Beacon fleet telematics must be 40000, not 32000") == [
        update(BEACON, amount={"amount": 40000, "currency": "USD"})
    ]


@pytest.mark.parametrize(
    "message",
    [
        "I have reminders? show me that are not fired yet",
        "show my reminders that haven't fired yet",
        "which reminders haven't gone off",
    ],
)
def test_reminders_that_have_not_fired_are_the_scheduled_ones(message: str) -> None:
    made, _ = walked(message, EVERYONE, NOW, WS)
    assert made == [("reminders.list", {"status": "scheduled"})]


def test_a_message_in_capitals_is_read_in_small_letters_and_now_is_no_part_of_a_value() -> None:
    assert writes("CHANGE ORLA FINNEGAN TITLE TO CEO NOW") == [update(ORLA, **{"job-title": "ceo"})]


def test_a_bare_part_that_is_a_companys_exact_name_is_the_company_not_the_title() -> None:
    made = writes("New contact - Dara Quinlan, dara@kestrel.example, Kestrel Freight")
    ((_, args),) = made
    assert args["fields"]["company"] == KESTREL["recordId"]
    assert "job-title" not in args["fields"]
    made = writes("New contact: Dara Quinlan, dara@kestrel.example, Head of Depots")
    assert made[0][1]["fields"]["job-title"] == "Head of Depots"


def test_a_title_in_or_of_a_company_said_in_one_part_is_the_title_and_the_company() -> None:
    """ "Depot Manager in Kestrel Freight" had been asked about; "CTO of Kestrel Freight" had
    been written whole as the title, without the company."""
    for said in ("Depot Manager in Kestrel Freight", "Depot Manager of Kestrel Freight"):
        ((_, args),) = writes(f"Kindly add one new contact: Mr. Dara Quinlan, {said}.")
        assert args["fields"]["company"] == KESTREL["recordId"], said
        assert args["fields"]["job-title"] == "Depot Manager", said
    # "of" and a capital that names no company: all of it is the title
    ((_, args),) = writes("New contact: Dara Quinlan, dara@kestrel.example, Head of Depots")
    assert args["fields"]["job-title"] == "Head of Depots" and "company" not in args["fields"]


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("Please update Orla Finnegan's designation as Fleet Director.",
         update(ORLA, **{"job-title": "Fleet Director"})),
        ("Is it possible to set the Beacon fleet telematics probability to 45?",
         update(BEACON, probability=45)),
        ("Would it be OK to move Beacon fleet telematics to close won?",
         update(BEACON, stage="won")),
    ],
)  # fmt: skip
def test_another_crms_words_and_polite_questions(
    message: str, expected: tuple[str, dict[str, Any]]
) -> None:
    assert writes(message) == [expected]


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("Maybe bump the Beacon fleet telematics probability up to 60? Only if you think "
         "that's sensible, of course.", update(BEACON, probability=60)),
        ("Sorry to bother you, but I believe the Vendor audit checklist priority should be high "
         "rather than low?", update(AUDIT, priority="high")),
        ("Um, if it's not too much trouble, set Orla Finnegan's job title to Fleet Director, "
         "I think.", update(ORLA, **{"job-title": "Fleet Director"})),
    ],
)  # fmt: skip
def test_a_hedged_change_is_read_without_its_hedges(
    message: str, expected: tuple[str, dict[str, Any]]
) -> None:
    assert writes(message) == [expected]


def test_a_create_asked_as_a_hesitant_question_creates_the_record() -> None:
    made = writes(
        "Um, I think we should probably add a contact? His name is Tomas Brennan, I believe "
        "he's the new Fleet Analyst at Kestrel Freight. Sorry if he's already in there."
    )
    assert len(made) == 1
    tool, args = made[0]
    assert (tool, args["module"], args["displayName"]) == (
        "records.create",
        "contacts",
        "Tomas Brennan",
    )
    assert args["fields"]["job-title"] == "Fleet Analyst"
    assert args["fields"]["company"] == KESTREL["recordId"]


def test_a_choice_left_open_behind_a_hedge_is_still_asked_about() -> None:
    assert (
        writes("Could you set the Beacon fleet telematics amount to 30k? Or 35k, I'm not sure.")
        == []
    )


def test_a_quoted_name_after_its_company_leaves_no_quotes_in_the_company() -> None:
    made = writes("New deal for Kestrel Freight: 'Kestrel yard sensors', 45k, stage qualified.")
    assert len(made) == 1
    _, args = made[0]
    assert args["displayName"] == "Kestrel yard sensors"
    assert args["fields"]["company"] == KESTREL["recordId"]
    assert args["fields"]["amount"] == {"amount": 45000, "currency": "USD"}
    assert args["fields"]["stage"] == "qualified"


TOMAS = record("contacts", "Tomas Brennan", emails=["tomas@kestrel.example"])


@pytest.mark.parametrize(
    "message",
    [
        "help me write a draft to Tomas Brennan, subject 'Depot keys?', asking if he has them",
    ],
)
def test_a_purpose_after_the_subject_is_the_body_not_the_subject_again(message: str) -> None:
    made = writes(message, [*EVERYONE, TOMAS])
    assert made == [
        (
            "email.draft",
            {
                "to": ["tomas@kestrel.example"],
                "subject": "Depot keys?",
                "body": "Asking if he has them.",
            },
        )
    ]


def test_a_bare_sum_before_another_detail_is_a_deals_amount() -> None:
    made = writes("Log a new deal for Kestrel Freight: 'Kestrel yard sensors', 28,000, qualified.")
    assert len(made) == 1
    assert made[0][1]["fields"]["amount"] == {"amount": 28000, "currency": "USD"}


@pytest.mark.parametrize(
    "message",
    [
        # a company's bare 1,200: its employees or its revenue
        "add company Pinecrest Haulage, retail, 1,200, logistics",
        # a deal's bare 60: its amount or its probability
        "Log a new deal for Kestrel Freight: 'Kestrel yard sensors', 60, qualified.",
        # an address no field of a deal takes: not dropped
        "Open a deal for the company of orla@kestrel.example: 'Kestrel yard sensors', 45k, lead.",
    ],
)
def test_a_detail_no_field_surely_takes_is_asked_about(message: str) -> None:
    assert writes(message) == []


@pytest.mark.parametrize(
    ("message", "field", "operator", "value"),
    [
        ("Show the tasks due before the 5th of next month.", "due-date", "lt", "2026-12-05"),
        ("deals closing after the 20th of next month", "close-date", "gt", "2026-12-20"),
    ],
)
def test_a_bound_on_a_day_of_next_month_is_that_day_not_the_month(
    message: str, field: str, operator: str, value: str
) -> None:
    made, _ = walked(message, EVERYONE, NOW, WS)
    conditions = made[0][1]["advancedFilter"]["root"]["conditions"]
    assert [(c["fieldSlug"], c["operator"], c["value"]) for c in conditions] == [
        (field, operator, value)
    ]


@pytest.mark.parametrize(
    ("message", "module", "name", "fields"),
    [
        ("Stick a new company in called Pinecrest Haulage, they are retail", "companies",
         "Pinecrest Haulage", {"industry": "retail"}),
        ("Add Pinecrest Haulage as a company: retail, about 150 people", "companies",
         "Pinecrest Haulage", {"industry": "retail", "employees": 150}),
        ("Can you add a deal called Kestrel depot app for Kestrel Freight at the lead stage?",
         "deals", "Kestrel depot app", {"stage": "lead", "company": KESTREL["recordId"]}),
        ("Can we get a new deal in for Kestrel Freight called Kestrel depot app, worth 15,000?",
         "deals", "Kestrel depot app",
         {"amount": {"amount": 15000, "currency": "USD"}, "company": KESTREL["recordId"]}),
    ],
)  # fmt: skip
def test_a_create_said_in_passing_shapes_is_made_whole(
    message: str, module: str, name: str, fields: dict[str, Any]
) -> None:
    made = writes(message)
    assert len(made) == 1
    tool, args = made[0]
    assert (tool, args["module"], args["displayName"]) == ("records.create", module, name)
    assert {k: args["fields"].get(k) for k in fields} == fields


def test_a_value_of_two_modules_then_a_colon_and_a_persons_name_is_a_contact() -> None:
    made = writes("Add a lead: Tomas Brennan, Fleet Analyst at Kestrel Freight.")
    assert len(made) == 1
    _, args = made[0]
    assert (args["module"], args["displayName"]) == ("contacts", "Tomas Brennan")
    assert args["fields"]["lifecycle"] == "lead"
    # without the colon, or before something that is no person's name: which kind is asked
    assert writes("Add a lead Tomas Brennan, Fleet Analyst at Kestrel Freight.") == []
    assert writes("add a lead: Kestrel depot app") == []


def test_grand_is_a_thousand_and_a_superlative_names_the_field_sorted_by() -> None:
    made, _ = walked("All the deals over fifty grand, biggest first", EVERYONE, NOW, WS)
    args = made[-1][1]
    conditions = args["advancedFilter"]["root"]["conditions"]
    assert [(c["fieldSlug"], c["operator"], c["value"]) for c in conditions] == [
        ("amount", "gt", 50000)
    ]
    assert (args["sortField"], args["sortDirection"]) == ("amount", "desc")
    made, _ = walked("All companies in retail, largest headcount first.", EVERYONE, NOW, WS)
    assert (made[-1][1]["sortField"], made[-1][1]["sortDirection"]) == ("employees", "desc")
    made, _ = walked("companies in retail, lowest health first", EVERYONE, NOW, WS)
    assert (made[-1][1]["sortField"], made[-1][1]["sortDirection"]) == ("health", "asc")
    made = writes("add a deal called Kestrel depot app for Kestrel Freight, 12 grand")
    assert made[0][1]["fields"]["amount"] == {"amount": 12000, "currency": "USD"}


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("Convert Orla Finnegan from lead to qualified.", update(ORLA, lifecycle="qualified")),
        ("Please update the mobile number of Orla Finnegan, it is +353 86 123 4567.",
         update(ORLA, phones=["+353861234567"])),
        ("change the stage of Beacon fleet telematics; it is now proposal",
         update(BEACON, stage="proposal")),
    ],
)  # fmt: skip
def test_a_value_said_after_the_field_and_its_record(
    message: str, expected: tuple[str, dict[str, Any]]
) -> None:
    assert writes(message) == [expected]


def test_a_value_said_to_be_wrong_is_no_new_value() -> None:
    assert writes("update the title of Orla Finnegan, it is wrong") == []
    assert writes("update the title of Orla Finnegan, it is out of date") == []


def test_slang_around_a_request_is_dropped_and_a_w_is_a_won_deal() -> None:
    assert writes("Beacon fleet telematics just closed, that's a W, update the stage") == [
        update(BEACON, stage="won")
    ]
    made, _ = walked("show me every deal that's a W", EVERYONE, NOW, WS)
    assert made[-1][1].get("filters") == {"stage": "won"} or [
        (c["fieldSlug"], c["value"]) for c in made[-1][1]["advancedFilter"]["root"]["conditions"]
    ] == [("stage", "won")]
    assert writes("set Vendor audit checklist to high priority rn, bet") == [
        update(AUDIT, priority="high")
    ]


# --- "needs put in", a verb that books a record, a name after a colon (blind13's tuning half)

NOW_CO = record("companies", "Harrow Instruments")
TILT = record("deals", "Tiltrotor spares", stage="lead")
IDRIS = record("contacts", "Idris Vaughan", emails=["idris.vaughan@harrow.example"])
PEOPLE = [*EVERYONE, NOW_CO, TILT, IDRIS]


def created(message: str) -> dict[str, Any]:
    return the_create(writes(message, PEOPLE))


def test_needs_and_a_participle_is_needs_to_be() -> None:
    """Midland English leaves "to be" out: "needs changed", "needs put in"."""
    assert writes("Orla Finnegan's job title needs changed to Fleet Director.") == [
        update(ORLA, **{"job-title": "Fleet Director"})
    ]
    made = created("New company needs added: Quarry Lane Bakery, retail, 40 employees.")
    assert made["module"] == "companies" and made["displayName"] == "Quarry Lane Bakery"
    assert made["fields"]["employees"] == 40
    made = created("Deal needs started for Kestrel Freight: Kestrel cold chain, 9,000.")
    assert made["displayName"] == "Kestrel cold chain"
    assert made["fields"]["amount"] == {"amount": 9000, "currency": "USD"}
    made = created(
        "Okay so, Nell Parry needs put in as a contact. She's the Buyer at Kestrel Freight."
    )
    assert made["displayName"] == "Nell Parry" and made["fields"]["job-title"] == "Buyer"


def test_a_deal_posted_or_booked_is_created_with_the_name_after_its_colon() -> None:
    made = created("Book a new deal for Harrow Instruments: Harrow calibration kits, USD 12,400.")
    assert made["displayName"] == "Harrow calibration kits"
    assert made["fields"]["amount"] == {"amount": 12400, "currency": "USD"}
    made = created("Post a new deal to the pipeline: Harrow field service, for Harrow Instruments.")
    assert made["displayName"] == "Harrow field service"


def test_a_new_record_named_by_a_clause_is_asked_about() -> None:
    made, reply = written("Can somebody please create the deal I asked for?", PEOPLE, NOW, WS)
    assert made == [] and "called" in reply


def test_what_an_email_asks_said_as_in_the_text() -> None:
    made = writes(
        "Write an email to Idris Vaughan. The subject is 'Fleet renewal', and in the text ask "
        "him whether the pricing works.",
        PEOPLE,
    )
    (draft,) = [args for name, args in made if name == "email.draft"]
    assert draft["subject"] == "Fleet renewal" and "pricing" in draft["body"]


def test_more_of_what_blind13_showed() -> None:
    """An address looked up by "whose email is", "n'at" left out, "draft something to" and
    "email → X" read as an e-mail to X, and "needs knocked down to" / "moved up to" as a
    change (this file's own phrasings)."""
    made, _ = walked("Quick check: whose email is idris.vaughan@harrow.example?", PEOPLE, NOW, WS)
    assert made[0][0] == "records.search"
    assert made[0][1]["query"] == "idris.vaughan@harrow.example"
    made, _ = walked("Find me the company Harrow Instruments n'at.", PEOPLE, NOW, WS)
    assert made[-1][1]["query"] == "Harrow Instruments"
    assert writes("Tiltrotor spares needs moved up to qualified.", PEOPLE) == [
        update(TILT, stage="qualified")
    ]
    assert writes("Harrow Instruments' account health needs knocked down to 2 stars.", PEOPLE) == [
        update(NOW_CO, health=2)
    ]
    for said in (
        "Could you draft something to Idris Vaughan about the spares quote, asking whether he "
        "got it? Draft only.",
        "Draft email → Idris Vaughan. Subj: spares quote. Body: asking whether he got it. "
        "Don't send.",
    ):
        (draft,) = [args for name, args in writes(said, PEOPLE) if name == "email.draft"]
        assert draft["to"] == ["idris.vaughan@harrow.example"], said
        assert "quote" in draft["subject"] and draft["body"].lower().startswith("asking"), said
        assert "draft" not in draft["body"].lower() and "send" not in draft["body"].lower()


@pytest.mark.parametrize(
    "message",
    [
        "Tag Orla Finnegan champion",
        "tag Orla Finnegan with champion",
        "Add the tag champion to Orla Finnegan",
        "Orla Finnegan is our contact on the fleet side, tag her champion",
    ],
)
def test_a_tag_said_with_the_person(message: str) -> None:
    assert writes(message) == [update(ORLA, tags=["champion"])]


def test_a_field_that_dropped_to_a_value_on_a_record_named_first() -> None:
    """The record's name holds a choice's word ("Software"), and no verb opens the message."""
    software = record("companies", "Kestrel Software")
    assert writes("Kestrel Software health dropped to 3 stars.", [software]) == [
        update(software, health=3)
    ]
    # the rule reads capitalised names only: a verb in small letters is no record's name
    assert writes("lower the Kestrel Software health to 3 stars", [software]) == [
        update(software, health=3)
    ]


def test_contacts_without_the_do_not_contact_flag_are_those_where_it_is_not_set() -> None:
    made, _ = walked(
        "Contacts tagged newsletter, but don't include the do-not-contact ones.", EVERYONE, NOW, WS
    )
    assert made[-1][1]["advancedFilter"]["root"]["conditions"][1:] == [
        {"id": "c2", "fieldSlug": "do-not-contact", "operator": "eq", "value": False}
    ]


def test_a_list_of_the_one_worth_an_amount_asks_for_that_amount() -> None:
    made, _ = walked("Which deal is the one worth 76,500?", EVERYONE, NOW, WS)
    assert made[-1][1]["advancedFilter"]["root"]["conditions"] == [
        {"id": "c1", "fieldSlug": "amount", "operator": "eq", "value": 76500}
    ]
    made, _ = walked("deals worth 10k or more", EVERYONE, NOW, WS)
    conditions = made[-1][1]["advancedFilter"]["root"]["conditions"]
    assert [(c["operator"], c["value"]) for c in conditions] == [("gte", 10000)]


def test_the_value_told_after_a_pronoun_and_nothing_more() -> None:
    assert writes("Kestrel Freight's account health is tanking, drop it to 1") == [
        update(KESTREL, health=1)
    ]
    # more told after it: asked about, nothing written
    assert (
        writes("Kestrel Freight's account health is tanking, drop it to 1 and fix the site") == []
    )


def test_contacts_who_asked_not_to_be_contacted_are_those_marked_so() -> None:
    made, _ = walked("List every contact who asked not to be contacted.", EVERYONE, NOW, WS)
    assert made[-1][1]["advancedFilter"]["root"]["conditions"] == [
        {"id": "c1", "fieldSlug": "do-not-contact", "operator": "eq", "value": True}
    ]


def test_a_field_to_the_value_after_an_arrow_on_the_record_named_first() -> None:
    """Charting shorthand: the record, then its field and the value after the arrow; the
    history after it ("Hx: ...") says what was, and changes nothing."""
    said = "Orla Finnegan, \u0394 job title \u2192 Fleet Director. Hx: was Fleet Manager."
    assert writes(said) == [update(ORLA, **{"job-title": "Fleet Director"})]


def test_words_beside_the_company_are_asked_about() -> None:
    """A company looked up with words beside its name finds none: asked, nothing written."""
    # a number beside the name: an amount left unread
    assert writes("CREATE DEAL KESTREL COLD CHAIN FOR KESTREL FREIGHT 88000 LEAD ASAP") == []
    # a person: the words beside their company may be their title
    assert writes("pls add contact @Maya Lindqvist, Head of Sales @ Kestrel Freight") == []


def test_a_text_that_runs_on_into_another_sentence_is_asked_about() -> None:
    """A subject read past its sentence ("... menu. Ask her ...") is not written: asked."""
    from fieldhouse.agents.providers.offline_plans import _run_on

    assert _run_on(("email.draft", {"subject": "tasting menu. Ask her which night works"}))
    assert _run_on(("records.create", {"displayName": ". She is the Fleet Manager"}))
    assert _run_on(("records.create", {"displayName": "St. Louis Freight"})) is None
    # the subject said with a label ends with its sentence; what follows is the body
    assert plain_register("Subject: tasting menu. Ask her which night works.") == (
        "subject 'tasting menu', Asking which night works."
    )
