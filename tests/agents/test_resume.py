"""Resuming a run once its approvals are decided, driven directly over the real actors, store
and tools (both backends): who may see a run, when it may go on, what the model is told of
each decision, and that of two resumes of one run only one goes on."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import pytest
import trio

from fieldhouse.actors.admin_ops import RevokeApiKey
from fieldhouse.agents.approve import approve
from fieldhouse.agents.contract import ToolCall, ToolOutcome, ToolSpec
from fieldhouse.agents.providers import OfflineProvider
from fieldhouse.agents.providers.base import Step, TextSink, Turn
from fieldhouse.agents.registry import build_executor
from fieldhouse.agents.resume import decided_outcome, load_run, prepare_resume
from fieldhouse.agents.run import AgentRun, AgentRuntime, RunRequest
from fieldhouse.agents.run_writes import AGENT_RUN, SaveRun
from fieldhouse.agents.writes import DecideApproval
from fieldhouse.model.agents import Approval, ApprovalStatus, RunRecord, RunStatus, ToolCallEntry
from fieldhouse.model.errors import Conflict, NotFound
from fieldhouse.model.principal import Principal
from fieldhouse.runtime import Runtime
from tests.agents import toolkit
from tests.agents.toolkit import approver, objects, principal_of
from tests.conftest import Workspace, add_user

NOW = "2026-06-01T00:00:00.000000Z"
MAIL = "send an email to bob@example.com about Pricing"


def agents(runtime: Runtime) -> AgentRuntime:
    return AgentRuntime(
        runtime.settings, runtime.actors, runtime.store, OfflineProvider(), build_executor()
    )


async def stored(runtime: Runtime, ws: Workspace, run_id: str) -> RunRecord:
    row = await runtime.store.get_object(ws.account_id, AGENT_RUN, run_id)
    assert row is not None
    return RunRecord.from_row(row)


def waiting(summary: str = "Sending the e-mail awaits approval (id ap-1).") -> ToolCallEntry:
    return ToolCallEntry("c1", "email.send", {}, "pending_approval", summary, {}, "ap-1")


def approval(status: ApprovalStatus, **changes: object) -> Approval:
    """The approval the run of ``waiting()`` waits for: the e-mail 'Pricing' to Bob."""
    pricing = toolkit.approval(
        status,
        arguments={"to": ["bob@example.com"]},
        description="Sending the e-mail 'Pricing' to bob@example.com",
        call_id="c1",
        requested_key=None,
    )
    return pricing.but(**changes)


def run_record(user_id: str | None, status: RunStatus = RunStatus.SUCCEEDED) -> RunRecord:
    running = status == RunStatus.RUNNING
    return RunRecord(
        "run-1", None, user_id, None, "hi", "offline", status, 1, [], [], "", 0, None, NOW,
        auth_method="api_key",
        lease_owner="another-process" if running else None,
        lease_until="2999-01-01T00:00:00.000000Z" if running else None,
    )  # fmt: skip


def test_the_model_is_told_what_became_of_each_approval() -> None:
    said = {
        status: decided_outcome(approval(status, **changes), waiting(), NOW)
        for status, changes in (
            (ApprovalStatus.EXECUTED, {}),
            (ApprovalStatus.REJECTED, {"reason": "Wrong recipient"}),
            (ApprovalStatus.FAILED, {"error": "SMTP refused"}),
            (ApprovalStatus.PENDING, {}),
        )
    }
    assert [(o.status, o.summary) for o in said.values()] == [
        ("ok", "Approved and done: Sending the e-mail 'Pricing' to bob@example.com."),
        ("rejected", "An approver rejected this call: Wrong recipient."),
        ("error", "Approved, but it failed: SMTP refused"),
        ("pending_approval", "Sending the e-mail awaits approval (id ap-1)."),
    ]
    assert said[ApprovalStatus.REJECTED].result["reason"] == "Wrong recipient"
    assert said[ApprovalStatus.PENDING].approval_id == "ap-1"
    edited = approval(
        ApprovalStatus.EXECUTED,
        arguments={"to": ["eve@example.com"]},
        original_arguments={"to": ["bob@example.com"]},
    )
    outcome = decided_outcome(edited, waiting(), NOW)
    assert outcome.summary.startswith("Approved with edited arguments and done: ")
    assert outcome.result["arguments"] == {"to": ["eve@example.com"]}
    no_reason = decided_outcome(approval(ApprovalStatus.REJECTED), waiting(), NOW)
    assert no_reason.summary == "An approver rejected this call: no reason given."
    late = approval(ApprovalStatus.PENDING, expires_at="2026-01-02T00:00:00.000000Z")
    expired = decided_outcome(late, waiting(), NOW)
    assert (expired.status, expired.result["status"]) == ("error", "expired")
    gone = decided_outcome(None, waiting(), NOW)
    assert (gone.status, gone.summary) == ("error", "The approval of this call no longer exists")


async def test_a_run_is_seen_by_its_user_and_the_admins_only(
    runtime: Runtime, ws: Workspace
) -> None:
    member = await add_user(runtime, ws, "member")
    await runtime.actors.ask(SaveRun(run_record(member.owner_id), by=ws.system))
    rt = agents(runtime)
    mine = await load_run(rt, await principal_of(runtime, member), "run-1")
    assert mine.user_id == member.owner_id
    assert (await load_run(rt, await principal_of(runtime, ws), "run-1")).run_id == "run-1"
    other = await add_user(runtime, ws, "member", ("agents:write",))
    with pytest.raises(NotFound) as hidden:
        await load_run(rt, await principal_of(runtime, other), "run-1")
    assert hidden.value.data == {"runId": "run-1"}
    with pytest.raises(NotFound):
        await load_run(rt, await principal_of(runtime, member), "run-1" + "x" * 100)


async def test_only_a_finished_run_with_a_waiting_call_is_resumed(
    runtime: Runtime, ws: Workspace
) -> None:
    rt, principal = agents(runtime), await principal_of(runtime, ws)
    await runtime.actors.ask(SaveRun(run_record(ws.owner_id, RunStatus.RUNNING), by=ws.system))
    with pytest.raises(Conflict, match="Run run-1 is still running"):
        await prepare_resume(rt, principal, "run-1")
    await runtime.actors.ask(SaveRun(run_record(ws.owner_id), by=ws.system))
    with pytest.raises(Conflict, match=r"has ended \(succeeded\)"):
        await prepare_resume(rt, principal, "run-1")


async def test_a_resumed_run_reads_the_decision_and_goes_on(
    runtime: Runtime, ws: Workspace
) -> None:
    rt, principal = agents(runtime), await principal_of(runtime, ws)
    first = AgentRun(rt, RunRequest(principal, MAIL, None))
    (approval_id,) = (await first.execute())["pendingApprovals"]
    with pytest.raises(Conflict) as undecided:
        await prepare_resume(rt, principal, first.run_id)
    assert undecided.value.data == {"pendingApprovals": [approval_id]}
    reject = DecideApproval(
        approval_id, False, reason="Wrong recipient", by=approver(ws.account_id)
    )
    await runtime.actors.ask(reject)
    resumed = await prepare_resume(rt, principal, first.run_id)
    rival = await prepare_resume(rt, principal, first.run_id)
    response = await resumed.execute()
    assert response["runId"] == first.run_id and response["success"] is True
    assert response["response"] == "An approver rejected this call: Wrong recipient."
    record = await stored(runtime, ws, first.run_id)
    assert (record.status, record.created_at) == ("succeeded", first.created_at)
    assert [(e.status, e.result.get("reason")) for e in record.tool_calls] == [
        ("rejected", "Wrong recipient")
    ]
    # the other resume read the same version: it may not go on as well
    with pytest.raises(Conflict, match="it was resumed meanwhile"):
        await rival.execute()
    assert await stored(runtime, ws, first.run_id) == record


@dataclass
class Rounds:
    """A model that asks for one e-mail per round until three went out, then answers; it
    keeps what it was told of each call, and can be made to stall once."""

    seen: list[ToolOutcome] = field(default_factory=list)
    stall: trio.Event | None = None
    stalled: trio.Event = field(default_factory=trio.Event)
    name: str = "rounds"

    async def step(self, turns: Sequence[Turn], tools: Sequence[ToolSpec], emit: TextSink) -> Step:
        self.seen = [t.outcome for t in turns if t.outcome is not None]
        if self.stall is not None:
            self.stalled.set()
            await self.stall.wait()
        if any(o.status == "pending_approval" for o in self.seen):
            await emit("Waiting for an approval.")
            return Step((), "Waiting for an approval.")
        sent = [o for o in self.seen if o.status == "ok"]
        if len(sent) < 3:
            mail = {"to": [f"r{len(sent)}@example.com"], "subject": "Hi", "body": "Hello"}
            return Step((ToolCall(f"c{len(self.seen)}", "email.send", mail),))
        await emit("All sent.")
        return Step((), "All sent.")


async def approve_all(runtime: Runtime, admin: Principal, pending: list[str]) -> None:
    for approval_id in pending:
        await approve(runtime.services.agents, build_executor(), admin, approval_id, None)


async def test_a_run_is_resumed_as_often_as_it_waits_until_it_ends(
    runtime: Runtime, ws: Workspace
) -> None:
    """Issue 32 item 2: waiting -> running -> waiting ... -> succeeded, one resume each time;
    the model reads each approved call's result; an ended run is not resumed."""
    model = Rounds()
    rt = AgentRuntime(runtime.settings, runtime.actors, runtime.store, model, build_executor())
    principal = await principal_of(runtime, ws)
    run = AgentRun(rt, RunRequest(principal, "mail three people", None))
    response = await run.execute()
    admin = await principal_of(runtime, await add_user(runtime, ws, "admin"))
    for _ in range(3):
        assert (await stored(runtime, ws, run.run_id)).status == "waiting"
        await approve_all(runtime, admin, response["pendingApprovals"])
        response = await (await prepare_resume(rt, principal, run.run_id)).execute()
        assert response["success"] is True
    assert response["response"] == "All sent."
    record = await stored(runtime, ws, run.run_id)
    assert record.status == "succeeded" and len(record.tool_calls) == 3
    emails = {e.object_id for e in await objects(runtime, ws, "email")}
    told = {o.result["result"]["email"]["id"] for o in model.seen}
    assert len(emails) == 3 and told == emails  # each approved call's result reached it
    with pytest.raises(Conflict, match=r"has ended \(succeeded\)"):
        await prepare_resume(rt, principal, run.run_id)


