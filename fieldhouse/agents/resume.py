"""Resuming a run after its approvals were decided: the conversation is rebuilt from the stored
run, each call that waited for an approval answered with what became of it (run, rejected with
the approver's reason, failed or expired), and the run goes on where it stopped.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, cast

from fieldhouse.actors.agent_ops import APPROVAL
from fieldhouse.actors.run_ops import AGENT_RUN
from fieldhouse.agents.contract import OutcomeStatus, ToolCall, ToolOutcome
from fieldhouse.agents.providers.base import Turn
from fieldhouse.agents.run import AgentRun, AgentRuntime, Resumed, load_agent
from fieldhouse.model.agents import Approval, ApprovalStatus, RunRecord, RunStatus, ToolCallEntry
from fieldhouse.model.clock import now_iso
from fieldhouse.model.errors import Conflict, NotFound
from fieldhouse.model.principal import Principal


async def load_run(runtime: AgentRuntime, principal: Principal, run_id: str) -> RunRecord:
    """A run the principal may see: its own, or any of the workspace for owners and admins."""
    row = await runtime.store.get_object(principal.account_id, AGENT_RUN, run_id[:64])
    run = RunRecord.from_row(row) if row is not None else None
    if run is None or not (principal.is_admin or run.user_id == principal.user_id):
        raise NotFound(f"Run {run_id} not found", data={"runId": run_id})
    return run


def decided_outcome(approval: Approval | None, entry: ToolCallEntry, now: str) -> ToolOutcome:
    """What the model is told about a call that waited for an approval."""
    if approval is None:
        return ToolOutcome("error", {}, "The approval of this call no longer exists")
    status = approval.status
    if status == ApprovalStatus.PENDING and approval.expired(now):
        status = ApprovalStatus.EXPIRED
    result: dict[str, Any] = {"approvalId": approval.approval_id, "status": str(status)}
    if status == ApprovalStatus.EXECUTED:
        if approval.original_arguments is not None:
            result["arguments"] = dict(approval.arguments)
            return ToolOutcome(
                "ok", result, f"Approved with edited arguments and done: {approval.description}."
            )
        return ToolOutcome("ok", result, f"Approved and done: {approval.description}.")
    if status == ApprovalStatus.REJECTED:
        reason = approval.reason or "no reason given"
        result["reason"] = approval.reason
        return ToolOutcome("rejected", result, f"An approver rejected this call: {reason}.")
    if status == ApprovalStatus.FAILED:
        return ToolOutcome("error", result, f"Approved, but it failed: {approval.error}")
    if status == ApprovalStatus.EXPIRED:
        return ToolOutcome("error", result, "The approval expired before anyone decided it")
    return ToolOutcome("pending_approval", result, entry.summary, approval.approval_id)


async def prepare_resume(runtime: AgentRuntime, principal: Principal, run_id: str) -> AgentRun:
    """The run to continue (409 while one of its approvals is undecided, or when it has none
    to continue from)."""
    run = await load_run(runtime, principal, run_id)
    if run.status == RunStatus.RUNNING:
        raise Conflict(f"Run {run_id} is still running", data={"runId": run_id})
    waiting = [e for e in run.tool_calls if e.status == "pending_approval"]
    if not waiting:
        raise Conflict(
            f"Run {run_id} has no tool call that waited for an approval", data={"runId": run_id}
        )
    request = await load_agent(runtime.store, principal, run.agent_id)
    request = replace(request, message=run.message)
    now = now_iso()
    turns = [Turn("system", request.prompt), Turn("user", run.message)]
    entries: list[ToolCallEntry] = []
    undecided: list[str] = []
    for stored in run.tool_calls:
        entry = ToolCallEntry.from_json(stored.to_json())
        call = ToolCall(entry.call_id, entry.tool, entry.arguments)
        status = cast(OutcomeStatus, entry.status)
        outcome = ToolOutcome(status, entry.result, entry.summary, entry.approval_id)
        if entry.status == "pending_approval" and entry.approval_id is not None:
            row = await runtime.store.get_object(principal.account_id, APPROVAL, entry.approval_id)
            outcome = decided_outcome(Approval.from_row(row) if row else None, entry, now)
            if outcome.status == "pending_approval":
                undecided.append(entry.approval_id)
            entry.status, entry.summary, entry.result = (
                outcome.status,
                outcome.summary,
                dict(outcome.result),
            )
        entries.append(entry)
        turns += [Turn("assistant", "", (call,)), Turn("tool", call=call, outcome=outcome)]
    if undecided:
        raise Conflict(
            "The run's approvals are not all decided yet", data={"pendingApprovals": undecided}
        )
    version = run.updated_at or run.created_at
    resumed = Resumed(run.run_id, run.created_at, version, run.steps, entries, turns)
    return AgentRun(runtime, request, resumed=resumed)
