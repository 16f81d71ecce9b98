"""Record tools: search, get, create and update records with the caller's permissions.

A module the caller's role cannot view does not exist for the agent ("module not found", as
over HTTP); a module it can view but not edit refuses writes. Search runs the list-records
query machinery (SPEC endpoint 7): ``query`` is the free-text ``search``, ``filters`` are the
simple ``filter[slug]`` filters (a list means any of its values), ``advancedFilter`` is the
SPEC's advanced filter object ``{root: Group}``.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any, Literal

from pydantic import Field, model_validator

from fieldhouse.actors.record_ops import CreateRecord, UpdateRecord
from fieldhouse.agents.contract import ToolContext, ToolOutcome
from fieldhouse.agents.tools.base import (
    Args,
    Tool,
    log_read,
    make_tool,
    ok,
    short,
    tool_call_entry,
)
from fieldhouse.agents.writes import AgentRecordOp, Consume
from fieldhouse.model.clock import is_uuid
from fieldhouse.model.errors import ApiError, Conflict, NotFound
from fieldhouse.model.fields import type_of
from fieldhouse.model.listquery import parse_list_query
from fieldhouse.model.records import RecordRow
from fieldhouse.model.schema import ModuleSchema

Scalar = str | int | float | bool


class SearchArgs(Args):
    module: str = Field(min_length=1, max_length=64, description="module slug, e.g. contacts")
    query: str | None = Field(default=None, max_length=1000, description="free text")
    filters: dict[str, Scalar | list[Scalar]] = Field(
        default_factory=dict, description="field slug -> exact value (a list: any of them)"
    )
    advancedFilter: dict[str, Any] | None = Field(
        default=None, description="the advanced filter {root: {conjunction, conditions}}"
    )
    sortField: str | None = None
    sortDirection: Literal["asc", "desc"] | None = None
    limit: int = Field(default=10, ge=1, le=50)


class GetArgs(Args):
    module: str = Field(min_length=1, max_length=64)
    recordId: str = Field(min_length=36, max_length=36)


class CreateArgs(Args):
    module: str = Field(min_length=1, max_length=64)
    displayName: str = Field(min_length=1, max_length=500)
    fields: dict[str, Any] = Field(default_factory=dict, description="field slug -> value")


class UpdateArgs(Args):
    module: str = Field(min_length=1, max_length=64)
    recordId: str | None = Field(default=None, min_length=36, max_length=36)
    name: str | None = Field(
        default=None,
        min_length=1,
        max_length=500,
        description="the record's display name, instead of recordId; refused (with the "
        "candidates) unless exactly one record has it",
    )
    displayName: str | None = Field(default=None, min_length=1, max_length=500)
    fields: dict[str, Any] | None = None

    @model_validator(mode="after")
    def _one_target(self) -> UpdateArgs:
        if (self.recordId is None) == (self.name is None):
            raise ValueError("give exactly one of recordId and name")
        return self


#: at most this many candidates are listed when a name is ambiguous
CANDIDATES = 10


async def _module(ctx: ToolContext, slug: str, *, write: bool = False) -> ModuleSchema:
    principal = ctx.principal
    schemas = await ctx.actors.schemas.get(principal.account_id)
    schema = schemas.get(slug)
    if schema is None or not principal.can_view(slug):
        raise NotFound(f"Module {slug!r} not found")
    if write:  # refused before an approval is asked for; the actor checks it as it writes
        principal.check_edit(slug)
    return schema


async def _may_write(args: CreateArgs | UpdateArgs, ctx: ToolContext) -> None:
    await _module(ctx, args.module, write=True)


def _text(value: Scalar) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


async def search(args: SearchArgs, ctx: ToolContext, consume: Consume | None) -> ToolOutcome:
    schema = await _module(ctx, args.module)
    pairs = [("pageSize", str(args.limit))]
    if args.query:
        pairs.append(("search", args.query))
    for slug, value in args.filters.items():
        values = value if isinstance(value, list) else [value]
        pairs.append((f"filter[{slug}]", ",".join(_text(v) for v in values)))
    if args.advancedFilter is not None:
        pairs.append(("advancedFilter", json.dumps(args.advancedFilter)))
    if args.sortField:
        pairs.append(("sortField", args.sortField))
    if args.sortDirection:
        pairs.append(("sortDirection", args.sortDirection))
    query = parse_list_query(pairs, schema)
    rows, total = await ctx.store.list_records(ctx.principal.account_id, schema, query)
    summary = f"Found {total} {args.module} record(s)."
    await log_read(ctx, "records.search", summary)
    outcome = ok(summary, records=[r.to_json(args.module) for r in rows], total=total)
    return replace(outcome, read=tuple(_read(args.module, r) for r in rows))


async def get(args: GetArgs, ctx: ToolContext, consume: Consume | None) -> ToolOutcome:
    schema = await _module(ctx, args.module)
    row = None
    if is_uuid(args.recordId.lower()):
        row = await ctx.store.get_record(
            ctx.principal.account_id, schema.module.module_id, args.recordId.lower()
        )
    if row is None:
        raise NotFound(f"Record {args.recordId} not found")
    summary = f"Read {args.module} record {row.display_name}."
    await log_read(ctx, "records.get", summary)
    return replace(ok(summary, record=row.to_json(args.module)), read=(_read(args.module, row),))


def _read(module: str, row: RecordRow) -> dict[str, Any]:
    """Which record text a call showed the model (the run lists it)."""
    return {"module": module, "recordId": row.record_id, "displayName": row.display_name}


def with_defaults(schema: ModuleSchema, values: dict[str, Any]) -> dict[str, Any]:
    """The values with each required field the model left out set to the field's configured
    default (a task's status, a deal's stage): a model asked to "add a task" names no status,
    and the record would be refused for want of one it has a default for."""
    filled = dict(values)
    for field in schema.fields:
        kind = type_of(field)
        if field.is_required and field.slug not in filled and kind is not None:
            default = kind.default(field)
            if default is not None:
                filled[field.slug] = default
    return filled


async def create(args: CreateArgs, ctx: ToolContext, consume: Consume | None) -> ToolOutcome:
    schema = await _module(ctx, args.module, write=True)
    summary = f"Created {args.module} record {args.displayName}."
    principal = ctx.principal
    inner = CreateRecord(
        schema.module.module_id,
        args.displayName,
        with_defaults(schema, args.fields),
        None,
        by=principal,
    )
    row = await _ask(ctx, "records.create", summary, inner, consume)
    return ok(summary, record=row.to_json(args.module))


async def _by_name(ctx: ToolContext, schema: ModuleSchema, module: str, name: str) -> str:
    """The id of the one record named ``name``; with none or several, an error that lists the
    candidates, so nothing is changed on a guess."""
    query = parse_list_query([("pageSize", "50"), ("search", name)], schema)
    rows, _ = await ctx.store.list_records(ctx.principal.account_id, schema, query)
    exact = [r for r in rows if r.display_name.casefold() == name.strip().casefold()]
    if len(exact) == 1:
        return exact[0].record_id
    shown = exact or rows
    candidates = [{"recordId": r.record_id, "displayName": r.display_name} for r in shown]
    listed = "; ".join(f"{c['displayName']} ({c['recordId']})" for c in candidates[:CANDIDATES])
    if len(exact) > 1:
        raise Conflict(
            f"{len(exact)} {module} records are named {name!r}; nothing was changed. "
            f"Give the recordId of one: {listed}",
            data={"candidates": candidates[:CANDIDATES]},
        )
    more = f" Similar: {listed}" if candidates else ""
    raise NotFound(
        f"No {module} record is named {name!r}; nothing was changed.{more}",
        data={"candidates": candidates[:CANDIDATES]},
    )


async def _target(ctx: ToolContext, schema: ModuleSchema, args: UpdateArgs) -> str:
    """The id of the record an update names (by id, or by its one exact name)."""
    if args.recordId is None:
        assert args.name is not None
        return await _by_name(ctx, schema, args.module, args.name)
    if is_uuid(args.recordId.lower()):
        return args.recordId.lower()
    raise NotFound(f"Record {args.recordId} not found")


async def update_preview(args: UpdateArgs, ctx: ToolContext) -> dict[str, Any]:
    """What an approver sees before a record update: the record as it is, and each change
    from its current value to the new one (``found: false`` when there is no such record)."""
    try:
        schema = await _module(ctx, args.module)
        record_id = await _target(ctx, schema, args)
    except ApiError as exc:
        return {"found": False, "module": args.module, "error": exc.message}
    row = await ctx.store.get_record(ctx.principal.account_id, schema.module.module_id, record_id)
    if row is None:
        return {"found": False, "module": args.module, "recordId": record_id}
    changes = {
        slug: {"from": row.fields.get(slug), "to": value}
        for slug, value in (args.fields or {}).items()
    }
    if args.displayName is not None:
        changes["displayName"] = {"from": row.display_name, "to": args.displayName}
    return {
        "found": True,
        "module": args.module,
        "recordId": record_id,
        "displayName": row.display_name,
        "changes": changes,
    }


async def create_preview(args: CreateArgs, ctx: ToolContext) -> dict[str, Any]:
    """What an approver sees before a record is made (when the policy asks for approvals)."""
    return {"module": args.module, "displayName": args.displayName, "fields": dict(args.fields)}


def _describe_update(args: UpdateArgs) -> str:
    """What an update does, values included, so an approval edited to other values says so."""
    what = args.name if args.recordId is None else args.recordId
    changes = dict(args.fields or {})
    if args.displayName is not None:
        changes = {"displayName": args.displayName, **changes}
    said = [
        f"{slug} to {short(json.dumps(value, default=str), 40)}" for slug, value in changes.items()
    ]
    return f"Updating {args.module} record {what!r}: " + (", ".join(said) or "no change")


async def update(args: UpdateArgs, ctx: ToolContext, consume: Consume | None) -> ToolOutcome:
    schema = await _module(ctx, args.module, write=True)
    record_id = await _target(ctx, schema, args)
    summary = f"Updated {args.module} record {record_id}."
    principal = ctx.principal
    inner = UpdateRecord(
        schema.module.module_id,
        record_id,
        args.displayName,
        args.fields,
        by=principal,
    )
    row = await _ask(ctx, "records.update", summary, inner, consume)
    return ok(f"Updated {args.module} record {row.display_name}.", record=row.to_json(args.module))


async def _ask(
    ctx: ToolContext,
    tool: str,
    summary: str,
    inner: CreateRecord | UpdateRecord,
    consume: Consume | None,
) -> RecordRow:
    extra = {"approvalId": consume.approval_id} if consume is not None else {}
    message = AgentRecordOp(
        inner,
        tool_call_entry(ctx, tool, summary, **extra),
        consume,
        by=ctx.principal,
    )
    row: RecordRow = await ctx.actors.ask(message)
    return row


TOOLS: tuple[Tool, ...] = (
    make_tool(
        "records.search",
        "Find records of a module by free text and/or exact field filters.",
        SearchArgs,
        search,
        lambda a: f"Searching {a.module}" + (f" for {a.query!r}" if a.query else ""),
        scope="records:read",
    ),
    make_tool(
        "records.get",
        "Read one record of a module by its id.",
        GetArgs,
        get,
        lambda a: f"Reading a {a.module} record",
        scope="records:read",
    ),
    make_tool(
        "records.create",
        "Create a record in a module (fields by slug).",
        CreateArgs,
        create,
        lambda a: f"Creating {a.module} record {a.displayName!r}",
        scope="records:write",
        preview=create_preview,
        check=_may_write,
    ),
    make_tool(
        "records.update",
        "Change a record's display name or fields (only the given ones change). Name the "
        "record by recordId, or by name when exactly one record has that display name.",
        UpdateArgs,
        update,
        _describe_update,
        scope="records:write",
        preview=update_preview,
        check=_may_write,
    ),
)
