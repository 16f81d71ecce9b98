"""The offline planner: requests into the same tool calls a model would make, replies from
the tool outcomes only."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import pytest

from fieldhouse.agents.contract import ToolCall, ToolOutcome
from fieldhouse.agents.providers.base import Step, Turn
from fieldhouse.agents.providers.offline import HELP, OfflineProvider, describe
from fieldhouse.agents.providers.offline_plans import Plan, plan_for
from fieldhouse.agents.tools import ALL_TOOLS
from tests.agents.providers.planner_walk import writes
from tests.agents.replay import Collect

NOW = datetime(2026, 3, 2, 15, 30, tzinfo=UTC)
TOOLS = {tool.spec.name: tool for tool in ALL_TOOLS}
SPECS = [tool.spec for tool in ALL_TOOLS]


def first_calls(message: str) -> list[tuple[str, dict[str, Any]]]:
    plan = plan_for(message, NOW)
    assert plan is not None, message
    calls = plan.stages[0]([])
    for name, args in calls:  # every planned call is valid for the real tool
        TOOLS[name].args.model_validate(args)
    return calls


def test_records() -> None:
    # a create looks for a record of that name first (and asks instead when there is one)
    assert writes(plan("create a contact named Ada Lovelace with email ada@example.com")) == [
        (
            "records.create",
            {
                "module": "contacts",
                "displayName": "Ada Lovelace",
                "fields": {
                    "first-name": "Ada",
                    "last-name": "Lovelace",
                    "emails": ["ada@example.com"],
                },
            },
        )
    ]
    ((name, args),) = writes(plan("Please add a deal called Big One worth $25,000 in stage won."))
    assert name == "records.create"
    assert args["fields"] == {
        "name": "Big One",
        "amount": {"amount": 25000, "currency": "USD"},
        "stage": "won",
    }
    ((name, args),) = first_calls("find deals over 10000 in stage won")
    assert name == "records.search" and args["module"] == "deals"
    conditions = args["advancedFilter"]["root"]["conditions"]
    assert sorted((c["fieldSlug"], c["operator"], c["value"]) for c in conditions) == [
        ("amount", "gt", 10000),
        ("stage", "eq", "won"),
    ]
    ((name, args),) = first_calls("show me all contacts named Ada")
    assert (name, args["module"], args["query"]) == ("records.search", "contacts", "Ada")


def plan(message: str) -> Plan:
    made = plan_for(message, NOW)
    assert made is not None, message
    return made


def test_update_searches_then_updates() -> None:
    made = plan("update deal Big One stage to won")
    assert len(made.stages) == 3  # a look-up that finds nothing looks up each word
    assert made.stages[0]([]) == [
        ("records.search", {"module": "deals", "query": "Big One", "limit": 10})
    ]
    found = ToolOutcome(
        "ok", {"records": [{"recordId": "0" * 36, "displayName": "Big One"}]}, "Found 1."
    )
    ((name, args),) = made.stages[1]([found])
    assert name == "records.update" and args == {
        "module": "deals",
        "recordId": "0" * 36,
        "fields": {"stage": "won"},
    }
    TOOLS[name].args.model_validate(args)
    # no such record, or two of that name: a question, and nothing is written (the old planner
    # sent an update by name for the tool to refuse)
    none = ToolOutcome("ok", {"records": []}, "Found 0.")
    words = made.stages[1]([none])
    assert isinstance(words, list) and [a["query"] for _, a in words] == ["big", "one"]
    nothing = made.stages[2]([none] * len(words))
    assert isinstance(nothing, str) and "found no record" in nothing
    twins = [{"recordId": str(i) * 36, "displayName": "Big One"} for i in (1, 2)]
    asked = made.stages[1]([ToolOutcome("ok", {"records": twins}, "Found 2.")])
    assert isinstance(asked, str) and asked.startswith("Which one do you mean")


@pytest.mark.parametrize(
    ("message", "text", "due"),
    [
        ("remind me to call Bob tomorrow at 9", "call Bob", "2026-03-03T09:00:00+00:00"),
        ("Remind me to send the deck today at 5pm", "send the deck", "2026-03-02T17:00:00+00:00"),
        ("remind me to renew in 3 days", "renew", "2026-03-05T15:30:00+00:00"),
        (
            "remind me to file taxes on 2026-04-01 at 10:15",
            "file taxes",
            "2026-04-01T10:15:00+00:00",
        ),
    ],
)
def test_reminders(message: str, text: str, due: str) -> None:
    assert first_calls(message) == [("reminders.create", {"text": text, "dueAt": due})]


@pytest.mark.parametrize(
    ("message", "reply"),
    [
        # it had been set once, for next Monday, named "every to send the report"
        ("Remind me every Monday to send the report", "not 'every Monday'"),
        ("Remind me daily to check the pipeline", "not 'daily'"),
        # it had been set for a moment already past
        ("Set a reminder for yesterday at 9am to call Ada", "2026-03-01 has already gone"),
    ],
)
def test_a_reminder_that_repeats_or_is_past_is_asked_about(message: str, reply: str) -> None:
    plan = plan_for(message, NOW)
    assert plan is not None and plan.stages == () and plan.reply is not None
    assert reply in plan.reply


def test_email_outreach_social_pages() -> None:
    assert first_calls(
        "draft an email to bob@example.com about Pricing saying Prices attached"
    ) == [
        (
            "email.draft",
            {"to": ["bob@example.com"], "subject": "Pricing", "body": "Prices attached"},
        )
    ]
    ((name, args),) = first_calls("send an email to bob@example.com about Pricing")
    assert name == "email.send" and args["to"] == ["bob@example.com"]
    plan = plan_for(
        "plan outreach to ann@example.com, bob@example.com about Spring starting tomorrow", NOW
    )
    assert plan is not None
    ((name, args),) = plan.stages[0]([])
    assert name == "outreach.draft" and args["recipients"] == ["ann@example.com", "bob@example.com"]
    TOOLS[name].args.model_validate(args)
    made = ToolOutcome("ok", {"sequence": {"id": "seq-1"}}, "Drafted.")
    assert plan.stages[1]([made]) == [
        ("outreach.schedule", {"sequenceId": "seq-1", "startAt": "2026-03-03T09:00:00+00:00"})
    ]
    plan = plan_for("post on Twitter: We are hiring!", NOW)
    assert plan is not None and plan.stages[0]([]) == [
        ("social.draft", {"network": "x", "text": "We are hiring!"})
    ]
    assert plan.stages[1]([ToolOutcome("ok", {"post": {"id": "p1"}})]) == [
        ("social.post", {"postId": "p1"})
    ]
    assert plan.stages[1]([ToolOutcome("error", summary="bad")]) == []
    assert first_calls("create a landing page for Spring Launch") == [
        (
            "pages.create",
            {"slug": "spring-launch", "title": "Spring Launch", "html": "<h1>Spring Launch</h1>"},
        )
    ]
    plan = plan_for("publish a landing page called Beta <Signup> at beta", NOW)
    assert plan is not None
    ((_, args),) = plan.stages[0]([])
    assert args["slug"] == "beta" and args["html"] == "<h1>Beta &lt;Signup&gt;</h1>"


@pytest.mark.parametrize("message", ["hello", "what can you do?", "sing me a song", ""])
def test_anything_else_is_help(message: str) -> None:
    assert plan_for(message, NOW) is None


@pytest.mark.parametrize(
    "message", ["delete everything", "delete the contact ada lovelace", "get rid of that deal"]
)
def test_a_delete_is_refused_in_words(message: str) -> None:
    made = plan(message)
    assert made.stages == () and made.reply.startswith("I can't delete records")


async def step(provider: OfflineProvider, turns: Sequence[Turn]) -> tuple[Step, str]:
    emit = Collect()
    result = await provider.step(turns, SPECS, emit)
    assert "".join(emit.chunks) == result.text
    return result, result.text


async def test_provider_runs_stages_and_composes_from_outcomes() -> None:
    provider = OfflineProvider(clock=lambda: NOW)
    user = [Turn("system", "s"), Turn("user", "post on linkedin: We are hiring")]
    first, text = await step(provider, user)
    assert text == "" and [c.name for c in first.tool_calls] == ["social.draft"]
    drafted = ToolOutcome("ok", {"post": {"id": "p1"}}, "Drafted a linkedin post 'We are hiring'.")
    turns = [
        *user,
        Turn("assistant", "", first.tool_calls),
        Turn("tool", call=first.tool_calls[0], outcome=drafted),
    ]
    second, _ = await step(provider, turns)
    (post,) = second.tool_calls
    assert post.name == "social.post" and post.arguments == {"postId": "p1"}
    pending = ToolOutcome(
        "pending_approval", {"approvalId": "a1"}, "Posting p1 awaits approval (id a1).", "a1"
    )
    turns += [Turn("assistant", "", (post,)), Turn("tool", call=post, outcome=pending)]
    final, text = await step(provider, turns)
    assert final.final
    assert text == "Drafted a linkedin post 'We are hiring'. Posting p1 awaits approval (id a1)."
    _, text = await step(provider, [Turn("user", "sing me a song")])
    assert text == HELP


def test_describe_uses_only_the_outcome() -> None:
    call = ToolCall("c", "records.search", {})
    found = ToolOutcome(
        "ok", {"records": [{"displayName": f"D{i}"} for i in range(7)]}, "Found 7 deals record(s)."
    )
    assert describe(call, found) == "Found 7 deals record(s): D0, D1, D2, D3, D4 and 2 more."
    failed = ToolOutcome("error", summary="Module 'nope' not found")
    assert describe(call, failed) == "I could not complete records.search: Module 'nope' not found."
    bare = ToolOutcome("pending_approval", approval_id="a9")
    assert describe(ToolCall("c", "email.send", {}), bare) == "email.send awaits approval (id a9)."


async def test_provider_finds_a_described_record_again_at_each_step() -> None:
    """The plan is made again from the message at every step: the stages after a described
    record's look-up find the record in the run's own earlier outcomes."""
    provider = OfflineProvider(clock=lambda: NOW)
    turns = [Turn("user", "The deal where Maren Oyelaran is the contact: move it to won.")]
    maren = {"recordId": "c-1", "displayName": "Maren Oyelaran"}
    halyard = {"recordId": "d-1", "displayName": "Halyard fleet telemetry"}
    answers = [[maren], [halyard], [halyard]]
    made: list[ToolCall] = []
    for found in answers:
        result, _ = await step(provider, turns)
        assert len(result.tool_calls) == 1 and result.tool_calls[0].name == "records.search"
        call = result.tool_calls[0]
        made.append(call)
        outcome = ToolOutcome("ok", {"records": found}, f"Found {len(found)} record(s).")
        turns += [Turn("assistant", "", (call,)), Turn("tool", call=call, outcome=outcome)]
    assert made[1].arguments["filters"] == {"contacts": "c-1"}
    last, _ = await step(provider, turns)
    assert [(c.name, c.arguments) for c in last.tool_calls] == [
        ("records.update", {"module": "deals", "recordId": "d-1", "fields": {"stage": "won"}})
    ]
