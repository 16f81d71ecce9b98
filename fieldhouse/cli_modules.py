"""`fieldhouse module ...` and `fieldhouse field ...`: custom modules and fields from the
command line, through the workspace actor as the /api routes go (the same messages, the same
checks, the same activity entries). A module or field file holds the JSON body the matching
route takes (POST /api/modules, POST /api/modules/{moduleId}/fields)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import orjson
from pyrsistent import pmap

from fieldhouse.actors.module_ops import CreateModule, UpdateModule
from fieldhouse.actors.schemas import WorkspaceSchemas
from fieldhouse.actors.system import ActorSystem
from fieldhouse.actors.template_ops import CreateField, UpdateField
from fieldhouse.http.module_models import ModuleCreateBody
from fieldhouse.http.serialize import field_item, module_object, module_schema
from fieldhouse.http.template_models import FieldCreateBody
from fieldhouse.http.validation import validate_model
from fieldhouse.model.errors import BadRequest, NotFound
from fieldhouse.model.principal import SystemActor
from fieldhouse.model.schema import ModuleDef, ModuleSchema


def read_json(path: Path) -> Any:
    """A JSON file's value; a file that cannot be read is an OSError (exit 2), one that is not
    JSON a 400 naming it."""
    raw = path.read_bytes()
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise BadRequest(f"{path} is not valid JSON: {exc}") from None


async def _account(system: ActorSystem, account_id: str) -> str:
    if await system.store.get_account(account_id) is None:
        raise NotFound(f"Workspace {account_id} not found")
    return account_id


async def _module(system: ActorSystem, account: str, slug: str) -> ModuleDef:
    """A module by slug, archived ones too."""
    for module in await system.store.all_modules(account):
        if module.slug == slug:
            return module
    raise NotFound(f"Module {slug!r} not found in workspace {account}")


async def _live(system: ActorSystem, account: str, slug: str) -> ModuleSchema:
    _, schemas = await system.store.load_schemas(account)
    schema = schemas.get(slug)
    if schema is None:
        raise NotFound(f"Module {slug!r} not found in workspace {account} (or it is archived)")
    return schema


async def module_command(args: argparse.Namespace, system: ActorSystem) -> dict[str, Any]:
    account = await _account(system, args.workspace)
    if args.action == "list":
        return {"modules": [module_object(m) for m in await system.store.all_modules(account)]}
    if args.action == "create":
        body = validate_model(ModuleCreateBody, read_json(args.file))
        schema: ModuleSchema = await system.ask(
            CreateModule(body.slug, body.name, body.specs(), by=SystemActor(account, "cli"))
        )
        alone = WorkspaceSchemas(0, pmap({schema.module.slug: schema}))
        return module_schema(schema, alone)
    module = await _module(system, account, args.slug)
    done: ModuleDef = await system.ask(
        UpdateModule(
            module.module_id, archived=args.action == "archive", by=SystemActor(account, "cli")
        )
    )
    return {"module": module_object(done)}


async def field_command(args: argparse.Namespace, system: ActorSystem) -> dict[str, Any]:
    account = await _account(system, args.workspace)
    schema = await _live(system, account, args.module)
    module_id = schema.module.module_id
    if args.action == "add":
        body = validate_model(FieldCreateBody, read_json(args.file))
        made = await system.ask(
            CreateField(
                module_id,
                body.label,
                body.slug,
                body.dataType,
                body.config,
                body.isRequired,
                name=body.name,
                privacy_level=body.privacyLevel,
                sort_order=body.sortOrder,
                by=SystemActor(account, "cli"),
            ),
        )
        return {"field": field_item(made)}
    field = schema.field(args.slug) or schema.archived_field(args.slug)
    if field is None:
        raise NotFound(f"Field {args.slug!r} not found in module {args.module!r}")
    changed, _ = await system.ask(
        UpdateField(
            module_id,
            field.field_id,
            archived=args.action == "archive",
            by=SystemActor(account, "cli"),
        )
    )
    return {"field": field_item(changed)}
