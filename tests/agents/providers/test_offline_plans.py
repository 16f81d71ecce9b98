"""The offline planner's grammar on its own: the forms of each request that the provider tests
(test_offline.py) do not walk, when each later stage goes on or stops, and every planned call
valid for the real tool."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import pytest

from fieldhouse.agents.contract import ToolOutcome
from fieldhouse.agents.providers.offline_plans import Call, Plan, plan_for
from fieldhouse.agents.tools import ALL_TOOLS
from tests.agents.providers.planner_walk import writes

#: a Monday afternoon
NOW = datetime(2026, 3, 2, 15, 30, tzinfo=UTC)
FIVE_K = {"amount": 5000, "currency": "USD"}
TOOLS = {tool.spec.name: tool for tool in ALL_TOOLS}


def valid(calls: list[Call]) -> list[Call]:
    for name, args in calls:
        TOOLS[name].args.model_validate(args)
    return calls


def plan(message: str) -> Plan:
    made = plan_for(message, NOW)
    assert made is not None, message
    return made


def only_call(message: str) -> Call:
    made = plan(message)
    assert len(made.stages) == 1, message
    calls = made.stages[0]([])
    assert not isinstance(calls, str), calls
    (call,) = valid(calls)
    return call


def then(made: Plan, outcomes: Sequence[ToolOutcome]) -> list[Call]:
    calls = made.stages[1](outcomes)
    assert not isinstance(calls, str), calls
    return valid(calls)


@pytest.mark.parametrize(
    ("message", "due"),
    [
        ("remind me to plan on monday", "2026-03-09T09:00:00+00:00"),  # today: a week on
        ("remind me to plan on Friday at 12am", "2026-03-06T00:00:00+00:00"),
        ("remind me to eat on sunday at 12pm", "2026-03-08T12:00:00+00:00"),
        ("remind me to stretch in 2 hours", "2026-03-02T17:30:00+00:00"),
        ("remind me to call in 1 day at 8:45 pm", "2026-03-03T20:45:00+00:00"),
        ("remind me to stand up in 30 minutes.", "2026-03-02T16:00:00+00:00"),
    ],
)
def test_reminder_times(message: str, due: str) -> None:
    name, args = only_call(message)
    assert name == "reminders.create" and args["dueAt"] == due


def only_write(message: str, records: Sequence[dict[str, Any]] = ()) -> Call:
    (call,) = writes(plan(message), records)
    return call


def test_records_of_each_module() -> None:
    assert only_write("add a contact named Bob with phone +44 20 7946-0958") == (
        "records.create",
        {
            "module": "contacts",
            "displayName": "Bob",
            "fields": {"first-name": "Bob", "phones": ["+442079460958"]},
        },
    )
    assert only_write("make a new task called 'Ship it'")[1]["fields"] == {"title": "Ship it"}
    assert only_write("create a company named Acme Corp")[1]["fields"] == {"name": "Acme Corp"}
    _, deal = only_write("create a deal named Tiny with amount of 99.5")
    assert deal["fields"]["amount"] == {"amount": 99.5, "currency": "USD"}


def test_searches() -> None:
    name, args = only_call("look up companies")
    assert (name, args["module"]) == ("records.search", "companies") and "query" not in args
    _, args = only_call("search for deals under $2,500")
    (condition,) = args["advancedFilter"]["root"]["conditions"]
    assert (condition["operator"], condition["value"]) == ("lt", 2500)
    # a name is searched for only when nothing else narrows the search
    assert only_call("find tasks called 'Launch'")[1]["query"] == "Launch"


@pytest.mark.parametrize(
    ("message", "change"),
    [
        ("change contact Ada's email to ada@new.io", {"fields": {"emails": ["ada@new.io"]}}),
        ("set deal Big amount to $5,000", {"fields": {"amount": FIVE_K}}),
        ("update the company Acme name to Acme Inc.", {"displayName": "Acme Inc"}),
        ("update task Ship status to Done", {"fields": {"status": "done"}}),
    ],
)
def test_updates_change_the_one_record_found(message: str, change: dict[str, Any]) -> None:
    made = plan(message)
    ((name, search),) = made.stages[0]([])
    assert name == "records.search" and search["limit"] == 10
    found = ToolOutcome("ok", {"records": [{"recordId": "r" * 36, "displayName": search["query"]}]})
    ((name, args),) = then(made, [found])
    assert name == "records.update"
    assert args == {"module": search["module"], "recordId": "r" * 36, **change}
    # the search found nothing: each word of the name looked up; nothing again, a question
    nothing = ToolOutcome("ok", {"records": []})
    again = made.stages[1]([nothing])
    assert isinstance(again, list) and {name for name, _ in again} == {"records.search"}
    assert isinstance(made.stages[2]([nothing] * len(again)), str)
    # the search failed: no update
    assert not made.stages[1]([ToolOutcome("error", {}, "no")])


def test_mail_outreach_social_and_pages_stop_when_a_step_failed() -> None:
    assert only_call("write an e-mail to ann@example.com") == (
        "email.draft",
        {"to": ["ann@example.com"], "subject": "Hello", "body": "Hello"},
    )
    name, args = only_call("plan an outreach sequence called Spring to ann@example.com")
    assert (name, args["name"], args["steps"][1]["delayDays"]) == ("outreach.draft", "Spring", 3)
    assert plan_for("plan outreach to the whole team", NOW) is None  # no addresses
    assert only_call("draft a post for bluesky: Hello") == (
        "social.draft",
        {"network": "bluesky", "text": "Hello"},
    )
    made = plan("share on mastodon We ship today")
    assert then(made, [ToolOutcome("ok", {"post": {"id": "p1"}})]) == [
        ("social.post", {"postId": "p1"})
    ]
    assert then(made, [ToolOutcome("ok", {"post": {}})]) == []
    outreach = plan("start outreach to ann@example.com about Beta starting on monday")
    assert then(outreach, [ToolOutcome("error", {"sequence": {"id": "s1"}})]) == []
    page = plan("publish a landing page titled Spring & Summer Deals.")
    ((_, created),) = page.stages[0]([])
    assert created["slug"] == "spring-summer-deals"
    assert created["html"] == "<h1>Spring &amp; Summer Deals</h1>"
    assert then(page, [ToolOutcome("ok", {"page": {"id": "pg1"}})]) == [
        ("pages.publish", {"slug": "spring-summer-deals"})
    ]
    assert then(page, [ToolOutcome("error", {})]) == []
    assert len(only_call("make a landing page for " + "x" * 100)[1]["slug"]) == 64


def test_phrasings_beyond_the_grammar_are_planned_too() -> None:
    ((name, args),) = valid(plan("what deals closed last month?").stages[0]([]))
    assert name == "records.search" and args["module"] == "deals"
    values = [c["value"] for c in args["advancedFilter"]["root"]["conditions"]]
    assert values == ["2026-02-01", "2026-03-01"]
    mail = plan("email the contacts at Acme about the launch")
    assert len(mail.stages) == 2
    assert mail.stages[0]([]) == [
        ("records.search", {"module": "contacts", "query": "Acme", "limit": 50})
    ]
