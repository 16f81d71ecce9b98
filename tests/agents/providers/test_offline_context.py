"""Messages that say some context before the request, and names the schema cannot read but the
workspace's records can (issue 32, item 6): the request clause is read alone when the context
adds nothing to it, and words no field took are looked up as the record a reference points to."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from fieldhouse.agents.providers.offline_plans import plan_for
from fieldhouse.agents.providers.offline_schema import builtin
from tests.agents.providers.planner_walk import READS, record, walk, written

NOW = datetime(2026, 11, 28, 10, 0, tzinfo=UTC)
WS = builtin()
MIGRATION = record("deals", "Contoso records migration")
TAILSPIN = record("companies", "Tailspin Finance")
PORTAL = record("deals", "Wide World import portal")


def writes(message: str, records: list[dict[str, Any]]) -> tuple[list[Any], str]:
    return written(message, records, NOW, WS)


def test_a_request_after_context_that_gives_no_value_is_read_alone() -> None:
    made, _ = writes(
        "Contoso just confirmed on the phone, move Contoso records migration to won", [MIGRATION]
    )
    assert made == [
        (
            "records.update",
            {"module": "deals", "recordId": MIGRATION["recordId"], "fields": {"stage": "won"}},
        )
    ]


def test_context_that_says_more_of_the_name_is_not_dropped() -> None:
    made, _ = writes(
        "Customer Ada says her colleague Priya Raman joined Fabrikam Software as QA Lead. "
        "Please add Priya as a contact.",
        [],
    )
    assert made == []  # not a contact named "Priya" alone


def test_a_request_that_names_nothing_keeps_the_context_with_the_name() -> None:
    edsger = record("contacts", "Edsger Dijkstra")
    made, _ = writes(
        "Edsger Dijkstra signed last week, so update the lifecycle to customer", [edsger]
    )
    assert made[-1][1]["recordId"] == edsger["recordId"]


def test_words_no_field_took_are_the_record_a_reference_points_to() -> None:
    made, _ = writes(
        "Katherine from Tailspin mentioned a second project on the call. Log a deal "
        "'Tailspin compliance audit' for Tailspin Finance at stage lead.",
        [TAILSPIN],
    )
    assert made == [
        (
            "records.create",
            {
                "module": "deals",
                "displayName": "Tailspin compliance audit",
                "fields": {
                    "stage": "lead",
                    "name": "Tailspin compliance audit",
                    "company": TAILSPIN["recordId"],
                },
            },
        )
    ]
    made, _ = writes(
        "create an urgent task 'Fix the login bug' on the Wide World import portal deal", [PORTAL]
    )
    assert made[0][1]["fields"]["related-deal"] == PORTAL["recordId"]


def test_words_that_name_no_record_are_asked_about() -> None:
    made, reply = writes(
        "Log a deal 'Tailspin compliance audit' for Tailspin Finance at stage lead", []
    )
    assert made == []
    assert "which one" in reply.lower()


def test_a_pronoun_after_context_is_the_one_record_whose_whole_name_was_said() -> None:
    frances = record("contacts", "Frances Allen")
    made, _ = writes(
        "Frances Allen asked to unsubscribe from everything. Mark her as do not contact.",
        [frances, record("contacts", "Ada Lovelace")],
    )
    assert made == [
        (
            "records.update",
            {
                "module": "contacts",
                "recordId": frances["recordId"],
                "fields": {"do-not-contact": True},
            },
        )
    ]
    made, _ = writes(
        "Good morning, and apologies for the long message. As you may recall, the Contoso "
        "records migration has been dragging on for weeks, but they have finally signed. "
        "Would you be so good as to mark it as won?",
        [MIGRATION, record("deals", "Contoso data science seats")],
    )
    assert made == [
        (
            "records.update",
            {"module": "deals", "recordId": MIGRATION["recordId"], "fields": {"stage": "won"}},
        )
    ]


def test_a_value_said_as_what_someone_now_is_sets_it() -> None:
    katherine = record("contacts", "Katherine Johnson")
    made, _ = writes(
        "Katherine Johnson said she really wants to buy from us, so she's not just a lead "
        "anymore, she's qualified. Can you fix that?",
        [katherine],
    )
    assert made == [
        (
            "records.update",
            {
                "module": "contacts",
                "recordId": katherine["recordId"],
                "fields": {"lifecycle": "qualified"},
            },
        )
    ]


def test_a_first_name_alone_is_the_person_only_when_one_fits() -> None:
    message = "Customer Ada says her title changed to VP Engineering. Please update her record."
    ada = record("contacts", "Ada Lovelace")
    made, _ = writes(message, [ada])
    assert made == [
        (
            "records.update",
            {
                "module": "contacts",
                "recordId": ada["recordId"],
                "fields": {"job-title": "VP Engineering"},
            },
        )
    ]
    made, reply = writes(message, [ada, record("contacts", "Ada Yonath")])
    assert made == []
    assert "which record" in reply.lower()


def test_a_request_asked_politely_inside_a_sentence_is_read_from_its_verb() -> None:
    pilot = record("deals", "Litware pilot")
    made, _ = writes(
        "Dear colleague, I hope your weekend was restful. Would it be possible to rename the "
        "deal 'Litware pilot' to 'Litware pilot phase 1'? It would make our reporting clearer.",
        [pilot],
    )
    assert made == [
        (
            "records.update",
            {
                "module": "deals",
                "recordId": pilot["recordId"],
                "displayName": "Litware pilot phase 1",
            },
        )
    ]


def test_put_or_record_a_new_record_creates_it() -> None:
    made, _ = writes("Please put in a follow-up task 'Send the notes to Mary', due on Friday.", [])
    assert [(name, args["displayName"]) for name, args in made] == [
        ("records.create", "Send the notes to Mary")
    ]


def test_a_number_with_the_unit_it_counts_is_that_field() -> None:
    made, _ = writes("add company harbor & pine, theyre retail, about 150 ppl", [])
    assert made[0][1]["fields"]["employees"] == 150
    assert made[0][1]["fields"]["industry"] == "retail"


def test_a_name_with_a_slip_is_looked_up_by_its_first_letters() -> None:
    northwind = record("companies", "Northwind Traders")
    plan = plan_for("pull up Northwnd Traders", NOW, WS)
    assert plan is not None
    made, _ = walk(plan, [northwind, record("companies", "Northern Lights")])
    assert made[-1] == (
        "records.search",
        {"module": "companies", "query": "Northwind Traders", "limit": 10},
    )


def test_an_email_to_a_first_name_at_a_company_goes_to_the_one_person_of_that_name() -> None:
    message = (
        "Send Barbara at Fabrikam a short note, subject 'Architecture review', "
        "body 'Can we move the architecture review to Thursday?'"
    )
    barbara = record("contacts", "Barbara Liskov", emails=["barbara.liskov@fabrikam.example"])
    made, _ = writes(message, [barbara])
    assert [(name, args["to"]) for name, args in made] == [
        ("email.send", ["barbara.liskov@fabrikam.example"])
    ]
    other = record("contacts", "Barbara Walters", emails=["bw@example.com"])
    made, _ = writes(message, [barbara, other])
    assert made == []


def test_a_mention_with_an_at_sign_is_the_name() -> None:
    radia = record("contacts", "Radia Perlman")
    made, _ = writes("@Radia Perlman new title: Principal Network Architect 👏", [radia])
    assert made == [
        (
            "records.update",
            {
                "module": "contacts",
                "recordId": radia["recordId"],
                "fields": {"job-title": "Principal Network Architect"},
            },
        )
    ]


def test_the_value_a_record_had_is_no_part_of_its_name() -> None:
    shafi = record("contacts", "Shafi Goldwasser")
    made, _ = writes("Move Shafi Goldwasser from lead to qualified", [shafi])
    assert made == [
        (
            "records.update",
            {
                "module": "contacts",
                "recordId": shafi["recordId"],
                "fields": {"lifecycle": "qualified"},
            },
        )
    ]


def test_the_words_that_introduce_a_new_name_are_not_part_of_it() -> None:
    made, _ = writes("Add a new person please: Tom Becker, his email is tom@adventure.example.", [])
    assert [(name, args["displayName"]) for name, args in made] == [
        ("records.create", "Tom Becker")
    ]
    made, _ = writes("please make new contact, name is Maria Lopez", [])
    assert [(name, args["displayName"]) for name, args in made] == [
        ("records.create", "Maria Lopez")
    ]


def test_a_record_name_with_a_field_word_in_it_is_a_name() -> None:
    contoso = record("companies", "Contoso Health")
    plan = plan_for("list every contact we have at Contoso Health", NOW, WS)
    assert plan is not None
    made, _ = walk(plan, [contoso])
    assert made[-1][1]["module"] == "contacts"
    assert made[-1][1]["filters"] == {"company": contoso["recordId"]}


def test_a_value_in_the_unit_a_field_counts_is_that_field() -> None:
    tailspin = record("deals", "Tailspin analytics")
    made, _ = writes("bump tailspin analytics to 40 percent", [tailspin])
    assert made == [
        (
            "records.update",
            {"module": "deals", "recordId": tailspin["recordId"], "fields": {"probability": 40}},
        )
    ]


def test_a_name_before_as_a_module_then_a_semicolon_is_the_new_name() -> None:
    made, _ = writes("Add Lucia Moreno as a contact; email lucia@moreno.example", [])
    assert [(name, args["displayName"]) for name, args in made] == [
        ("records.create", "Lucia Moreno")
    ]


def test_a_field_said_with_more_words_is_the_one_field_named_in_them() -> None:
    northwind = record("companies", "Northwind Traders")
    made, _ = writes("Set Northwind Traders' health rating to 5", [northwind])
    assert made == [
        (
            "records.update",
            {"module": "companies", "recordId": northwind["recordId"], "fields": {"health": 5}},
        )
    ]


def test_an_old_value_an_arrow_and_a_new_one_set_the_new_one() -> None:
    review = record("deals", "Tailspin security review")
    made, _ = writes(
        "Tailspin security review: amount 6k -> 9.5k, stage lead -> qualified.", [review]
    )
    assert made == [
        (
            "records.update",
            {
                "module": "deals",
                "recordId": review["recordId"],
                "fields": {
                    "amount": {"amount": 9500, "currency": "USD"},
                    "stage": "qualified",
                },
            },
        )
    ]


def test_a_name_said_in_words_not_understood_is_looked_up_and_nothing_changes() -> None:
    margaret = record("contacts", "Margaret Hamilton")
    plan = plan_for("where I find Margaret Hamilton?", NOW, WS)
    assert plan is not None
    made, _ = walk(plan, [margaret])
    assert (
        "records.search",
        {"module": "contacts", "query": "Margaret Hamilton", "limit": 10},
    ) in made
    assert all(name in READS for name, _ in made)
