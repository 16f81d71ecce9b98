"""Identity and module metadata (SPEC endpoints 2-6; the OpenAPI document is served by the
app factory, which builds it over every route)."""

from __future__ import annotations

from typing import Any

from fieldhouse.http.endpoint import Routes
from fieldhouse.http.models import FieldList, Identity, ModuleList, ModuleSchemaResponse, ViewList
from fieldhouse.http.routes.common import visible_module, workspace_schemas
from fieldhouse.http.serialize import field_item, identity, module_item, module_schema, view_item
from fieldhouse.model.principal import Principal
from fieldhouse.services import Services

routes = Routes()


@routes.endpoint(
    "GET",
    "/v1/me",
    summary="Who the credential is",
    scope="workspace:read",
    tag="identity",
    responses={200: Identity},
)
async def get_me(svc: Services, principal: Principal) -> Any:
    return identity(principal)


@routes.endpoint(
    "GET",
    "/v1/modules",
    summary="Active modules the role can view",
    scope="workspace:read",
    tag="modules",
    responses={200: ModuleList},
)
async def list_modules(svc: Services, principal: Principal) -> Any:
    schemas = await workspace_schemas(svc, principal)
    visible = [
        s.module
        for s in schemas.modules.values()
        if s.module.is_active and principal.can_view(s.module.slug)
    ]
    visible.sort(key=lambda m: (m.created_at, m.slug))
    return {"modules": [module_item(m) for m in visible]}


@routes.endpoint(
    "GET",
    "/v1/modules/{moduleSlug}",
    summary="A module with its fields, views and references",
    scope="workspace:read",
    tag="modules",
    responses={200: ModuleSchemaResponse},
)
async def get_module(svc: Services, principal: Principal, moduleSlug: str) -> Any:
    schema, schemas = await visible_module(svc, principal, moduleSlug)
    return module_schema(schema, schemas)


@routes.endpoint(
    "GET",
    "/v1/modules/{moduleSlug}/fields",
    summary="A module's fields",
    scope="workspace:read",
    tag="modules",
    responses={200: FieldList},
)
async def list_fields(svc: Services, principal: Principal, moduleSlug: str) -> Any:
    schema, _ = await visible_module(svc, principal, moduleSlug)
    return {"fields": [field_item(f) for f in schema.fields]}


@routes.endpoint(
    "GET",
    "/v1/modules/{moduleSlug}/views",
    summary="A module's views",
    scope="workspace:read",
    tag="modules",
    responses={200: ViewList},
)
async def list_views(svc: Services, principal: Principal, moduleSlug: str) -> Any:
    schema, _ = await visible_module(svc, principal, moduleSlug)
    return {"views": [view_item(v) for v in schema.views]}
