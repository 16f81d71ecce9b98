"""Requests dictated with spoken punctuation or said over a radio net (issue 32, item 6: what
blind12's tuning half showed the planner missing): ``offline_spoken``. The phrasings and
records are this file's own, not the blind sets'."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from fieldhouse.agents.providers.offline_schema import builtin
from fieldhouse.agents.providers.offline_spoken import plain_dictated, plain_radio
from tests.agents.providers.planner_walk import record, updated, written

NOW = datetime(2026, 11, 28, 10, 0, tzinfo=UTC)  # a Saturday
WS = builtin()
KELPIE = record("companies", "Kelpie Freight", employees=80)
MAREN = record(
    "contacts", "Maren Oyelaran", emails=["maren@kelpie.example"], **{"job-title": "Fleet Manager"}
)
EVERYONE = [KELPIE, MAREN]


def writes(message: str) -> list[Any]:
    return written(message, EVERYONE, NOW, WS)[0]


# --- dictation ---


def test_spoken_punctuation_addresses_and_homophones_are_written() -> None:
    said = (
        "new contact colon teodor vasquez comma harbour master at kelpie freight period his "
        "email is teodor dot vasquez at kelpie dot example period"
    )
    assert plain_dictated(said) == (
        "new contact: teodor vasquez, harbour master at kelpie freight. his email is "
        "teodor.vasquez@kelpie.example."
    )
    assert plain_dictated("new task colon splice the lines comma dew friday comma hi priority") == (
        "new task: splice the lines, due friday, high priority"
    )


def test_a_quote_opened_and_closed_aloud_is_the_value() -> None:
    said = "set maren oyelaran's title to open quote head of fleet close quote period"
    assert writes(said) == updated(MAREN, **{"job-title": "head of fleet"})


def test_a_typed_message_is_not_read_as_dictated() -> None:
    said = "Set the period of the Halyard fleet telemetry deal, comma or not"
    assert plain_dictated(said) == said


# --- radio procedure ---


def test_radio_words_spelling_and_digits_go() -> None:
    said = (
        "Fieldhouse, this is Alex, over. Request new contact: Teodor Vasquez, Victor Alpha "
        "Sierra, Harbour Master at Kelpie Freight. How copy? Over."
    )
    assert plain_radio(said) == ("new contact: Teodor Vasquez, Harbour Master at Kelpie Freight.")
    assert (
        plain_radio("Kelpie Freight: employees nine five. Over.") == "Kelpie Freight: employees 95."
    )


def test_a_record_then_its_fields_over_the_radio_is_changed() -> None:
    assert writes("Kelpie Freight: employees nine five. Over.") == updated(KELPIE, employees=95)


def test_a_title_now_said_over_the_radio_has_no_now_in_it() -> None:
    said = "Maren Oyelaran, job title now Head of Fleet. Over."
    assert writes(said) == updated(MAREN, **{"job-title": "Head of Fleet"})


def test_a_message_that_only_mentions_over_is_no_radio_call() -> None:
    said = "List deals over 50k"
    assert plain_radio(said) == said
