"""Custom modules (outside /v1): create one with its fields, list, rename, archive, unarchive.

Owners and admins only. Each change is one message to the workspace actor, so one transaction
ordered with the record writes, with its entry in the activity feed; every worker and server
reads the new schema before its next request of the workspace (``actors/module_ops.py``).
Fields are added, renamed and archived through ``/api/modules/{moduleId}/fields``
(``template_admin.py``).
"""

from __future__ import annotations

from typing import Any

from pyrsistent import pmap

from fieldhouse.actors.module_ops import MAX_MODULES, CreateModule, UpdateModule
from fieldhouse.actors.schemas import WorkspaceSchemas
from fieldhouse.actors.template_ops import MAX_FIELDS_PER_MODULE
from fieldhouse.http.endpoint import Routes
from fieldhouse.http.json import json_response
from fieldhouse.http.module_models import (
    AdminModuleList,
    ModuleCreateBody,
    ModuleCreated,
    ModuleUpdateBody,
    ModuleUpdated,
)
from fieldhouse.http.routes.common import check_uuid
from fieldhouse.http.serialize import module_object, module_schema
from fieldhouse.model.principal import Principal
from fieldhouse.model.schema import ModuleDef, ModuleSchema
from fieldhouse.services import Services

routes = Routes()
BASE = "/api/modules"


@routes.endpoint(
    "GET",
    BASE,
    summary="Every module of the workspace, archived ones too",
    description="Archived modules (isActive false) are listed here only: they are gone from "
    "/v1 until PATCH /api/modules/{moduleId} {archived: false} brings them back.",
    scope="workspace:read",
    tag="modules",
    admin_only=True,
    responses={200: AdminModuleList},
)
async def list_all_modules(svc: Services, principal: Principal) -> Any:
    modules = await svc.store.all_modules(principal.account_id)
    return {"modules": [module_object(m) for m in modules]}


@routes.endpoint(
    "POST",
    BASE,
    summary="Create a custom module with its fields",
    description="A user-created module (vendorManaged false, no template) and its fields in "
    "one transaction: nothing is written when anything is refused. Each field takes the "
    "shape of POST /api/modules/{moduleId}/fields; its config is checked by its field type "
    "against the whole new module (400 with issues at fields[i]). A reference field may "
    "link to existing modules or to the new one. The module is usable at once through "
    "/v1/modules/{slug} on every worker and server. The slug is kebab-case, 1-64 "
    f"characters, and never changes. Limits: {MAX_MODULES} modules a workspace, "
    f"{MAX_FIELDS_PER_MODULE} fields a module (archived ones count).",
    scope="workspace:read",
    tag="modules",
    admin_only=True,
    body=ModuleCreateBody,
    responses={201: ModuleCreated},
    conflicts={
        "conflict": "the slug is taken by a module of the workspace (data: slug, moduleId, "
        "archived) or reserved for a built-in template (data: reserved), or the workspace "
        "holds the most modules it may (data: limit)"
    },
)
async def create_module(svc: Services, principal: Principal, body: ModuleCreateBody) -> Any:
    schema: ModuleSchema = await svc.actors.ask(
        CreateModule(body.slug, body.name, body.specs(), by=principal),
    )
    alone = WorkspaceSchemas(0, pmap({schema.module.slug: schema}))
    return module_schema(schema, alone), 201


@routes.endpoint(
    "PATCH",
    BASE + "/{moduleId}",
    summary="Rename, archive or unarchive a module",
    description="name renames (the slug stays). archived true archives as DELETE does; "
    "archived false brings the module back with its fields, records and links.",
    scope="workspace:read",
    tag="modules",
    admin_only=True,
    body=ModuleUpdateBody,
    responses={200: ModuleUpdated},
    conflicts={
        "conflict": "archiving a module that live fields of other modules link to (data: "
        "referencingFields), or bringing one back whose reference fields link to archived "
        "modules (data: archivedTargets)"
    },
)
async def update_module(
    svc: Services, principal: Principal, moduleId: str, body: ModuleUpdateBody
) -> Any:
    check_uuid(moduleId, "moduleId")
    module: ModuleDef = await svc.actors.ask(
        UpdateModule(moduleId.lower(), body.name, body.archived, by=principal),
    )
    return {"module": module_object(module)}


@routes.endpoint(
    "DELETE",
    BASE + "/{moduleId}",
    summary="Archive a module",
    description="The module leaves GET /v1/modules; its records answer 404 through /v1 and "
    "leave search, aggregation and the event stream; its definition, records and links are "
    "kept (PATCH {archived: false} brings them back). Archiving an archived module changes "
    "nothing. 409 while live reference fields of other modules link to it.",
    scope="workspace:read",
    tag="modules",
    admin_only=True,
    responses={204: None},
    conflicts={
        "conflict": "live fields of other modules link to this one (data: referencingFields)"
    },
)
async def archive_module(svc: Services, principal: Principal, moduleId: str) -> Any:
    check_uuid(moduleId, "moduleId")
    await svc.actors.ask(
        UpdateModule(moduleId.lower(), archived=True, by=principal),
    )
    return json_response(None, 204)
