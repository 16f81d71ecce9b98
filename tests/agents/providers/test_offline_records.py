"""The offline planner reads record requests with the workspace's schema: a module it was never
written for (Projects, with its own phases and fields) is understood from its field labels,
types and options, and whatever the planner is unsure of gets a question, not a write."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from fieldhouse.agents.contract import ToolOutcome
from fieldhouse.agents.providers.base import REQUESTER, Turn
from fieldhouse.agents.providers.offline import OfflineProvider
from fieldhouse.agents.providers.offline_plans import Plan, plan_for
from fieldhouse.agents.providers.offline_schema import Workspace, builtin
from fieldhouse.agents.tools import ALL_TOOLS
from tests.agents.providers.planner_walk import record, updated, walk, writes
from tests.agents.replay import Collect

SPECS = [tool.spec for tool in ALL_TOOLS]
#: a Saturday
NOW = datetime(2026, 11, 28, 10, 0, tzinfo=UTC)
PROJECTS = {
    "slug": "projects",
    "name": "Projects",
    "fields": [
        {"slug": "title", "label": "Project name", "dataType": "text",
         "config": {"isDisplayField": True}},
        {"slug": "phase", "label": "Phase", "dataType": "select", "config": {"options": [
            {"value": "discovery", "label": "Discovery"},
            {"value": "build", "label": "Build"},
            {"value": "launched", "label": "Launched"},
        ]}},
        {"slug": "budget", "label": "Budget", "dataType": "currency", "config": {}},
        {"slug": "deadline", "label": "Deadline", "dataType": "date", "config": {}},
    ],
}  # fmt: skip
WS = Workspace((*builtin().modules, *Workspace.from_modules([PROJECTS]).modules))
APOLLO = record("projects", "Apollo")
MILLION = {"amount": 1200000, "currency": "USD"}


def plan(message: str) -> Plan:
    made = plan_for(message, NOW, WS)
    assert made is not None, message
    return made


def test_a_module_from_the_schema_is_created_with_its_typed_fields() -> None:
    ((tool, args),) = writes(plan("add a project called Hermes with budget 20k due friday"))
    assert tool == "records.create" and args["module"] == "projects"
    assert args["displayName"] == "Hermes"
    assert args["fields"] == {
        "title": "Hermes",
        "budget": {"amount": 20000, "currency": "USD"},
        "deadline": "2026-12-04",
    }


@pytest.mark.parametrize(
    ("message", "fields"),
    [
        ("move Apollo to build", {"phase": "build"}),
        ("apollo is now launched", {"phase": "launched"}),
        ("set the budget of the Apollo project to $1.2m", {"budget": MILLION}),
        ("push apollo's deadline to the 15th of next month", {"deadline": "2026-12-15"}),
    ],
)  # fmt: skip
def test_an_update_finds_the_one_record_and_reads_the_value_by_its_field(
    message: str, fields: dict[str, Any]
) -> None:
    calls, _ = walk(plan(message), [APOLLO, record("contacts", "Ada Lovelace")])
    assert calls[-1] == (
        "records.update",
        {"module": "projects", "recordId": APOLLO["recordId"], "fields": fields},
    )
    assert all(tool == "records.search" for tool, _ in calls[:-1])


def test_lists_filter_and_compare_by_the_schema() -> None:
    ((tool, args),) = walk(plan("projects in discovery or build with a budget over 50k"))[0]
    assert tool == "records.search" and args["module"] == "projects"
    conditions = args["advancedFilter"]["root"]["conditions"]
    assert {(c["fieldSlug"], c["operator"]) for c in conditions} == {
        ("phase", "in"),
        ("budget", "gt"),
    }
    ((_, args),) = walk(plan("launched projects"))[0]
    (condition,) = args["advancedFilter"]["root"]["conditions"]
    assert (condition["fieldSlug"], condition["value"]) == ("phase", "launched")


@pytest.mark.parametrize(
    ("message", "value"),
    [
        ("which contacts are marked do not contact?", True),
        ("contacts tagged vip, except anyone marked do not contact", False),
    ],
)
def test_lists_filter_by_a_yes_no_field_said(message: str, value: bool) -> None:
    ((_, args),) = walk(plan(message))[0]
    conditions = args["advancedFilter"]["root"]["conditions"]
    assert {"fieldSlug": "do-not-contact", "value": value} in [
        {"fieldSlug": c["fieldSlug"], "value": c.get("value")} for c in conditions
    ]


def test_a_contact_said_as_a_record_is_no_do_not_contact_filter() -> None:
    ((_, args),) = walk(plan("Can you pull up Ada's contact?"))[0]
    assert "advancedFilter" not in args


@pytest.mark.parametrize(
    ("message", "records", "question"),
    [
        ("move apollo to build", [record("projects", f"Apollo {n}") for n in (1, 2)], "Which one"),
        ("move zeus to build", [APOLLO], "I found no record named 'zeus'"),
        ("set it to build", [APOLLO], "Which record do you mean"),
        ("add a project called Apollo", [APOLLO], "There is already a project named Apollo"),
        ("add a project", [], "What should the new project be called?"),
        # a name that reads like the rest of a sentence is asked for, not taken whole
        ("add a project uh called hermes they want weekly demos", [], "be called?"),
        ("new project signup from the web form: hermes", [], "be called?"),
        ("delete the Apollo project", [APOLLO], "I can't delete records"),
        ("change apollo's phase to someday", [APOLLO], "What should phase of Apollo be?"),
        # details no field takes are asked about, not dropped
        ("add a project called Hermes, the client wants weekly demos", [], "did not understand"),
        ("move apollo to build, the client wants weekly demos", [APOLLO], "did not understand"),
        # a change not decided yet: asked whether to make, bound to a condition, doubted, or
        # between two values
        ("Should I move apollo to build?", [APOLLO], "sounds undecided ('Should I')"),
        ("If the client signs, move apollo to build.", [APOLLO], "sounds undecided"),
        ("Move apollo to build once they sign.", [APOLLO], "What should phase"),
        ("Move apollo to build? Not sure yet.", [APOLLO], "sounds undecided ('Not sure yet')"),
        (
            "Eventually we move apollo to build, but I am not sure yet. Do you want to do that?",
            [APOLLO],
            "sounds undecided",
        ),
        # a question whether it was done, a value put up to be confirmed: no request to write
        ("Did we move apollo to build?", [APOLLO], "You asked whether it was done"),
        ("Apollo's phase is build now, right?", [APOLLO], "You asked whether it is so ('right?')"),
        ("I think apollo is in build now, can you check?", [APOLLO], "('can you check')"),
        # a day said vaguely: any one day written would be a guess
        ("Set apollo's deadline to sometime next month", [APOLLO], "names no single day"),
        ("Move apollo's deadline to next week", [APOLLO], "'next week' names no single day"),
        ("Apollo's deadline is around the 15th", [APOLLO], "'around the 15th' names no single"),
    ],
)
def test_when_unsure_it_asks_and_writes_nothing(
    message: str, records: list[dict[str, Any]], question: str
) -> None:
    made = plan(message)
    calls, reply = walk(made, records)
    assert [tool for tool, _ in calls if tool != "records.search"] == []
    assert question in reply


def test_a_day_said_exactly_is_written_and_a_period_in_a_name_is_no_date() -> None:
    """ "... for next week, due Friday": the task is due Friday (it had been asked about)."""
    ((_, args),) = writes(plan("Create a task to prepare slides for next week, due Friday"), [])
    assert args["fields"]["due-date"] == "2026-12-04"
    assert writes(plan("Move apollo's deadline to the end of next month"), [APOLLO]) == (
        updated(APOLLO, deadline="2026-12-31")
    )


def test_the_standard_modules_by_everyday_words() -> None:
    ((_, args),) = writes(
        plan("Please log a new opportunity called Wide World customs module worth $85,000.")
    )
    assert (args["module"], args["displayName"]) == ("deals", "Wide World customs module")
    asking = REQUESTER.set("u-me")  # as a run sets it: "for myself" is the requester
    try:
        ((_, args),) = writes(
            plan(
                "I'd like a to-do for myself: prepare the board slides, due next Friday, high "
                "priority."
            )
        )
    finally:
        REQUESTER.reset(asking)
    assert args["module"] == "tasks" and args["fields"]["priority"] == "high"
    assert args["fields"]["assignee"] == "u-me"
    assert args["fields"]["due-date"] == "2026-12-04"
    ((_, args),) = walk(plan("urgent tasks"))[0]
    (condition,) = args["advancedFilter"]["root"]["conditions"]
    assert (args["module"], condition["value"]) == ("tasks", "urgent")


async def test_the_provider_says_the_question_a_stage_ends_with() -> None:
    provider = OfflineProvider(clock=lambda: NOW, workspace=WS)
    user = [Turn("system", "s"), Turn("user", "move zeus to build")]
    said = Collect()
    first = await provider.step(user, SPECS, said)
    (search,) = first.tool_calls
    assert search.name == "records.search" and search.arguments["module"] == "projects"
    none = ToolOutcome("ok", {"records": []}, "Found 0 projects record(s).")
    turns = [*user, Turn("assistant", "", (search,)), Turn("tool", call=search, outcome=none)]
    again = await provider.step(turns, SPECS, said)  # each word, then its first letters
    assert [c.arguments["query"] for c in again.tool_calls] == ["zeus", "zeu"]
    turns += [Turn("assistant", "", again.tool_calls)]
    turns += [Turn("tool", call=c, outcome=none) for c in again.tool_calls]
    final = await provider.step(turns, SPECS, said)
    assert final.final and final.text.startswith("I found no record named 'zeus'")
    assert "".join(said.chunks) == final.text


def test_a_related_record_is_found_by_name_or_asked_about() -> None:
    health = record("companies", "Contoso Health")
    message = "create a deal named Contoso analytics for Contoso Health worth 10k"
    ((_, args),) = writes(plan(message), [health])
    assert args["displayName"] == "Contoso analytics"
    assert args["fields"]["company"] == health["recordId"]
    calls, reply = walk(plan(message), [])
    assert [tool for tool, _ in calls] == ["records.search", "records.search"]
    assert reply.startswith("I found no companies matching 'Contoso Health'")
    ((_, args),) = writes(plan("add jane doe at contoso health"), [health])
    assert (args["module"], args["displayName"]) == ("contacts", "Jane Doe")
    assert args["fields"]["company"] == health["recordId"]


def test_questions_about_a_record_look_it_up_everywhere() -> None:
    ((_, args), *rest) = walk(plan("what's the phase of apollo?"), [APOLLO])[0]
    assert args["query"] == "apollo" and len(rest) == len(WS.modules) - 1
    ((_, args), *_) = walk(plan("how much is the apollo project worth"), [APOLLO])[0]
    assert args["query"] == "apollo"


def test_send_a_person_an_email_looks_them_up_first() -> None:
    ((tool, args),) = plan("send grace hopper an email about the migration").stages[0]([])
    assert (tool, args["module"], args["query"]) == ("records.search", "contacts", "grace hopper")


def test_a_choice_value_only_one_module_has_names_the_module_of_a_new_record() -> None:
    ((_, args),) = writes(plan("add a meeting with Barbara Liskov on thursday"))
    assert (args["module"], args["displayName"]) == ("tasks", "meeting with Barbara Liskov")
    assert args["fields"]["due-date"] == "2026-12-03"
    made = plan("add urgent")  # a value, not a name
    assert walk(made) == ([], "What should the new task be called?")


@pytest.mark.parametrize("title", ["Mr.", "Dr", "Prof."])
def test_a_title_before_a_new_persons_name_is_not_their_first_name(title: str) -> None:
    made = writes(plan(f"Add a contact {title} Fergus Abernethy"))
    assert [(args["displayName"], args["fields"]) for _, args in made] == [
        ("Fergus Abernethy", {"first-name": "Fergus", "last-name": "Abernethy"})
    ]


def test_shorthand_symbols_are_read_as_words() -> None:
    """Charting shorthand (blind13's tuning half): "≥ 4" is at least 4, "f/u" a follow-up, and
    a change sign ("Δ", "↑") says no value of its own."""
    from fieldhouse.agents.providers.offline_records import plain_symbols

    assert plain_symbols("companies w/ health ≥ 4 stars") == "companies w/ health at least 4 stars"
    assert plain_symbols("deals ≤ 20k") == "deals at most 20k"
    assert plain_symbols("f/u call re: pricing") == "follow-up call re: pricing"
    assert plain_symbols("Kestrel: prob ↑ 40 → 60%, stage Δ lead → proposal") == (
        "Kestrel: prob 40 → 60%, stage lead → proposal"
    )


@pytest.mark.parametrize(
    ("message", "phase"),
    [
        ("The Apollo project is in build now. Please update its phase.", "build"),
        ("Update the Apollo project: it moved from discovery to launched", "launched"),
    ],
)  # fmt: skip
def test_an_option_said_outside_the_change_is_its_value(message: str, phase: str) -> None:
    """The value of a choice field to change may stand in another sentence than the change,
    or after a "to" from the old one."""
    apollo = record("projects", "Apollo", phase="discovery")
    assert writes(plan(message), [apollo]) == updated(apollo, phase=phase)


def test_an_option_said_outside_the_change_is_not_guessed_among_several() -> None:
    """Two options of the field said, no arrow between them: it asks."""
    apollo = record("projects", "Apollo")
    message = "The Apollo project is in build or launched now. Please update it."
    assert writes(plan(message), [apollo]) == []


def test_a_later_sentence_that_asks_for_more_keeps_the_change_asked_about() -> None:
    """The value's sentence is read alone only when what follows asks for nothing more."""
    apollo = record("projects", "Apollo")
    assert writes(plan("The Apollo project is in build now. Budget 5000."), [apollo]) == []


@pytest.mark.parametrize(
    ("message", "reply"),
    [
        ("Don't move apollo to build yet.", "You asked me not to"),
        ("Set apollo's budget to 12k per month.", "should be stored as"),
        ("Set apollo's budget to $4,000 a month.", "should be stored as"),
        # a number below zero: its sign was dropped, and 500 written
        ("Set apollo's budget to minus 500.", "'minus 500' should be stored as"),
        ("Set apollo's budget to -500.", "'-500' should be stored as"),
    ],
)
def test_a_change_asked_not_to_be_made_or_said_per_month_writes_nothing(
    message: str, reply: str
) -> None:
    calls, said = walk(plan(message), [APOLLO])
    assert [tool for tool, _ in calls if tool != "records.search"] == []
    assert reply in said


def test_a_negation_of_one_part_still_makes_the_rest() -> None:
    """ "Don't change the phase, only ...": the rest of the request is made."""
    calls, _ = walk(
        plan("Don't change the phase of apollo, only the budget: make it 9,000."), [APOLLO]
    )
    assert [call for call in calls if call[0] != "records.search"] == [
        (
            "records.update",
            {
                "module": "projects",
                "recordId": APOLLO["recordId"],
                "fields": {"budget": {"amount": 9000, "currency": "USD"}},
            },
        )
    ]
