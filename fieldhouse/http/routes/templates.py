"""The template catalog and installation (outside /v1), plus labels and types."""

from __future__ import annotations

from typing import Any

from fieldhouse.actors.admin_ops import CreateLabel, CreateType, InstallTemplate
from fieldhouse.http.endpoint import Routes
from fieldhouse.http.models import (
    Catalog,
    InstalledModule,
    LabelList,
    NamedItem,
    NamedItemBody,
    TypeBody,
    TypeList,
)
from fieldhouse.http.routes.common import check_slug, workspace_schemas
from fieldhouse.model.principal import Principal
from fieldhouse.model.schema import ModuleDef
from fieldhouse.model.template_diff import has_customizations
from fieldhouse.model.templates import BUILTIN_TEMPLATES
from fieldhouse.services import Services

routes = Routes()


@routes.endpoint(
    "GET",
    "/api/templates/catalog",
    summary="Built-in templates and their install state",
    scope="workspace:read",
    tag="templates",
    responses={200: Catalog},
)
async def template_catalog(svc: Services, principal: Principal) -> Any:
    schemas = await workspace_schemas(svc, principal)
    installed = {
        s.module.template_slug: s for s in schemas.modules.values() if s.module.template_slug
    }
    entries = []
    for template in BUILTIN_TEMPLATES:
        schema = installed.get(template.slug)
        entries.append(
            {
                "templateSlug": template.slug,
                "name": template.name,
                "description": template.description,
                "templateVersion": template.version,
                "installed": schema is not None,
                "installedModuleId": schema.module.module_id if schema else None,
                "hasCustomizations": (
                    has_customizations(template, schema) if schema is not None else False
                ),
            }
        )
    return {"templates": entries}


@routes.endpoint(
    "POST",
    "/api/templates/{templateSlug}/install",
    summary="Install a built-in template",
    scope="workspace:read",
    tag="templates",
    admin_only=True,
    responses={201: InstalledModule},
    conflicts={"conflict": "the template's module is already installed in the workspace"},
)
async def install_template(svc: Services, principal: Principal, templateSlug: str) -> Any:
    check_slug(templateSlug, "templateSlug")
    module: ModuleDef = await svc.actors.ask(InstallTemplate(templateSlug, by=principal))
    return {"moduleId": module.module_id, "moduleSlug": module.slug}, 201


@routes.endpoint(
    "GET",
    "/api/labels",
    summary="The workspace's labels",
    scope="workspace:read",
    tag="labels",
    admin_only=True,
    responses={200: LabelList},
)
async def list_labels(svc: Services, principal: Principal) -> Any:
    rows = await svc.store.list_labels(principal.account_id)
    return {"labels": [{"id": r["id"], "name": r["name"], "color": r["color"]} for r in rows]}


@routes.endpoint(
    "POST",
    "/api/labels",
    summary="Define a label",
    scope="workspace:read",
    tag="labels",
    admin_only=True,
    body=NamedItemBody,
    responses={201: NamedItem},
    conflicts={"conflict": "the workspace already has a label with this name"},
)
async def create_label(svc: Services, principal: Principal, body: NamedItemBody) -> Any:
    made = await svc.actors.ask(
        CreateLabel(body.name, body.color, by=principal),
    )
    return made, 201


@routes.endpoint(
    "GET",
    "/api/types",
    summary="The workspace's record types",
    scope="workspace:read",
    tag="labels",
    admin_only=True,
    responses={200: TypeList},
)
async def list_types(svc: Services, principal: Principal) -> Any:
    rows = await svc.store.list_types(principal.account_id)
    return {
        "types": [
            {"id": r["id"], "name": r["name"], "color": r["color"], "moduleId": r["module_id"]}
            for r in rows
        ]
    }


@routes.endpoint(
    "POST",
    "/api/types",
    summary="Define a record type",
    scope="workspace:read",
    tag="labels",
    admin_only=True,
    body=TypeBody,
    responses={201: NamedItem},
    conflicts={"conflict": "the workspace already has a record type with this name"},
)
async def create_type(svc: Services, principal: Principal, body: TypeBody) -> Any:
    made = await svc.actors.ask(
        CreateType(body.name, body.color, body.moduleSlug, by=principal),
    )
    return made, 201
