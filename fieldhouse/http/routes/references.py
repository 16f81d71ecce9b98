"""Module references, linked record ids and the picker (SPEC endpoints 14-16)."""

from __future__ import annotations

from typing import Any

from fieldhouse.http.endpoint import Routes
from fieldhouse.http.models import ReferenceList
from fieldhouse.http.record_models import LinkedIds, PickerQuery, PickerResponse
from fieldhouse.http.routes.common import check_uuid, visible_module
from fieldhouse.http.serialize import reference_item
from fieldhouse.model.errors import NotFound
from fieldhouse.model.principal import Principal
from fieldhouse.model.schema import ModuleSchema, ReferenceDef
from fieldhouse.services import Services

routes = Routes()
BASE = "/v1/modules/{moduleSlug}/references"


def _reference(schema: ModuleSchema, slug: str) -> ReferenceDef:
    for ref in schema.references:
        if ref.slug == slug:
            return ref
    raise NotFound(f"Reference {slug!r} not found in module {schema.module.slug!r}")


@routes.endpoint(
    "GET",
    BASE,
    summary="A module's references",
    scope="records:read",
    tag="references",
    responses={200: ReferenceList},
)
async def list_references(svc: Services, principal: Principal, moduleSlug: str) -> Any:
    schema, schemas = await visible_module(svc, principal, moduleSlug)
    return {"references": [reference_item(r, schemas) for r in schema.references]}


@routes.endpoint(
    "GET",
    BASE + "/{referenceSlug}/records/{recordId}",
    summary="Ids of the records a record links to through a reference",
    scope="records:read",
    tag="references",
    responses={200: LinkedIds},
)
async def linked_records(
    svc: Services,
    principal: Principal,
    moduleSlug: str,
    referenceSlug: str,
    recordId: str,
) -> Any:
    schema, _ = await visible_module(svc, principal, moduleSlug)
    ref = _reference(schema, referenceSlug)
    check_uuid(recordId, "recordId")
    store = svc.store
    record = await store.get_record(principal.account_id, schema.module.module_id, recordId.lower())
    if record is None:
        raise NotFound(f"Record {recordId} not found")
    targets: list[str] = []
    if ref.source_field_slug:
        targets = await store.linked_targets(
            principal.account_id, record.record_id, ref.source_field_slug
        )
    return {"targetRecordIds": targets}


@routes.endpoint(
    "GET",
    BASE + "/{referenceSlug}/picker",
    summary="Candidate records to link",
    scope="records:read",
    tag="references",
    query=PickerQuery,
    responses={200: PickerResponse},
)
async def picker(
    svc: Services,
    principal: Principal,
    moduleSlug: str,
    referenceSlug: str,
    query: PickerQuery,
) -> Any:
    schema, schemas = await visible_module(svc, principal, moduleSlug)
    ref = _reference(schema, referenceSlug)
    items: list[dict[str, Any]] = []
    target = schemas.get(ref.target_module_slug) if ref.target_module_slug else None
    if (
        ref.target_type == "module"
        and target is not None
        and principal.can_view(target.module.slug)
    ):
        rows = await svc.store.picker(
            principal.account_id, target.module.module_id, query.search, query.limit
        )
        keep = target.live_keys  # (an archived field's values are never shown)
        items = [
            {
                "recordId": r.record_id,
                "displayName": r.display_name,
                "fields": r.fields
                if keep is None
                else {k: r.fields[k] for k in r.fields if k in keep},
            }
            for r in rows
        ]
    return {
        "referenceSlug": ref.slug,
        "targetType": ref.target_type,
        "targetModuleSlug": ref.target_module_slug,
        "items": items,
    }