async def test_a_resume_cut_short_is_resumed_and_the_model_then_reads_the_decision(
    runtime: Runtime, ws: Workspace
) -> None:
    """Issue 32 item 2: a resume whose client goes away at once leaves the run aborted and
    resumable (it was left un-resumable, the decision never told to the model)."""
    model = Rounds()
    rt = AgentRuntime(runtime.settings, runtime.actors, runtime.store, model, build_executor())
    principal = await principal_of(runtime, ws)
    run = AgentRun(rt, RunRequest(principal, "mail three people", None))
    (approval_id,) = (await run.execute())["pendingApprovals"]
    await runtime.actors.ask(
        DecideApproval(approval_id, False, reason="Not r0", by=approver(ws.account_id))
    )
    model.stall = trio.Event()
    async with trio.open_nursery() as nursery:
        nursery.start_soon((await prepare_resume(rt, principal, run.run_id)).execute)
        await model.stalled.wait()
        nursery.cancel_scope.cancel()  # the client went away
    assert (await stored(runtime, ws, run.run_id)).status == "aborted"
    model.stall = None
    again = await prepare_resume(rt, principal, run.run_id)
    await again.execute()
    assert model.seen[0].summary == "An approver rejected this call: Not r0."
    assert (await stored(runtime, ws, run.run_id)).status == "waiting"


async def test_a_revoked_requesters_run_is_not_resumed_by_anyone(
    runtime: Runtime, ws: Workspace
) -> None:
    member = await add_user(runtime, ws, "member")
    rt = agents(runtime)
    first = AgentRun(rt, RunRequest(await principal_of(runtime, member), MAIL, None))
    (approval_id,) = (await first.execute())["pendingApprovals"]
    await runtime.actors.ask(DecideApproval(approval_id, False, by=approver(ws.account_id)))
    await runtime.actors.ask(RevokeApiKey(member.key_id, by=ws.system))
    with pytest.raises(Conflict, match="has since been revoked"):
        await prepare_resume(rt, await principal_of(runtime, ws), first.run_id)
