"""The offline planner reads an e-mail by its slots, in any order: the verb (send, or draft and
its kin), the addresses (copied ones apart, addresses said aloud too), the subject and the body;
a contact said by name is looked up for their address. Without a subject, or without a word for
send or draft, it asks: an e-mail that goes out cannot be taken back."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from fieldhouse.agents.providers.offline_plans import plan_for
from tests.agents.providers.planner_walk import record, walk, writes

NOW = datetime(2026, 11, 28, 10, 0, tzinfo=UTC)


def mail(message: str) -> list[Any]:
    made = plan_for(message, NOW)
    assert made is not None, message
    return writes(made)


@pytest.mark.parametrize(
    ("message", "tool", "args"),
    [
        ("send tim@wide.example a quick note saying thanks for the call, subject thanks",
         "email.send", {"to": ["tim@wide.example"], "subject": "thanks",
                        "body": "thanks for the call"}),
        ("Draft email to leslie@contoso.example cc grace@contoso.example, subject 'Cutover', "
         "body 'Window is Sat 02:00.'", "email.draft",
         {"to": ["leslie@contoso.example"], "cc": ["grace@contoso.example"],
          "subject": "Cutover", "body": "Window is Sat 02:00."}),
        ("Email draft -> mary@wide.example; subject: QA report; body: please send the report.",
         "email.draft", {"to": ["mary@wide.example"], "subject": "QA report",
                         "body": "please send the report"}),
        ("send an email to kat dot j at tailspin dot example subject demo body ready next week",
         "email.send", {"to": ["kat.j@tailspin.example"], "subject": "demo",
                        "body": "ready next week"}),
        ("send ada@fab.example the message 'Workshop moved' with subject 'Workshop'",
         "email.send", {"to": ["ada@fab.example"], "subject": "Workshop",
                        "body": "Workshop moved"}),
    ],
)  # fmt: skip
def test_an_email_is_read_by_its_slots(message: str, tool: str, args: dict[str, Any]) -> None:
    assert mail(message) == [(tool, args)]


def test_a_contact_said_by_name_is_looked_up_for_their_address() -> None:
    made = plan_for("email radia perlman um just draft it don't send subject design workshop", NOW)
    assert made is not None
    radia = record("contacts", "Radia Perlman", emails=["radia@northwind.example"])
    calls, _ = walk(made, [radia, record("contacts", "Radia Smith")])
    assert calls[0] == (
        "records.search",
        {"module": "contacts", "query": "radia perlman", "limit": 50},
    )
    assert calls[-1] == (
        "email.draft",
        {
            "to": ["radia@northwind.example"],
            "subject": "design workshop",
            "body": "design workshop",
        },
    )


@pytest.mark.parametrize(
    ("message", "question"),
    [
        ("an e-mail to x@y.example, subject Launch, body see you", "send that e-mail now, or keep"),
        ("draft an email to x@y.example subject", "What should the e-mail's subject be?"),
    ],
)
def test_without_a_subject_or_a_verb_it_asks(message: str, question: str) -> None:
    made = plan_for(message, NOW)
    assert made is not None
    calls, reply = walk(made)
    assert calls == []
    assert question in reply


def _mailed(message: str, people: list[dict[str, Any]]) -> Any:
    made = plan_for(message, NOW)
    assert made is not None, message
    calls, _ = walk(made, people)
    return calls[-1]


ODILE = record("contacts", "Odile Marchetti", emails=["odile@ferrol.example"])


def test_a_quoted_subject_and_the_body_said_after_it_are_two_slots() -> None:
    # the subject had run to the end: "Rates' and a short body thanking her ..."
    said = (
        "draft an email to Odile Marchetti with the subject 'Rates' and a short body thanking her"
    )
    assert _mailed(said + " for the tour", [ODILE]) == (
        "email.draft",
        {"to": ["odile@ferrol.example"], "subject": "Rates", "body": "thanking her for the tour"},
    )


def test_an_email_asked_for_after_a_story_and_so_goes_to_the_person_the_story_is_about() -> None:
    said = (
        "Odile told me on the phone that the board wants the new rate card before Friday, so "
        "could you draft an email to her with the subject 'Rate card' saying it follows today?"
    )
    call = _mailed(said, [ODILE])
    assert call[0] == "email.draft"
    assert call[1]["to"] == ["odile@ferrol.example"]
    assert call[1]["subject"] == "Rate card"


@pytest.mark.parametrize(
    ("said", "tool", "subject", "body"),
    [
        ("Could you draft an email to Odile Marchetti asking for the signed rate card?",
         "email.draft", "The signed rate card", "Asking for the signed rate card"),
        ("Can you send Odile Marchetti an email thanking her for the port tour?",
         "email.send", "Thank you for the port tour", "Thanking her for the port tour"),
        ("Please draft a mail to Odile Marchetti regarding the winter rates.",
         "email.draft", "the winter rates", "the winter rates"),
    ],
)  # fmt: skip
def test_an_email_said_by_its_purpose_has_it_as_its_body_and_a_short_subject(
    said: str, tool: str, subject: str, body: str
) -> None:
    assert _mailed(said, [ODILE]) == (
        tool,
        {"to": ["odile@ferrol.example"], "subject": subject, "body": body},
    )


def test_an_email_asked_to_go_out_later_is_drafted_without_the_time() -> None:
    """ "Email X about the renewal tomorrow" had been sent at once with the subject "the
    renewal tomorrow": nothing sends later, so it is drafted; said without a time, it is sent."""
    radia = record("contacts", "Radia Perlman", emails=["radia@northwind.example"])
    for when in ("tomorrow", "on Monday", "at 9am"):
        made = plan_for(f"Email Radia Perlman about the renewal {when}", NOW)
        assert made is not None
        calls, _ = walk(made, [radia])
        assert calls[-1] == (
            "email.draft",
            {"to": ["radia@northwind.example"], "subject": "the renewal", "body": "the renewal"},
        ), when
    made = plan_for("Email Radia Perlman about the renewal", NOW)
    assert made is not None
    assert walk(made, [radia])[0][-1][0] == "email.send"
