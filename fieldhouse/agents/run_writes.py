"""Agents and agent runs through the workspace actor: named agents and run records. (The tools
log their own ``agent_tool_call`` activity entries, with their writes.)"""

from __future__ import annotations

from dataclasses import dataclass, replace

from fieldhouse.actors.context import WriteContext
from fieldhouse.actors.messages import Message
from fieldhouse.model.activity import ActivityKind
from fieldhouse.model.agents import Kind, RunRecord, RunStatus
from fieldhouse.model.clock import new_id
from fieldhouse.model.errors import BadRequest, Conflict
from fieldhouse.storage.objects import ObjectRow

AGENT = Kind.AGENT
AGENT_RUN = Kind.RUN


@dataclass(frozen=True)
class CreateAgent(Message[str]):
    name: str
    prompt: str

    async def apply(self, ctx: WriteContext) -> str:
        return await create_agent(ctx, self)


@dataclass(frozen=True)
class SaveRun(Message[None]):
    """Store a run record as it stands (insert or replace). With ``expect``, the stored run must
    still be the version updated at that time (a resumed run claims its record: of two resumes
    of one run, one wins). A running run's lease end is its ``due_at``, so the scheduler finds
    the runs whose process died (``objects_due``)."""

    record: RunRecord
    expect: str | None = None
    #: the process whose run this is: unless claiming (``expect``), a stored run that is no
    #: longer running under this owner is not overwritten (409): it was declared interrupted
    owner: str | None = None

    async def apply(self, ctx: WriteContext) -> None:
        return await save_run(ctx, self)


async def _running(ctx: WriteContext, run_id: str) -> ObjectRow | None:
    """The stored run ``run_id`` while it is running; None once it ended or never was."""
    row = await ctx.txn.get_object(AGENT_RUN, run_id)
    return row if row is not None and row.status == RunStatus.RUNNING else None


@dataclass(frozen=True)
class RenewLease(Message[bool]):
    """The process running a run says it still is: its lease now ends at ``until``. False when
    the run is no longer running under this owner (it ended, or was declared interrupted)."""

    run_id: str
    owner: str
    until: str

    async def apply(self, ctx: WriteContext) -> bool:
        row = await _running(ctx, self.run_id)
        if row is None:
            return False
        if row.data.get("leaseOwner") != self.owner:
            return False
        await ctx.txn.put_object(replace(row, due_at=self.until, updated_at=ctx.now))
        return True


#: what a run interrupted by the death of its process says, and its calls in flight
INTERRUPTED_RUN = "The server process running this run stopped; resume it to go on"
INTERRUPTED_CALL = "The run stopped while this call was in flight; it may or may not have completed"


@dataclass(frozen=True)
class InterruptRun(Message[bool]):
    """A running run whose lease ended at or before ``now`` is stored ``interrupted``, with its
    call in flight ``aborted``: the process running it died. False when its lease was renewed
    meanwhile or it is no longer running."""

    run_id: str
    now: str

    async def apply(self, ctx: WriteContext) -> bool:
        row = await _running(ctx, self.run_id)
        if row is None:
            return False
        if row.due_at is not None and row.due_at > self.now:
            return False
        run = RunRecord.from_row(row)
        for entry in run.tool_calls:
            if entry.status == "running":
                entry.status, entry.summary = "aborted", INTERRUPTED_CALL
        stopped = replace(
            run, status=RunStatus.INTERRUPTED, error=INTERRUPTED_RUN, lease_owner=None
        )
        data = stopped.data()
        await ctx.txn.put_object(
            replace(row, data=data, status=stopped.status, due_at=None, updated_at=ctx.now)
        )
        return True


async def create_agent(ctx: WriteContext, msg: CreateAgent) -> str:
    name, prompt = msg.name.strip(), msg.prompt.strip()
    if not name or len(name) > 200:
        raise BadRequest("An agent's name must have 1 to 200 characters")
    if not prompt or len(prompt) > 20_000:
        raise BadRequest("An agent's prompt must have 1 to 20000 characters")
    agent_id = new_id()
    data = {"agentId": agent_id, "name": name, "prompt": prompt, "createdBy": msg.by.user_id}
    await ctx.txn.put_object(
        ObjectRow(ctx.account_id, AGENT, agent_id, data, "active", None, ctx.now, ctx.now)
    )
    await ctx.activity(
        ActivityKind.AGENT_CREATED,
        user_id=msg.by.user_id,
        data={"agentId": agent_id, "name": name},
    )
    return agent_id


async def save_run(ctx: WriteContext, msg: SaveRun) -> None:
    run = msg.record
    # the workspace actor applies one write at a time: these checks and the write are one step
    old = await ctx.txn.get_object(AGENT_RUN, run.run_id)
    if msg.expect is not None:
        if old is None or old.updated_at != msg.expect:
            raise Conflict(
                f"Run {run.run_id} changed since it was read: it was resumed meanwhile",
                data={"runId": run.run_id},
            )
    elif msg.owner is not None and old is not None and not _runs_here(old, msg.owner):
        raise Conflict(
            f"Run {run.run_id} is no longer running in this process", data={"runId": run.run_id}
        )
    lease = run.lease_until if run.status == RunStatus.RUNNING else None
    await ctx.txn.put_object(
        ObjectRow(
            ctx.account_id,
            AGENT_RUN,
            run.run_id,
            run.data(),
            run.status,
            lease,
            run.created_at,
            ctx.now,
        )
    )


def _runs_here(row: ObjectRow, owner: str) -> bool:
    return row.status == RunStatus.RUNNING and row.data.get("leaseOwner") == owner
