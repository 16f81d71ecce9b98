"""How the offline planner reads values: each field type says how a value of it is spoken
(``FieldType.spoken``), and the planner reads a web address, an amount, a choice or a date by
that, asking instead of writing when words are left that it did not read."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, get_args

import pytest

from fieldhouse.agents.providers.offline_plans import plan_for
from fieldhouse.agents.providers.offline_schema import Workspace, builtin
from fieldhouse.model.fields import FIELD_TYPES
from fieldhouse.model.fields.base import Spoken
from tests.agents.providers.planner_walk import record, walk, writes

#: a Saturday
NOW = datetime(2026, 11, 28, 10, 0, tzinfo=UTC)
VENUES = {
    "slug": "venues",
    "name": "Venues",
    "fields": [
        {"slug": "title", "label": "Venue", "dataType": "text", "config": {"isDisplayField": True}},
        {"slug": "homepage", "label": "Homepage", "dataType": "url", "config": {}},
        {"slug": "size", "label": "Size", "dataType": "select", "config": {"options": [
            {"value": "small", "label": "Small"}, {"value": "large", "label": "Large"},
        ]}},
        {"slug": "fee", "label": "Fee", "dataType": "currency", "config": {}},
        {"slug": "setup", "label": "Setup time", "dataType": "duration", "config": {}},
    ],
}  # fmt: skip
WS = Workspace((*builtin().modules, *Workspace.from_modules([VENUES]).modules))
HALL = record("venues", "Harbour Hall")


def calls(message: str, records: list[dict[str, Any]] | None = None) -> tuple[list[Any], str]:
    made = plan_for(message, NOW, WS)
    assert made is not None, message
    return walk(made, records or [])


def test_every_field_type_says_how_the_planner_reads_it() -> None:
    spoken = {t.data_type: t.spoken for t in FIELD_TYPES.values()}
    assert set(spoken.values()) <= {*get_args(Spoken), None}
    venues = WS.module("venues")
    assert venues is not None
    assert [f.reads for f in venues.fields] == ["text", "url", "choice", "money", None]


def test_a_web_address_goes_to_the_url_field_and_ends_the_name() -> None:
    made = plan_for("add a venue Harbour Hall homepage harbourhall.example, large", NOW, WS)
    assert made is not None
    ((tool, args),) = writes(made)
    assert (tool, args["displayName"]) == ("records.create", "Harbour Hall")
    assert args["fields"] == {
        "title": "Harbour Hall",
        "homepage": "https://harbourhall.example",
        "size": "large",
    }
    made = plan_for(
        "create company Woodgrove Bank website woodgrovebank.com industry financial services",
        NOW,
        WS,
    )
    assert made is not None
    ((_, args),) = writes(made)
    assert args["displayName"] == "Woodgrove Bank"
    assert args["fields"]["website"] == "https://woodgrovebank.com"
    assert args["fields"]["industry"] == "financial-services"


def test_a_choice_said_with_more_changes_sets_each_of_them() -> None:
    made, _ = calls("set Harbour Hall's size to large and its fee to 8000", [HALL])
    assert made[-1] == (
        "records.update",
        {"module": "venues", "recordId": HALL["recordId"],
         "fields": {"size": "large", "fee": {"amount": 8000, "currency": "USD"}}},
    )  # fmt: skip


@pytest.mark.parametrize(
    ("message", "question"),
    [
        # a choice with words beside it the planner did not read
        ("move harbour hall to large for the winter gala", "What should size"),
        # a type the planner does not read from text (a duration)
        ("set harbour hall's setup time to two hours", "What should setup time"),
    ],
)
def test_words_it_cannot_read_for_a_field_are_asked_about(message: str, question: str) -> None:
    made, reply = calls(message, [HALL])
    assert [tool for tool, _ in made if tool != "records.search"] == []
    assert question in reply


def test_a_word_said_matches_its_plural_in_names_so_two_records_are_asked_about() -> None:
    tasks = [record("tasks", "Price the extra sensors"), record("tasks", "Sensor site visit")]
    made = plan_for("Update the sensor task: status=done", NOW, WS)
    assert made is not None
    found, reply = walk(made, tasks)
    assert [tool for tool, _ in found] == ["records.search"]
    assert reply.startswith("Which one do you mean")


def test_a_module_word_that_is_also_a_choice_value_sets_the_value() -> None:
    made = plan_for("Create a to-do task called 'Reconcile won deals' with low priority", NOW, WS)
    assert made is not None
    ((_, args),) = writes(made)
    assert args["fields"]["task-type"] == "to-do" and args["fields"]["priority"] == "low"


def test_a_role_said_after_a_pronoun_is_the_job_title_without_it() -> None:
    made = plan_for("new contact jamie rivera she's the cfo at litware labs", NOW, WS)
    assert made is not None
    found, _ = walk(made, [record("companies", "Litware Labs")])
    assert found[-1][1]["fields"]["job-title"] == "cfo"


@pytest.mark.parametrize(
    ("message", "text", "due"),
    [
        ("remind me tomorrow at eight am to call grace", "call grace", "2026-11-29T08:00:00+00:00"),
        ("remind me in two days at three pm to chase the contract", "chase the contract",
         "2026-11-30T15:00:00+00:00"),
        ("set a reminder for tomorrow 8:30 - prep for the contoso call",
         "prep for the contoso call", "2026-11-29T08:30:00+00:00"),
        ("Reminder in 3 days, 08:30 UTC: renew the budget", "renew the budget",
         "2026-12-01T08:30:00+00:00"),
        ("remember me tomorrow at 10 to call Grace", "call Grace", "2026-11-29T10:00:00+00:00"),
        ("They asked us to call back in 3 days at 14:00; set a reminder 'Call back Ken'",
         "Call back Ken", "2026-12-01T14:00:00+00:00"),
    ],
)  # fmt: skip
def test_a_reminder_time_in_words_or_digits_is_read_and_left_out_of_the_text(
    message: str, text: str, due: str
) -> None:
    made = plan_for(message, NOW, WS)
    assert made is not None
    assert writes(made) == [("reminders.create", {"text": text, "dueAt": due})]


@pytest.mark.parametrize(
    ("message", "fields"),
    [
        ("harbour hall fee 1.2k", {"fee": {"amount": 1200, "currency": "USD"}}),
        ("Harbour Hall size -> large", {"size": "large"}),
        (
            "harbour hall homepage = harbourhall.example",
            {"homepage": "https://harbourhall.example"},
        ),
    ],
)
def test_a_name_a_field_and_a_value_said_tersely_change_the_record(
    message: str, fields: dict[str, Any]
) -> None:
    made, _ = calls(message, [HALL])
    assert made[-1] == (
        "records.update",
        {"module": "venues", "recordId": HALL["recordId"], "fields": fields},
    )


def test_a_list_that_names_a_field_is_not_read_as_a_terse_change() -> None:
    made, _ = calls("tasks that aren't done yet", [record("tasks", "Sensor site visit")])
    assert [tool for tool, _ in made] == ["records.search"]
    assert made[0][1]["module"] == "tasks" and "advancedFilter" in made[0][1]


def test_details_said_as_field_and_value_parts_are_read_by_each_fields_type() -> None:
    made, _ = calls(
        "Create deal 'Contoso imaging archive': company=Contoso Health, amount $1.2M, "
        "stage=lead, close-date 2027-03-31.",
        [record("companies", "Contoso Health")],
    )
    assert made[-1][0] == "records.create"
    assert made[-1][1]["displayName"] == "Contoso imaging archive"
    assert made[-1][1]["fields"] == {
        "name": "Contoso imaging archive",
        "company": record("companies", "Contoso Health")["recordId"],
        "amount": {"amount": 1200000, "currency": "USD"},
        "stage": "lead",
        "close-date": "2027-03-31",
    }


def test_a_quoted_value_of_a_field_is_not_taken_for_the_new_records_name() -> None:
    made, _ = calls(
        "New contact: first-name Oren, last-name Castillo, job-title 'Logistics Coordinator'"
    )
    ((tool, args),) = [call for call in made if call[0] != "records.search"]
    assert (tool, args["displayName"]) == ("records.create", "Oren Castillo")
    assert args["fields"] == {
        "first-name": "Oren",
        "last-name": "Castillo",
        "job-title": "Logistics Coordinator",
    }


@pytest.mark.parametrize(
    "message",
    [
        "new company Fabrikam Robotics (not Software, not Cloud, a third one), industry retail",
        "new company Fabrikam Robotics -- yes, a different one -- industry retail",
        "new company Fabrikam Robotics, industry retail. yes it is a new one, keep it",
    ],
)
def test_an_aside_that_only_makes_sure_is_left_out(message: str) -> None:
    made, _ = calls(message)
    ((tool, args),) = [call for call in made if call[0] != "records.search"]
    assert (tool, args["displayName"]) == ("records.create", "Fabrikam Robotics")
    assert args["fields"]["industry"] == "retail"


def test_a_number_no_field_took_is_the_money_or_asked_about() -> None:
    made, _ = calls("add a venue 'Pier Room', 900")
    assert made[-1][1]["fields"]["fee"] == {"amount": 900, "currency": "USD"}
    made, reply = calls("add a venue 'Pier Room', large, fee 900, 40")
    assert [tool for tool, _ in made if tool != "records.search"] == []
    assert "did not understand '40'" in reply


def test_sentences_that_only_greet_or_thank_are_left_out() -> None:
    made, _ = calls(
        "Good afternoon. I hope all is well. Would you be kind enough to add a venue called "
        "Pier Room? Many thanks. Kind regards."
    )
    assert made[-1][0] == "records.create" and made[-1][1]["displayName"] == "Pier Room"


@pytest.mark.parametrize(
    "message",
    ["Venue: 'Pier Room', large", "venue new: Pier Room / large", "+venue Pier Room, large"],
)
def test_a_module_word_first_then_a_name_is_a_new_record(message: str) -> None:
    made, _ = calls(message)
    assert made[-1] == (
        "records.create",
        {"module": "venues", "displayName": "Pier Room",
         "fields": {"title": "Pier Room", "size": "large"}},
    )  # fmt: skip


def test_a_moment_left_in_an_unquoted_name_is_asked_about() -> None:
    made, reply = calls("crate a meeting task quarterly review w barbara for the 15th next month")
    assert [tool for tool, _ in made if tool != "records.search"] == []
    assert "be called?" in reply


@pytest.mark.parametrize(
    ("message", "field", "direction"),
    [
        ("venues, size = large, sort fee desc", "fee", "desc"),
        ("large venues sorted fee asc", "fee", "asc"),
        ("deals not yet won, soonest close date first", "close-date", "asc"),
    ],
)
def test_a_list_is_sorted_by_the_field_said(message: str, field: str, direction: str) -> None:
    ((tool, args),) = calls(message)[0]
    assert tool == "records.search"
    assert (args["sortField"], args["sortDirection"]) == (field, direction)


@pytest.mark.parametrize(
    ("message", "fields"),
    [
        ("set harbour hall's fee to thirty five k", {"fee": {"amount": 35000, "currency": "USD"}}),
        ("harbour hall fee a hundred k", {"fee": {"amount": 100000, "currency": "USD"}}),
    ],
)
def test_numbers_said_in_words_are_read(message: str, fields: dict[str, Any]) -> None:
    made, _ = calls(message, [HALL])
    assert made[-1] == (
        "records.update",
        {"module": "venues", "recordId": HALL["recordId"], "fields": fields},
    )


def test_a_value_said_inside_a_new_records_name_is_not_dropped() -> None:
    made, reply = calls("add a venue harbour view two hundred thousand dollars rooftop bar")
    assert [tool for tool, _ in made if tool != "records.search"] == []
    assert "did not understand" in reply


def test_a_record_said_to_have_a_number_of_a_field_is_changed() -> None:
    litware = record("companies", "Litware Labs")
    made, _ = calls("Litware Labs has 55 employees now, update that", [litware])
    assert made[-1] == (
        "records.update",
        {"module": "companies", "recordId": litware["recordId"], "fields": {"employees": 55}},
    )


@pytest.mark.parametrize("word", ["empty", "blank", "nothing"])
def test_a_text_said_to_be_empty_is_asked_about_not_written_as_the_word(word: str) -> None:
    deal = record("deals", "Quayside cold storage", stage="lost")
    made = plan_for(f"set the lost reason on Quayside cold storage to {word}", NOW, builtin())
    assert made is not None
    calls, reply = walk(made, [deal])
    assert [tool for tool, _ in calls if tool != "records.search"] == []
    assert "What should lost reason" in reply
