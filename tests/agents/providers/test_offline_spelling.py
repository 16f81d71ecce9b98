"""Misspelled request words put right before the planner reads them (issue 32, item 6):
``offline_spelling``. The phrasings and records are this file's own."""

from __future__ import annotations

import importlib.resources
from datetime import UTC, datetime
from typing import Any

import pytest

from fieldhouse.agents.providers.offline_schema import builtin
from fieldhouse.agents.providers.offline_spelling import plain_spelling, slips
from tests.agents.providers.planner_walk import record, written

NOW = datetime(2026, 11, 28, 10, 0, tzinfo=UTC)  # a Saturday
WS = builtin()
QUAYSIDE = record("deals", "Quayside cold storage", stage="lead")
BRONWEN = record("contacts", "Bronwen Achterberg", emails=["bronwen@ferrol.example"])
FERROL = record("companies", "Ferrol Shipping")
EVERYONE = [QUAYSIDE, BRONWEN, FERROL]


def writes(message: str) -> list[Any]:
    return written(message, EVERYONE, NOW, WS)[0]


def test_the_word_lists_it_reads_are_where_pyspellchecker_keeps_them() -> None:
    # read by path (a private place of pyspellchecker's, pinned <0.10 in pyproject.toml):
    # this fails when a release moves them
    resources = importlib.resources.files("spellchecker") / "resources"
    for language in ("en", "es", "fr"):
        assert (resources / f"{language}.json.gz").is_file()


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("updaet the stgae of Quayside cold storage to qualifeid", "update the stage of Quayside"
         " cold storage to qualified"),
        ("shwo me all teh dels in lead stgae", "show me all the deals in lead stage"),
        ("ad a compnay Harwick Mills, 45 emplyoees", "ad a company Harwick Mills, 45 employees"),
        ("remnid me tomorow at 9 to call Bronwen", "remind me tomorrow at 9 to call Bronwen"),
        ("chnage the priorty ofthe task to urgnet", "change the priority of the task to urgent"),
        ("pls crate a tsk for nxt monday", "pls create a task for next monday"),
    ],
)  # fmt: skip
def test_misspelled_request_words_are_put_right(typed: str, meant: str) -> None:
    assert plain_spelling(typed, WS) == meant


@pytest.mark.parametrize(
    "typed",
    [
        "The deal is dead, mark it lost",  # English words stay: "dead" is not "deal"
        "add a note: 'Shiping manifset attached'",  # quoted text is as typed
        "find Bronwen Achterberg",  # a name stays
        "Achterberg wants the Quayside file",  # a capitalised first word only by a swap
        "email bronwen@ferrol.example about the crate",  # an address, and a rarer English word
        "amt and abt are shorthand, req too",  # short words: only a swap or a dropped letter
        "c'est le contrat, est-ce que tu peux",  # French words are no slips of English ones
        "prioritise the colour samples, lol",  # British spellings and chat shorthand
    ],
)
def test_words_that_are_no_slips_stay_as_typed(typed: str) -> None:
    assert plain_spelling(typed, WS) == typed


def test_a_misspelled_update_is_made_on_the_record_it_names() -> None:
    made = writes("chnage the stgae of Quayside cold storage to propsal")
    assert made == [
        (
            "records.update",
            {"module": "deals", "recordId": QUAYSIDE["recordId"], "fields": {"stage": "proposal"}},
        )
    ]


def test_a_misspelled_create_makes_the_record_with_its_fields() -> None:
    made = writes("ceate a new compnay Harwick Mills, 45 emplyoees, indsutry retail")
    assert len(made) == 1
    tool, args = made[0]
    assert (tool, args["module"], args["displayName"]) == (
        "records.create",
        "companies",
        "Harwick Mills",
    )
    assert args["fields"]["employees"] == 45
    assert args["fields"]["industry"] == "retail"


def test_slips_counts_a_swap_of_neighbours_as_one() -> None:
    assert slips("taks", "task", 2) == 1
    assert slips("stgae", "stage", 2) == 1
    assert slips("negotation", "negotiation", 2) == 1
    assert slips("deal", "lead", 1) == 2  # past the most: most + 1
