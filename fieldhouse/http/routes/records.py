"""Records: list, create, read, update, delete, bulk (SPEC endpoints 7-13)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import partial
from typing import Any

import trio

from fieldhouse.actors.record_ops import Categorise, CreateRecord, DeleteRecords, UpdateRecord
from fieldhouse.actors.schemas import WorkspaceSchemas
from fieldhouse.http.endpoint import ExtraParam, Routes
from fieldhouse.http.exchange import QUERY_REMEMBERED, current
from fieldhouse.http.json import json_response
from fieldhouse.http.record_models import (
    BulkDeleteBody,
    BulkUpdateBody,
    DeletedCount,
    RecordCreateBody,
    RecordEnvelope,
    RecordList,
    RecordPage,
    RecordUpdateBody,
)
from fieldhouse.http.routes.common import check_uuid, visible_module
from fieldhouse.model.errors import Issue, NotFound, ValidationFailed
from fieldhouse.model.listquery import (
    DEFAULT_PAGE_SIZE,
    MAX_PAGE,
    MAX_PAGE_SIZE,
    ListQuery,
    parse_list_query,
)
from fieldhouse.model.listquery_kinds import resolve_key
from fieldhouse.model.memo import SchemaMemo
from fieldhouse.model.principal import Principal
from fieldhouse.model.schema import ModuleSchema, ReferenceDef
from fieldhouse.services import Services

routes = Routes()
#: a list query slower than this asks the store for indexes on what it filtered and sorted by
SLOW_LIST_SECONDS = 0.01
BASE = "/v1/modules/{moduleSlug}/records"
#: list queries parsed against their module's schema, by query string (one longer than
#: QUERY_REMEMBERED is parsed each time)
_PARSED: SchemaMemo[ListQuery] = SchemaMemo(256)

#: the 409 of a record create or update
UNIQUE_CONFLICT = (
    'a text field whose config has `"unique": true` would hold a value another live record '
    "of the module holds (data: field, recordId)"
)

LIST_PARAMS = (
    ExtraParam(
        "page",
        {"type": "integer", "minimum": 1, "maximum": MAX_PAGE, "default": 1},
        "1-indexed page",
    ),
    ExtraParam(
        "pageSize",
        {"type": "integer", "minimum": 1, "maximum": MAX_PAGE_SIZE, "default": DEFAULT_PAGE_SIZE},
        "records per page",
    ),
    ExtraParam("search", {"type": "string", "maxLength": 1000}, "free-text query in the module"),
    ExtraParam(
        "sortField", {"type": "string"}, "field slug, or created_at / updated_at / displayName"
    ),
    ExtraParam("sortDirection", {"type": "string", "enum": ["asc", "desc"]}, "sort direction"),
    ExtraParam(
        "filter",
        {"type": "object", "additionalProperties": {"type": "string"}},
        "filter[slug]=a,b: a OR b for that field; several filters combine with AND. A client "
        "generator that does not implement deepObject (openapi-python-client sends the "
        "object's keys as they are) takes the keys `filter[<slug>]`; a bare `<slug>` is "
        "refused as an unknown parameter.",
        style="deepObject",
        explode=True,
    ),
    ExtraParam(
        "advancedFilter",
        {"type": "string"},
        "JSON {root: Group}; see the SPEC's advanced filter shape",
    ),
    ExtraParam("labelIds", {"type": "string"}, "comma-separated label ids"),
    ExtraParam("typeIds", {"type": "string"}, "comma-separated type ids"),
    ExtraParam("fields", {"type": "string"}, "comma-separated field slugs to keep"),
)

EXPAND_PARAMS = (
    ExtraParam(
        "expand",
        {"type": "string", "maxLength": 1000, "examples": ["company,contacts"]},
        "comma-separated reference slugs of the module (its references to module records): "
        "each record gets `expanded.<slug>`, the referenced live records as {recordId, "
        "moduleSlug, displayName, fields} (fields: those `expandFields` chooses, else {}), "
        "an object or null for a single reference, a list in link order for a multiple one. "
        "Read in one query for the whole page. A reference to a module the credential may "
        "not view comes back as null (its records are never read); deleted records are left "
        "out. Example answer: "
        '`"expanded": {"company": {"recordId": "…", "moduleSlug": "companies", '
        '"displayName": "Acme", "fields": {"domain": "acme.test"}}, "contacts": []}`',
    ),
    ExtraParam(
        "expandFields",
        {"type": "string", "maxLength": 1000, "examples": ["company.domain,contacts.email"]},
        "comma-separated `<referenceSlug>.<fieldSlug>`: fields of the referenced records to "
        "return with them (the reference must be in `expand`)",
    ),
)


@routes.endpoint(
    "GET",
    BASE,
    summary="List records",
    scope="records:read",
    tag="records",
    responses={200: RecordPage},
    extra_params=(*LIST_PARAMS, *EXPAND_PARAMS),
)
async def list_records(svc: Services, principal: Principal, moduleSlug: str) -> Any:
    schema, schemas = await visible_module(svc, principal, moduleSlug)
    ex = current()
    wanted = _expansions(schema, schemas, principal)

    def parse() -> ListQuery:
        return parse_list_query(list(ex.args.items(multi=True)), schema)

    raw = ex.query_string
    query = _PARSED.get(schema, raw, parse) if len(raw) <= QUERY_REMEMBERED else parse()
    store = svc.store
    started = trio.current_time()
    page, total = await store.list_records_json(principal.account_id, schema, query)
    if trio.current_time() - started > SLOW_LIST_SECONDS:
        svc.actors.background(partial(store.index_list_query, schema, query))
    if wanted:
        await _expand(svc, principal, wanted, page)
    return {
        "records": page,
        "page": query.page,
        "pageSize": query.page_size,
        "total": total,
    }


@routes.endpoint(
    "POST",
    BASE,
    summary="Create a record",
    scope="records:write",
    tag="records",
    body=RecordCreateBody,
    responses={201: RecordEnvelope},
    conflicts={"uniqueness_violation": UNIQUE_CONFLICT},
)
async def create_record(
    svc: Services, principal: Principal, moduleSlug: str, body: RecordCreateBody
) -> Any:
    schema, _ = await visible_module(svc, principal, moduleSlug, write=True)
    row = await svc.actors.ask(
        CreateRecord(
            schema.module.module_id,
            body.displayName,
            body.fields,
            str(body.ownerUserId) if body.ownerUserId else None,
            by=principal,
        ),
    )
    return {"record": row.to_json(schema.module.slug, schema.live_keys)}, 201


@routes.endpoint(
    "GET",
    BASE + "/{recordId}",
    summary="Read a record",
    scope="records:read",
    tag="records",
    responses={200: RecordEnvelope},
    extra_params=EXPAND_PARAMS,
)
async def get_record(svc: Services, principal: Principal, moduleSlug: str, recordId: str) -> Any:
    schema, schemas = await visible_module(svc, principal, moduleSlug)
    check_uuid(recordId, "recordId")
    wanted = _expansions(schema, schemas, principal)
    row = await svc.store.get_record(
        principal.account_id, schema.module.module_id, recordId.lower()
    )
    if row is None:
        raise NotFound(f"Record {recordId} not found")
    record = row.to_json(schema.module.slug, schema.live_keys)
    if wanted:
        await _expand(svc, principal, wanted, [record])
    return {"record": record}


@dataclass(frozen=True)
class _Expansion:
    """One reference of ``?expand=``: its field, target module and chosen target fields."""

    slug: str
    field_slug: str
    module_slug: str
    multi: bool
    visible: bool
    fields: tuple[str, ...]


def _expansions(
    schema: ModuleSchema, schemas: WorkspaceSchemas, principal: Principal
) -> list[_Expansion]:
    """The references ``expand`` names and the fields ``expandFields`` chooses, checked."""
    args = current().args
    raw, raw_fields = args.get("expand"), args.get("expandFields")
    if not raw:
        if raw_fields:
            issue = Issue("custom", ("expandFields",), "expandFields needs expand")
            raise ValidationFailed([issue])
        return []
    issues: list[Issue] = []
    refs = {r.slug: r for r in schema.references}
    found: dict[str, _Expansion] = {}
    for i, slug in enumerate(p.strip() for p in raw.split(",")):
        expansion = _expansion(slug, refs, schema, principal)
        if expansion is None:
            message = f"{slug!r} is not a reference of module {schema.module.slug!r} to records"
            issues.append(Issue("custom", ("expand", i), message))
        else:
            found[slug] = expansion
    for i, part in enumerate(p.strip() for p in (raw_fields or "").split(",") if p.strip()):
        chosen = _with_field(part, found, schemas)
        if isinstance(chosen, str):
            issues.append(Issue("custom", ("expandFields", i), chosen))
        else:
            found[chosen.slug] = chosen
    if issues:
        raise ValidationFailed(issues)
    return list(found.values())


def _expansion(
    slug: str, refs: Mapping[str, ReferenceDef], schema: ModuleSchema, principal: Principal
) -> _Expansion | None:
    """The expansion of the reference ``slug`` names, without chosen fields; None unless it is
    a reference of the module through one of its fields to records of a module."""
    ref = refs.get(slug)
    if ref is None or not ref.source_field_slug:
        return None
    kind = resolve_key(ref.source_field_slug, schema, system=False)
    if kind is None or ref.target_type != "module" or not ref.target_module_slug:
        return None
    visible = principal.can_view(ref.target_module_slug)
    return _Expansion(slug, kind.slug, ref.target_module_slug, kind.multi, visible, ())


def _with_field(
    part: str, found: Mapping[str, _Expansion], schemas: WorkspaceSchemas
) -> _Expansion | str:
    """The expansion ``part`` ("reference.field" of ``expandFields``) adds its field to, or
    why it cannot (a field of a module the caller may not see is not looked for)."""
    slug, _, field = part.partition(".")
    at = found.get(slug)
    target = schemas.get(at.module_slug) if at is not None else None
    if at is None or target is None:
        return f"{slug!r} is not in expand"
    if at.visible and target.field(field) is None:
        return f"Unknown field {field!r} of module {at.module_slug!r}"
    return replace(at, fields=(*at.fields, field))


async def _expand(
    svc: Services, principal: Principal, wanted: list[_Expansion], page: list[dict[str, Any]]
) -> None:
    """Add ``expanded`` to each record of the page, from one query for all of them."""
    shown = [w for w in wanted if w.visible]
    linked = await svc.store.expand(
        principal.account_id,
        [r["recordId"] for r in page],
        {w.field_slug for w in shown},
        {w.module_slug for w in shown},
    )
    by: dict[tuple[str, str], list[Any]] = {}
    for link in linked:
        by.setdefault((link.source_id, link.field_slug), []).append(link)
    for record in page:
        out: dict[str, Any] = {}
        for w in wanted:
            if not w.visible:
                out[w.slug] = None
                continue
            items = [
                {
                    "recordId": t.record_id,
                    "moduleSlug": t.module_slug,
                    "displayName": t.display_name,
                    "fields": {f: t.fields[f] for f in w.fields if f in t.fields},
                }
                for t in by.get((record["recordId"], w.field_slug), [])
                if t.module_slug == w.module_slug
            ]
            out[w.slug] = items if w.multi else (items[0] if items else None)
        record["expanded"] = out


@routes.endpoint(
    "PATCH",
    BASE + "/{recordId}",
    summary="Update a record",
    scope="records:write",
    tag="records",
    body=RecordUpdateBody,
    responses={200: RecordEnvelope},
    conflicts={"uniqueness_violation": UNIQUE_CONFLICT},
)
async def update_record(
    svc: Services,
    principal: Principal,
    moduleSlug: str,
    recordId: str,
    body: RecordUpdateBody,
) -> Any:
    schema, _ = await visible_module(svc, principal, moduleSlug, write=True)
    check_uuid(recordId, "recordId")
    row = await svc.actors.ask(
        UpdateRecord(
            schema.module.module_id,
            recordId.lower(),
            body.displayName,
            body.fields,
            by=principal,
        ),
    )
    return {"record": row.to_json(schema.module.slug, schema.live_keys)}


@routes.endpoint(
    "DELETE",
    BASE + "/{recordId}",
    summary="Soft-delete a record",
    scope="records:write",
    tag="records",
    responses={204: None},
)
async def delete_record(svc: Services, principal: Principal, moduleSlug: str, recordId: str) -> Any:
    schema, _ = await visible_module(svc, principal, moduleSlug, write=True)
    check_uuid(recordId, "recordId")
    deleted = await svc.actors.ask(
        DeleteRecords(
            schema.module.module_id,
            (recordId.lower(),),
            by=principal,
        ),
    )
    if not deleted:
        raise NotFound(f"Record {recordId} not found")
    return json_response(None, 204)


@routes.endpoint(
    "POST",
    BASE + "/bulk",
    summary="Add or remove labels and types",
    scope="records:write",
    tag="records",
    body=BulkUpdateBody,
    responses={200: RecordList},
)
async def bulk_update(
    svc: Services, principal: Principal, moduleSlug: str, body: BulkUpdateBody
) -> Any:
    schema, _ = await visible_module(svc, principal, moduleSlug, write=True)
    rows = await svc.actors.ask(
        Categorise(
            schema.module.module_id,
            tuple(str(i) for i in body.recordIds),
            tuple(str(i) for i in body.addLabelIds),
            tuple(str(i) for i in body.removeLabelIds),
            tuple(str(i) for i in body.addTypeIds),
            tuple(str(i) for i in body.removeTypeIds),
            by=principal,
        ),
    )
    return {"records": [r.to_json(schema.module.slug, schema.live_keys) for r in rows]}


@routes.endpoint(
    "POST",
    BASE + "/bulk-delete",
    summary="Soft-delete several records",
    scope="records:write",
    tag="records",
    body=BulkDeleteBody,
    responses={200: DeletedCount},
)
async def bulk_delete(
    svc: Services, principal: Principal, moduleSlug: str, body: BulkDeleteBody
) -> Any:
    schema, _ = await visible_module(svc, principal, moduleSlug, write=True)
    deleted = await svc.actors.ask(
        DeleteRecords(
            schema.module.module_id,
            tuple(str(i) for i in body.recordIds),
            by=principal,
        ),
    )
    return {"deletedCount": len(deleted)}
