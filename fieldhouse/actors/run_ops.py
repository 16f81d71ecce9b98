"""Agents and agent runs through the workspace actor: named agents and run records. (The tools
log their own ``agent_tool_call`` activity entries, with their writes.)"""

from __future__ import annotations

from dataclasses import dataclass

from fieldhouse.actors.context import WriteContext
from fieldhouse.actors.messages import Message
from fieldhouse.model.activity import ActivityKind
from fieldhouse.model.agents import Kind, RunRecord
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
    of one run, one wins)."""

    record: RunRecord
    expect: str | None = None

    async def apply(self, ctx: WriteContext) -> None:
        return await save_run(ctx, self)


async def create_agent(ctx: WriteContext, msg: CreateAgent) -> str:
    name, prompt = msg.name.strip(), msg.prompt.strip()
    if not name or len(name) > 200:
        raise BadRequest("An agent's name must have 1 to 200 characters")
    if not prompt or len(prompt) > 20_000:
        raise BadRequest("An agent's prompt must have 1 to 20000 characters")
    agent_id = new_id()
    data = {"agentId": agent_id, "name": name, "prompt": prompt, "createdBy": msg.actor_user_id}
    await ctx.txn.put_object(
        ObjectRow(ctx.account_id, AGENT, agent_id, data, "active", None, ctx.now, ctx.now)
    )
    await ctx.activity(
        ActivityKind.AGENT_CREATED,
        user_id=msg.actor_user_id,
        data={"agentId": agent_id, "name": name},
    )
    return agent_id


async def save_run(ctx: WriteContext, msg: SaveRun) -> None:
    run = msg.record
    if msg.expect is not None:
        # the workspace actor applies one write at a time: this check and the write are one step
        old = await ctx.txn.get_object(AGENT_RUN, run.run_id)
        if old is None or old.updated_at != msg.expect:
            raise Conflict(
                f"Run {run.run_id} changed since it was read: it was resumed meanwhile",
                data={"runId": run.run_id},
            )
    row = ObjectRow(
        ctx.account_id, AGENT_RUN, run.run_id, run.data(), run.status, None, run.created_at, ctx.now
    )
    await ctx.txn.put_object(row)
