"""A new record's name said before its module word with details after a comma, or after
"named" further on than what the record is for (issue 32, item 6)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from fieldhouse.agents.providers.offline_schema import builtin
from tests.agents.providers.planner_walk import record, walked

NOW = datetime(2026, 11, 28, 10, 0, tzinfo=UTC)
WS = builtin()


def calls(message: str, records: list[dict[str, Any]]) -> list[Any]:
    return walked(message, records, NOW, WS)[0]


def test_a_name_before_the_module_word_with_details_after_a_comma() -> None:
    made = calls("Add Harrowgate Tiles as a company, healthcare", [])
    assert made[-1] == (
        "records.create",
        {
            "module": "companies",
            "displayName": "Harrowgate Tiles",
            "fields": {"industry": "healthcare", "name": "Harrowgate Tiles"},
        },
    )


def test_a_deal_for_a_company_named_further_on_takes_that_name() -> None:
    umbra = record("companies", "Umbra Freight")
    made = calls("Log a deal for Umbra Freight named Umbra cold chain pilot", [umbra])
    assert made[-1][0] == "records.create"
    assert made[-1][1]["displayName"] == "Umbra cold chain pilot"
    assert made[-1][1]["fields"]["company"] == umbra["recordId"]


def test_a_new_record_asked_for_mid_sentence_is_a_create_not_a_filtered_list() -> None:
    made = calls("Would you slip a new company in for me: Tarnwick Mills, healthcare.", [])
    assert made[-1][0] == "records.create"
    assert made[-1][1]["displayName"] == "Tarnwick Mills"
    assert made[-1][1]["fields"]["industry"] == "healthcare"


def test_a_question_about_new_records_creates_nothing() -> None:
    made = calls("Did someone put in a new company in healthcare?", [])
    assert all(name == "records.search" for name, _ in made)


def test_a_person_described_not_named_is_asked_for_by_name() -> None:
    # "the booth lead" says who it is, not what they are called: nothing is created
    kestrel = record("companies", "Kestrel Freight")
    made = calls("Add the booth lead from Kestrel Freight.", [kestrel])
    assert not [c for c in made if c[0] == "records.create"]


def test_a_filler_word_inside_a_deals_capitalised_name_stays_in_its_look_up() -> None:
    # "Works" is a filler word ("works at"), but inside "Adventure Works ..." it is the name's
    deal = record("deals", "Quarry Works kiln upgrade")
    made = calls(
        "Add a task 'Book the kiln survey', due Friday, for the Quarry Works kiln upgrade deal",
        [deal],
    )
    looked = {"module": "deals", "query": "quarry works kiln upgrade", "limit": 10}
    assert ("records.search", looked) in made
    assert made[-1][0] == "records.create"
    assert made[-1][1]["fields"]["related-deal"] == deal["recordId"]
