"""What every tool is made of: a spec, a pydantic arguments model, and a run function.

Tools never decide whether they may run: the gate (``agents/gate.py``) does, and hands them a
:class:`~fieldhouse.agents.writes.Consume` when an approval is used up, which the tool passes
on to the actor with its writes so both commit together.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict

from fieldhouse.actors.object_ops import ObjectWrite
from fieldhouse.agents.contract import ToolContext, ToolOutcome, ToolSpec
from fieldhouse.agents.writes import Consume, ToolWrites
from fieldhouse.model.clock import to_iso
from fieldhouse.storage.objects import ObjectRow

_EMAIL = re.compile(r"[^@\s<>\"',;]+@[^@\s<>\"',;]+\.[^@\s<>\"',;]+")


class Args(BaseModel):
    """Base of every tool's arguments: unknown properties are refused, never ignored."""

    model_config = ConfigDict(extra="forbid", frozen=True)


def _email(value: str) -> str:
    value = value.strip()
    if len(value) > 320 or _EMAIL.fullmatch(value) is None:
        raise ValueError(f"{value!r} is not an e-mail address")
    return value


def _moment(value: str) -> str:
    """An ISO 8601 date-time, normalised to the store's UTC form (naive means UTC)."""
    try:
        parsed = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(f"{value!r} is not an ISO 8601 date-time") from None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return to_iso(parsed)


Email = Annotated[str, AfterValidator(_email)]
Moment = Annotated[str, AfterValidator(_moment)]

Run = Callable[[Any, ToolContext, Consume | None], Awaitable[ToolOutcome]]
#: what an approver is shown: the exact content the call would send or publish
Preview = Callable[[Any, ToolContext], Awaitable[dict[str, Any]]]


#: the caller's permission for the call, checked before an approval is even requested
Check = Callable[[Any, ToolContext], Awaitable[None]]


async def no_preview(args: Any, ctx: ToolContext) -> dict[str, Any]:
    return {}


async def no_check(args: Any, ctx: ToolContext) -> None:
    return None


@dataclass(frozen=True)
class Tool:
    spec: ToolSpec
    args: type[Args]
    run: Run
    #: what the call does, in a few words ("Sending the e-mail 'Hi' to ada@example.com")
    describe: Callable[[Any], str]
    #: the scope the REST endpoint of the same action needs (agents:write where there is none)
    scope: str = "agents:write"
    preview: Preview = no_preview
    check: Check = no_check


def make_tool(
    name: str,
    description: str,
    args: type[Args],
    run: Run,
    describe: Callable[[Any], str],
    *,
    external: bool = False,
    scope: str = "agents:write",
    preview: Preview = no_preview,
    check: Check = no_check,
) -> Tool:
    schema = _inline(args.model_json_schema(), args.model_json_schema().get("$defs", {}))
    schema.pop("$defs", None)
    schema.pop("title", None)
    spec = ToolSpec(name, description, schema, external)
    return Tool(spec, args, run, describe, scope, preview, check)


def _inline(node: Any, defs: Mapping[str, Any]) -> Any:
    """The schema with every ``$ref`` replaced by its definition (providers like it flat)."""
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            return _inline(defs[ref.removeprefix("#/$defs/")], defs)
        return {k: _inline(v, defs) for k, v in node.items() if k != "$defs"}
    if isinstance(node, list):
        return [_inline(v, defs) for v in node]
    return node


def tool_call_entry(ctx: ToolContext, tool: str, summary: str, **extra: Any) -> dict[str, Any]:
    """The data of an ``agent_tool_call`` activity entry."""
    return {"tool": tool, "runId": ctx.run_id, "agentId": ctx.agent_id, "summary": summary, **extra}


async def apply(
    ctx: ToolContext,
    tool: str,
    summary: str,
    writes: tuple[ObjectWrite, ...],
    consume: Consume | None,
) -> list[ObjectRow]:
    """Write the tool's objects, use up its approval and log the call, in one transaction."""
    extra = {"approvalId": consume.approval_id} if consume is not None else {}
    rows: list[ObjectRow] = await ctx.actors.ask(
        ToolWrites(
            writes,
            consume,
            tool_call_entry(ctx, tool, summary, **extra),
            by=ctx.principal,
        ),
    )
    return rows


async def log_read(ctx: ToolContext, tool: str, summary: str) -> None:
    """Record a read-only tool call in the activity feed."""
    await apply(ctx, tool, summary, (), None)


def object_json(row: ObjectRow) -> dict[str, Any]:
    """An object as tools and the approvals API show it (without the requester's key id)."""
    shown = {k: v for k, v in row.data.items() if k != "apiKeyId"}
    return {
        "id": row.object_id,
        "kind": row.kind,
        "status": row.status,
        "dueAt": row.due_at,
        "createdDateTime": row.created_at,
        "updatedDateTime": row.updated_at,
        **shown,
    }


async def stored_preview(
    ctx: ToolContext, kind: str, object_id: str, fields: tuple[str, ...], **extra: Any
) -> dict[str, Any]:
    """The content of the object a call acts on, as an approver must see it before it goes
    out (``found: false`` when there is no such object)."""
    row = await ctx.store.get_object(ctx.principal.account_id, kind, object_id)
    if row is None:
        return {"found": False, **extra}
    shown = {f: row.data.get(f) for f in fields if row.data.get(f) is not None}
    return {"found": True, "status": row.status, **shown, **extra}


def ok(summary: str, **result: Any) -> ToolOutcome:
    return ToolOutcome("ok", result, summary)


def requested(ctx: ToolContext) -> dict[str, Any]:
    """Who asked for an object, stored in its data: the requester's identity, so what goes out
    later (a queued e-mail, a scheduled post) goes out only while they may still act."""
    principal = ctx.principal
    return {
        "createdBy": principal.user_id,
        "apiKeyId": principal.api_key_id,
        "authMethod": principal.auth_method,
        "runId": ctx.run_id,
        "agentId": ctx.agent_id,
    }


def short(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
