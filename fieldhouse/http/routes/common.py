"""Lookups shared by the route modules."""

from __future__ import annotations

from fieldhouse.actors.schemas import WorkspaceSchemas
from fieldhouse.http.exchange import current
from fieldhouse.model.clock import is_uuid
from fieldhouse.model.errors import Issue, NotFound, ValidationFailed
from fieldhouse.model.principal import Principal
from fieldhouse.model.schema import ModuleSchema
from fieldhouse.services import Services


async def workspace_schemas(svc: Services, principal: Principal) -> WorkspaceSchemas:
    """The principal's workspace schema, at least as new as its credential check saw."""
    return await svc.actors.schemas.get(principal.account_id, current().schema_version)


def check_slug(slug: str, name: str = "moduleSlug") -> None:
    if not 1 <= len(slug) <= 64:
        raise ValidationFailed(
            [
                Issue(
                    "too_big" if slug else "too_small",
                    (name,),
                    f"{name} must be 1 to 64 characters",
                    {"maximum": 64, "inclusive": True, "type": "string"}
                    if slug
                    else {"minimum": 1, "inclusive": True, "type": "string"},
                )
            ]
        )


def check_uuid(value: str, name: str) -> None:
    if not is_uuid(value):
        raise ValidationFailed(
            [Issue("invalid_string", (name,), f"{name} must be a uuid", {"validation": "uuid"})]
        )


async def visible_module(
    svc: Services, principal: Principal, slug: str, *, write: bool = False
) -> tuple[ModuleSchema, WorkspaceSchemas]:
    """The module if the principal's role can see it; 404 as if absent otherwise."""
    check_slug(slug)
    schemas = await workspace_schemas(svc, principal)
    schema = schemas.get(slug)
    if schema is None:
        # a module made a moment ago through another server may not have moved this
        # process's change epoch yet: a miss asks the store whether the schema is newer
        version = await svc.store.schema_version(principal.account_id)
        if version > schemas.version:
            schemas = await svc.actors.schemas.get(principal.account_id, version)
            schema = schemas.get(slug)
    if schema is None or not principal.can_view(slug):
        raise NotFound(f"Module {slug!r} not found")
    if write:  # refused before the body is read; the actor checks it again as it writes
        principal.check_edit(slug)
    return schema, schemas
