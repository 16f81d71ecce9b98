"""Spanish and French request words in an English request (issue 32, item 6):
``offline_lexicon``. The phrasings and records are this file's own."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from fieldhouse.agents.providers.offline_lexicon import plain_english
from fieldhouse.agents.providers.offline_schema import builtin
from tests.agents.providers.planner_walk import record, written

NOW = datetime(2026, 11, 28, 10, 0, tzinfo=UTC)  # a Saturday
WS = builtin()
BEACON = record("deals", "Beacon fleet telematics")
ORLA = record("contacts", "Orla Finnegan", emails=["orla@kestrel.example"])
KESTREL = record("companies", "Kestrel Freight")
EVERYONE = [BEACON, ORLA, KESTREL]


def writes(message: str) -> list[Any]:
    return written(message, EVERYONE, NOW, WS)[0]


def test_a_task_asked_for_in_spanish_is_created_with_its_day_and_priority() -> None:
    made = writes("Crea una tarea: revisar el contrato de Kestrel mañana, prioridad alta.")
    assert len(made) == 1
    tool, args = made[0]
    assert (tool, args["module"]) == ("records.create", "tasks")
    assert args["fields"]["priority"] == "high"
    assert args["fields"]["due-date"] == "2026-11-29"


def test_a_french_change_of_a_field_is_made() -> None:
    made = writes("Mets la probabilité du Beacon fleet telematics à 55%, merci.")
    assert made == [
        (
            "records.update",
            {"module": "deals", "recordId": BEACON["recordId"], "fields": {"probability": 55}},
        )
    ]


def test_an_amount_in_thousands_said_in_spanish_is_the_amount() -> None:
    made = writes("Nuevo deal 'Kestrel yard sensors' para Kestrel Freight, 45 mil dólares.")
    assert len(made) == 1
    _, args = made[0]
    assert args["displayName"] == "Kestrel yard sensors"
    assert args["fields"]["amount"] == {"amount": 45000, "currency": "USD"}


def test_a_reminder_at_a_french_hour_on_a_french_day() -> None:
    made = writes("Mets un rappel pour lundi à 14h30 pour relancer Orla.")
    assert len(made) == 1
    tool, args = made[0]
    assert tool == "reminders.create"
    assert args["dueAt"].startswith("2026-11-30T14:30")


def test_the_words_of_an_e_mail_are_sent_as_typed() -> None:
    said = "Envoie un courriel à Orla Finnegan, objet: Visite du site, message: on arrive à 10h."
    assert plain_english(said) == (
        "send a email to Orla Finnegan, subject: Visite du site, message: on arrive à 10h."
    )


def test_an_english_request_with_one_such_word_is_left_as_it_is() -> None:
    for said in (
        "Add a task for Orla: la la land screening, due Friday",
        "Create a contact Juan Del Rio at Kestrel Freight",
        "Set the Beacon fleet telematics stage to proposal, gracias",
    ):
        assert plain_english(said) == said
