"""Values said by their unit anywhere in a change ("grown to 450 staff", "up to £48,000"), and
the record the message names by its longest name (issue 32, item 6)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from fieldhouse.agents.providers.offline_schema import builtin
from tests.agents.providers.planner_walk import record, walked

NOW = datetime(2026, 11, 28, 10, 0, tzinfo=UTC)
WS = builtin()
INITECH = record("companies", "Initech Holdings")
ROLLOUT = record("deals", "Initech Holdings payroll rollout")


def calls(message: str, records: list[dict[str, Any]]) -> list[Any]:
    return walked(message, records, NOW, WS)[0]


def test_a_count_said_with_its_unit_word_changes_the_named_company() -> None:
    made = calls("Initech Holdings has grown to 450 staff, fix that", [INITECH])
    assert made[-1] == (
        "records.update",
        {"module": "companies", "recordId": INITECH["recordId"], "fields": {"employees": 450}},
    )


def test_a_currency_amount_goes_to_the_deal_named_not_the_company_inside_its_name() -> None:
    made = calls("Raise the Initech Holdings payroll rollout to £48,000", [INITECH, ROLLOUT])
    assert made[-1] == (
        "records.update",
        {
            "module": "deals",
            "recordId": ROLLOUT["recordId"],
            "fields": {"amount": {"amount": 48000, "currency": "GBP"}},
        },
    )


def test_two_records_named_as_long_is_asked_about_not_written() -> None:
    other = record("companies", "Initech Ventures")
    made = calls("Initech Holdings and Initech Ventures grew to 90 staff, update", [INITECH, other])
    assert all(name == "records.search" for name, _ in made)


def test_a_target_read_too_long_still_finds_the_record_whose_whole_name_it_holds() -> None:
    made = calls("Lower the Initech Holdings payroll rollout deal down to £40,000", [ROLLOUT])
    assert made[-1][0] == "records.update"
    assert made[-1][1]["recordId"] == ROLLOUT["recordId"]


def test_a_capitalised_word_left_over_may_be_another_record_so_it_asks() -> None:
    made = calls("Lower the Initech Holdings Berlin payroll deal down to £40,000", [INITECH])
    assert all(name == "records.search" for name, _ in made)


def test_a_unit_word_that_also_names_a_module_still_counts() -> None:
    made = calls("Initech Holdings has grown to 75 people, update it", [INITECH])
    assert made[-1][1]["fields"] == {"employees": 75}
