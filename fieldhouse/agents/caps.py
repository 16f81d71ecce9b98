"""The policy's caps on one run, applied before a call reaches the gate: how many calls one
model step may make, how many a whole run may make, and how large one call's arguments may be;
and what a run stopped at a limit (of model calls or of tool calls) answers.

A call past a cap is not run: the model is told why (every call it made gets an answer, as the
model APIs require), and the run keeps the call without its oversized arguments, which are
neither stored nor sent upstream again.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from fieldhouse.agents.contract import ToolCall, ToolOutcome
from fieldhouse.model.agent_policy import RECORD_WRITES, Policy
from fieldhouse.model.agents import ToolCallEntry

TOO_LARGE = "arguments_too_large"
STEP_CAP = "too_many_calls_in_step"
RUN_CAP = "too_many_calls_in_run"
#: the codes of calls a cap stopped: they do not count as calls the run made
CAPPED = frozenset({TOO_LARGE, STEP_CAP, RUN_CAP})


def argument_bytes(call: ToolCall) -> int:
    """The size of the call's arguments as compact UTF-8 JSON."""
    text = json.dumps(call.arguments, ensure_ascii=False, separators=(",", ":"), default=str)
    return len(text.encode())


def capped(call: ToolCall, index: int, made: int, rules: Policy) -> ToolOutcome | None:
    """Why the ``index``-th call of a step may not run when the run has made ``made`` calls
    (None: it may)."""
    size = argument_bytes(call)
    if size > rules.max_argument_bytes:
        return ToolOutcome(
            "error",
            {"code": TOO_LARGE, "bytes": size, "limit": rules.max_argument_bytes},
            f"Not run: its arguments take {size:,} bytes, over the limit of "
            f"{rules.max_argument_bytes:,}; they were not kept",
        )
    if index >= rules.max_calls_per_step:
        return ToolOutcome(
            "error",
            {"code": STEP_CAP, "limit": rules.max_calls_per_step},
            f"Not run: one step may make at most {rules.max_calls_per_step} tool calls",
        )
    if made >= rules.max_calls_per_run:
        return ToolOutcome(
            "error",
            {"code": RUN_CAP, "limit": rules.max_calls_per_run},
            f"Not run: a run may make at most {rules.max_calls_per_run} tool calls",
        )
    return None


def kept(call: ToolCall, refusal: ToolOutcome | None) -> ToolCall:
    """The call as the run keeps it (and sends upstream again): without arguments too large
    to keep."""
    if refusal is not None and refusal.result.get("code") == TOO_LARGE:
        return ToolCall(call.call_id, call.name, {})
    return call


def calls_made(entries: Sequence[ToolCallEntry]) -> int:
    """The calls a run made (the ones a cap stopped excluded)."""
    return sum(1 for e in entries if e.result.get("code") not in CAPPED)


def unapproved_record_writes(entries: Sequence[ToolCallEntry]) -> int:
    """Record writes the run made without an approval."""
    return sum(
        1 for e in entries if e.tool in RECORD_WRITES and e.status == "ok" and e.approval_id is None
    )


def progress_reply(
    tool_calls: list[ToolCallEntry], limit: int, after_text: bool, *, what: str = "model calls"
) -> str:
    """The reply of a run stopped at its step limit (or its limit of tool calls): what its
    tools did so far, from their outcomes only (repeated outcomes are counted, not
    repeated)."""
    counts: dict[str, int] = {}
    for entry in tool_calls:
        summary = entry.summary.strip()
        tool, status = entry.tool, entry.status
        if status == "error":
            line = f"Could not complete {tool}: {summary or 'it failed'}"
        elif status == "rejected":
            line = summary or f"The {tool} call was rejected"
        else:
            line = summary or f"Ran {tool}"
        line = line.rstrip(".")
        counts[line] = counts.get(line, 0) + 1
    head = f"I stopped before finishing: the limit of {limit} {what} was reached."
    if not counts:
        done = " No tool was used."
    else:
        parts = [line + ("." if n == 1 else f" ({n} times).") for line, n in counts.items()]
        done = " So far: " + " ".join(parts)
    return ("\n\n" if after_text else "") + head + done
