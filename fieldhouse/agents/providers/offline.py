"""The offline provider (the default; no network): a deterministic planner.

It turns common requests into the tool calls a model would make (see ``offline_plans``; record
requests are read with the workspace schema, ``offline_records``) and, once the tools have
answered, composes the reply from their outcome summaries: it reports what happened and never
invents anything. When it is unsure (which record? what name?) it asks instead of writing;
anything it does not understand gets a short help text.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

import trio

from fieldhouse.agents.contract import ToolCall, ToolOutcome, ToolSpec
from fieldhouse.agents.providers import offline_spelling as spelling
from fieldhouse.agents.providers.base import Step, TextSink, Turn
from fieldhouse.agents.providers.offline_described import EARLIER
from fieldhouse.agents.providers.offline_plans import Call, Plan, plan_for
from fieldhouse.agents.providers.offline_schema import Workspace

HELP = (
    "Sorry, I did not understand that, so I did nothing. I can help with your workspace. Try: "
    '"create a contact named Ada Lovelace with email ada@example.com"; '
    '"find deals over 10000 in stage won"; '
    '"update deal Big Deal stage to won"; '
    '"remind me to call Bob tomorrow at 9"; "what deals closed this month?"; '
    '"email the contacts at Acme about the launch"; '
    '"draft an email to bob@example.com about Pricing saying Our prices are attached"; '
    '"send an email to bob@example.com about Pricing"; '
    '"plan outreach to ann@example.com, bob@example.com about Spring launch starting tomorrow"; '
    '"post on linkedin: We are hiring"; '
    '"publish a landing page for Spring Launch". '
    "E-mails, outreach, social posts and published pages wait for an approval before they go out."
)
#: at most this many found records are named in a reply
LISTED = 5


class OfflineProvider:
    name = "offline"

    def __init__(
        self, clock: Callable[[], datetime] | None = None, workspace: Workspace | None = None
    ) -> None:
        self._clock = clock or (lambda: datetime.now(UTC))
        #: the schema record requests are read with (None: the built-in modules)
        self._workspace = workspace

    async def step(self, turns: Sequence[Turn], tools: Sequence[ToolSpec], emit: TextSink) -> Step:
        message = next((t.text for t in reversed(turns) if t.role == "user"), "")
        if not spelling.warmed():  # the word lists are read once, off the event loop
            await trio.to_thread.run_sync(spelling.warm)
        plan = plan_for(message, self._clock(), self._workspace)
        if plan is None:
            return await _say(HELP, emit)
        if not plan.stages:
            return await _say(plan.reply, emit)
        wanted = _next_stage(plan, turns)
        if isinstance(wanted, str):
            return await _say(wanted, emit)
        known = {spec.name for spec in tools}
        stage = sum(1 for t in turns if t.role == "assistant")
        calls = tuple(
            ToolCall(f"offline-{stage}-{i}", name, args)
            for i, (name, args) in enumerate(wanted)
            if name in known
        )
        if calls:
            return Step(calls)
        done = [(t.call, t.outcome) for t in turns if t.role == "tool" and t.call and t.outcome]
        if not done:
            return await _say(HELP, emit)
        return await _say(" ".join(describe(call, outcome) for call, outcome in done), emit)


def _next_stage(plan: Plan, turns: Sequence[Turn]) -> list[Call] | str:
    """The calls of the plan's next stage (or the reply it ends with); none once the plan is
    done or a call waits for a person."""
    stage = sum(1 for t in turns if t.role == "assistant")
    if stage >= len(plan.stages):
        return []
    previous = [t.outcome for t in _last_stage(turns) if t.outcome is not None]
    # a failed call goes on to the next stage, which decides (a create goes ahead when its
    # look-up for a duplicate was refused); one that waits for a person stops it
    if stage and not all(o.status in ("ok", "error") for o in previous):
        return []
    earlier = EARLIER.set(_each_stage(turns))
    try:
        return plan.stages[stage](previous)
    finally:
        EARLIER.reset(earlier)


def _each_stage(turns: Sequence[Turn]) -> tuple[tuple[ToolOutcome, ...], ...]:
    """The outcomes of the run's stages so far, a tuple a stage (an assistant turn each)."""
    stages: list[list[ToolOutcome]] = []
    for turn in turns:
        if turn.role == "assistant":
            stages.append([])
        elif turn.role == "tool" and turn.outcome is not None and stages:
            stages[-1].append(turn.outcome)
    return tuple(tuple(s) for s in stages)


def _last_stage(turns: Sequence[Turn]) -> list[Turn]:
    tail: list[Turn] = []
    for turn in reversed(turns):
        if turn.role != "tool":
            break
        tail.append(turn)
    return tail[::-1]


def describe(call: ToolCall, outcome: ToolOutcome) -> str:
    """One or two sentences about a tool call, from its outcome only."""
    summary = outcome.summary.strip()
    if outcome.status == "ok":
        records = outcome.result.get("records")
        if isinstance(records, list) and records:
            names = [_name(r) for r in records[:LISTED]]
            more = f" and {len(records) - LISTED} more" if len(records) > LISTED else ""
            return f"{summary.rstrip('.')}: {', '.join(names)}{more}."
        return summary or f"Done: {call.name}."
    if outcome.status == "pending_approval":
        if "approval" in summary.lower():
            return summary
        return f"{summary or call.name} awaits approval (id {outcome.approval_id})."
    if outcome.status == "rejected":
        return summary or f"The {call.name} call was rejected."
    return f"I could not complete {call.name}: {summary or 'it failed'}".rstrip(".") + "."


def _name(record: Any) -> str:
    if isinstance(record, dict):
        return str(record.get("displayName") or record.get("id") or "?")
    return str(record)


async def _say(text: str, emit: TextSink) -> Step:
    """Emit the reply in word-sized chunks, as a streaming model would."""
    for chunk in re.findall(r"\S+\s*", text):
        await emit(chunk)
    return Step((), text)
