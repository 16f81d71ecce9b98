"""Resuming a run: one that waited for approvals (once they are all decided), one whose client
went away (``aborted``) or one whose process died (``interrupted``), any number of times until
it ends. The conversation is rebuilt from the stored run, each call that waited for an approval
answered with what became of it (run, with its result; rejected with the approver's reason;
failed or expired), and the run goes on where it stopped.

Whoever resumes (the requester, or an owner or admin), the run goes on for its requester, with
the requester's rights as they are now; once their key is revoked or their user deleted it
cannot go on (409).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, cast

from fieldhouse.agents.contract import OutcomeStatus, ToolCall, ToolOutcome
from fieldhouse.agents.providers.base import Turn
from fieldhouse.agents.requester import Requester, rights_or_gone
from fieldhouse.agents.run import AgentRun, AgentRuntime, Resumed, load_agent
from fieldhouse.agents.run_writes import AGENT_RUN, INTERRUPTED_CALL
from fieldhouse.agents.writes import APPROVAL
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
        ran = approval.outcome or {}
        if isinstance(ran.get("result"), dict):
            result["result"] = ran["result"]  # what the call gave, e.g. the record it made
        done = f" {ran['summary']}" if ran.get("summary") else ""
        if approval.original_arguments is not None:
            result["arguments"] = dict(approval.arguments)
            return ToolOutcome(
                "ok",
                result,
                f"Approved with edited arguments and done: {approval.description}.{done}",
            )
        return ToolOutcome("ok", result, f"Approved and done: {approval.description}.{done}")
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
    """The run to continue, for its requester (409 while it runs, once it has ended, while one
    of its approvals is undecided, or when its requester can no longer act). ``principal``,
    who resumes, only decides whether they may see the run."""
    run = await load_run(runtime, principal, run_id)
    now = now_iso()
    if run.status == RunStatus.RUNNING and not _lapsed(run, now):
        raise Conflict(f"Run {run_id} is still running", data={"runId": run_id})
    if run.status != RunStatus.RUNNING and not run.resumable:
        raise Conflict(
            f"Run {run_id} has ended ({run.status}): only a waiting, aborted or interrupted "
            "run is resumed",
            data={"runId": run_id, "status": str(run.status)},
        )
    requester = Requester.stored(principal.account_id, run.user_id, run.api_key_id, run.auth_method)
    acting = await rights_or_gone(runtime.store, requester, f"Run {run_id}")
    request = await load_agent(runtime.store, acting, run.agent_id)
    request = replace(request, message=run.message)
    turns = [Turn("system", request.prompt), Turn("user", run.message)]
    entries: list[ToolCallEntry] = []
    undecided: list[str] = []
    for stored in run.tool_calls:
        entry = ToolCallEntry.from_json(stored.to_json())
        call = ToolCall(entry.call_id, entry.tool, entry.arguments)
        if entry.status == "running":  # stored by a process that died mid-call
            entry.status, entry.summary = "aborted", INTERRUPTED_CALL
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


def _lapsed(run: RunRecord, now: str) -> bool:
    """A running run whose lease ran out: its process died (the scheduler will store it
    interrupted; a resume need not wait for that)."""
    return run.lease_until is None or run.lease_until <= now
