"""A record described instead of named: looked up by what is said of it, then named (issue
32, item 6: what blind6's tuning half showed the planner missing). The phrasings and records
are this file's own, not the blind sets'."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from fieldhouse.agents.providers.offline_described import described
from fieldhouse.agents.providers.offline_schema import builtin
from tests.agents.providers.planner_walk import last_search, record, updated, walked, written

NOW = datetime(2026, 11, 28, 10, 0, tzinfo=UTC)
WS = builtin()
KELPIE = record("companies", "Kelpie Freight")
ORMOND = record("companies", "Ormond Glassworks")
MAREN = record("contacts", "Maren Oyelaran", company=KELPIE["recordId"], lifecycle="churned")
TOMAS = record("contacts", "Tomas Aldana", company=ORMOND["recordId"], lifecycle="churned")
HALYARD = record(
    "deals",
    "Halyard fleet telemetry",
    stage="qualified",
    company=KELPIE["recordId"],
    contacts=[MAREN["recordId"]],
    amount={"amount": 40000, "currency": "USD"},
)
SEXTANT = record(
    "deals",
    "Sextant renewal",
    stage="lead",
    company=KELPIE["recordId"],
    amount={"amount": 12000, "currency": "USD"},
)
RIGGING = record("tasks", "Audit the rigging inventory", status="blocked")
BUOY = record("tasks", "Repaint the harbour buoys", status="in-progress")
EVERYONE = [KELPIE, ORMOND, MAREN, TOMAS, HALYARD, SEXTANT, RIGGING, BUOY]


def writes(message: str, records: list[dict[str, Any]] = EVERYONE) -> list[Any]:
    return written(message, records, NOW, WS)[0]


def test_the_deal_a_contact_is_on_is_changed() -> None:
    said = "The deal where Maren Oyelaran is the contact: move it to negotiation."
    assert writes(said) == updated(HALYARD, stage="negotiation")


def test_a_deal_said_by_its_amount_and_company_is_changed() -> None:
    assert writes("Mark the 40k Kelpie deal as won.") == updated(HALYARD, stage="won")
    assert writes("Mark the 12k Kelpie deal as won.") == updated(SEXTANT, stage="won")


def test_the_one_task_in_a_state_is_changed() -> None:
    said = "The task that's currently blocked is moving again; set it to in progress."
    assert writes(said) == updated(RIGGING, status="in-progress")


def test_a_company_and_a_state_single_out_a_contact() -> None:
    said = "Tag the Ormond contact who's churned as a champion."
    assert writes(said) == updated(TOMAS, tags=["champion"])


def test_several_or_none_that_fit_are_asked_about_and_nothing_is_written() -> None:
    blocked = [*EVERYONE, record("tasks", "Order new sails", status="blocked")]
    made, reply = written("The task that's blocked: set it to done.", blocked, NOW, WS)
    assert made == [] and "found 2 tasks" in reply and "Which task" in reply
    made, reply = written(
        "The deal where Ines Porto is the contact: move it to won.", EVERYONE, NOW, WS
    )
    assert made == [] and "Which deal do you mean" in reply
    made, reply = written("Mark the 99k Kelpie deal as won.", EVERYONE, NOW, WS)
    assert made == [] and "found 0 deals" in reply


def test_a_described_deal_is_found() -> None:
    made, _ = walked("Pull up the deal that Maren Oyelaran is the contact on.", EVERYONE, NOW, WS)
    assert made[1] == (
        "records.search",
        {"module": "deals", "filters": {"contacts": MAREN["recordId"]}, "limit": 10},
    )
    assert last_search(made)["module"] == "deals"


def test_only_a_description_the_schema_reads_is_taken() -> None:
    for said in (
        "Move Halyard fleet telemetry to won",
        "Create a task for the deal that closes Friday",
        "the deal that we talked about is lost",
        "Show the Kelpie deals",
    ):
        assert described(said, WS) is None, said
    found = described("the task that's done already", WS)
    assert found is not None and found.values == {"status": "done"}
