"""A change said in no sentence shape the planner reads: the fields and values from the schema,
the record from the names the search finds for the message's words (issue 32, item 6)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from fieldhouse.agents.providers.offline_schema import builtin
from tests.agents.providers.planner_walk import record, walked

NOW = datetime(2026, 11, 28, 10, 0, tzinfo=UTC)
WS = builtin()
EDSGER = record("contacts", "Edsger Dijkstra")
BARBARA = record("contacts", "Barbara Liskov")
GLOBEX = record("companies", "Globex Systems")


def calls(message: str, records: list[dict[str, Any]]) -> tuple[list[Any], str]:
    return walked(message, records, NOW, WS)


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
    made, _ = calls("Alan Kay moved to 12 employees, set that", [GLOBEX])
    assert all(name == "records.search" for name, _ in made)
    made, reply = calls(
        "Barbara and Edsger asked us, so set do-not-contact to true for them",
        [record("contacts", "Barbara"), record("contacts", "Edsger")],
    )
    assert all(name == "records.search" for name, _ in made)
    assert "which record" in reply.lower()


def test_a_module_and_a_quoted_name_alone_look_the_record_up() -> None:
    made, _ = calls("task 'meeting notes for Linus'", [])
    assert made == [
        ("records.search", {"module": "tasks", "limit": 20, "query": "meeting notes for Linus"})
    ]


def test_a_body_said_as_letting_them_know_is_the_body_not_the_subject() -> None:
    made, _ = calls(
        "could you draft an e-mail to mo@globex.example with the subject 'Kickoff', "
        "letting him know that the kickoff moved to March",
        [],
    )
    ((tool, args),) = made
    assert tool == "email.draft"
    assert args["subject"] == "Kickoff"
    assert args["body"].startswith("the kickoff moved to March")


def test_a_request_after_some_context_is_read_from_its_verb() -> None:
    made, _ = calls(
        "The vendor call went long again. Set 'Chase the vendor contract' to blocked.",
        [record("tasks", "Chase the vendor contract")],
    )
    assert made[-1] == (
        "records.update",
        {
            "module": "tasks",
            "recordId": record("tasks", "Chase the vendor contract")["recordId"],
            "fields": {"status": "blocked"},
        },
    )
    # context that gives a value is not left out: the planner asks rather than drop it
    made, _ = calls(
        "Linus said the budget is 30k. Add a deal 'Kiosk phase two' for Globex Systems.",
        [GLOBEX],
    )
    assert all(name == "records.search" for name, _ in made)


def test_pictographs_say_nothing_and_backquotes_quote_a_name() -> None:
    made, _ = calls("new deal 🚀 `Globex kiosk refresh` 12k, proposal 🤞", [])
    ((tool, args),) = [c for c in made if c[0] != "records.search"]
    assert (tool, args["displayName"]) == ("records.create", "Globex kiosk refresh")
    assert args["fields"]["stage"] == "proposal"
    assert args["fields"]["amount"] == {"amount": 12000, "currency": "USD"}


def test_a_quoted_new_name_is_the_quoted_words_only() -> None:
    made, _ = calls(
        "rename the company 'Globex Systems' to 'Globex Systems plc' (as on the contract)",
        [GLOBEX],
    )
    assert all(args.get("displayName") in (None, "Globex Systems plc") for _, args in made), made


def test_a_field_two_modules_have_is_set_on_the_module_of_the_record_found() -> None:
    made, _ = calls(
        "Notes from the fair: Edsger Dijkstra now leads research. Update his title to Head of "
        "Research.",
        [EDSGER],
    )
    assert made[-1] == (
        "records.update",
        {"module": "contacts", "recordId": EDSGER["recordId"],
         "fields": {"job-title": "Head of Research"}},
    )  # fmt: skip


def test_a_number_with_thousands_separators_is_read_whole() -> None:
    made, _ = calls("Globex Systems is hiring. Set its employees to 1,250.", [GLOBEX])
    assert made[-1][1]["fields"] == {"employees": 1250}


def test_a_new_record_for_me_without_a_requester_is_asked_about_not_written() -> None:
    made, reply = calls("create a task 'Send the Globex quote' for me, due tomorrow", [])
    assert made == []
    assert "assignee" in reply.lower()


def test_a_name_said_without_its_accents_or_with_a_slip_is_the_record() -> None:
    renee = record("contacts", "Renée Dubé")
    # the walker's search matches letters as stored, like the list search: "renee" finds nothing
    made, _ = calls("set Renee Dube to customer", [renee, BARBARA])
    assert made[-1] == (
        "records.update",
        {"module": "contacts", "recordId": renee["recordId"], "fields": {"lifecycle": "customer"}},
    )
    made, _ = calls("set Barbra Liskov to customer", [renee, BARBARA])
    assert made[-1][1]["recordId"] == BARBARA["recordId"]
    # a name that is only close to two records is asked about
    liskoe = record("contacts", "Barbara Liskoe")
    made, _ = calls("set Barbara Liskow to customer", [BARBARA, liskoe])
    assert [name for name, _ in made if name != "records.search"] == []


def test_a_title_that_ends_with_a_choice_word_is_the_title_not_the_choice() -> None:
    made, _ = calls("new contact: Ines Duarte, Growth lead, ines@globex.example", [])
    ((tool, args),) = [c for c in made if c[0] != "records.search"]
    assert tool == "records.create"
    assert args["fields"].get("job-title") == "Growth lead"
    assert "lifecycle" not in args["fields"]


def test_a_reason_said_after_a_change_is_not_asked_about() -> None:
    made, _ = calls(
        "please move Edsger Dijkstra to customer, Barbara wants him at the spring dinner",
        [EDSGER],
    )
    assert made[-1][0] == "records.update"
    assert made[-1][1]["fields"] == {"lifecycle": "customer"}
    # a part that changes something more is still asked about
    made, _ = calls("move Edsger Dijkstra to customer, assign Barbara too", [EDSGER])
    assert [name for name, _ in made if name != "records.search"] == []


def test_why_a_list_is_asked_for_is_not_searched_for() -> None:
    made, _ = calls("show me all the companies in retail, I want to plan the spring tour", [])
    (search,) = made
    assert "query" not in search[1]
    made, _ = calls("which deals are in negotiation? we'd like to review them on monday", [])
    (search,) = made
    assert "query" not in search[1]


def test_a_quoted_name_then_a_field_and_its_value_change_that_record() -> None:
    visit = record("tasks", "Plant site visit")
    made, _ = calls("'Plant site visit' status done", [visit])
    assert made[-1] == (
        "records.update",
        {"module": "tasks", "recordId": visit["recordId"], "fields": {"status": "done"}},
    )


def test_can_u_asks_as_can_you_does() -> None:
    made, _ = calls("can u make a task 'Print the Globex badges', due tomorrow", [])
    ((tool, args),) = [c for c in made if c[0] != "records.search"]
    assert (tool, args["displayName"]) == ("records.create", "Print the Globex badges")


def test_set_me_a_reminder_is_a_reminder() -> None:
    made, _ = calls("please set me a reminder for Monday at 10am to call the Globex buyer", [])
    ((tool, args),) = made
    assert tool == "reminders.create"
    assert args["dueAt"].startswith("2026-11-30T10:00")
    assert "call the Globex buyer" in args["text"]
