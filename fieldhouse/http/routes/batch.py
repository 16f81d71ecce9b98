"""Bulk create and upsert: up to 100 records in one transaction (beyond the SPEC)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from fieldhouse.actors.batch_ops import BatchItem, BatchWrite, check_upsert_field
from fieldhouse.http.endpoint import Routes
from fieldhouse.http.models import Open, Strict, Uuid
from fieldhouse.http.record_models import Record, RecordCreateBody
from fieldhouse.http.routes.common import visible_module
from fieldhouse.model.principal import Principal
from fieldhouse.services import Services

routes = Routes()
MAX_BATCH = 100


class BatchBody(Strict):
    records: list[RecordCreateBody] = Field(min_length=1, max_length=MAX_BATCH)


class BatchQuery(Open):
    upsertBy: str | None = Field(default=None, min_length=1, max_length=64)


class BatchResult(Open):
    index: int
    recordId: Uuid
    action: Literal["created", "updated"]


class BatchResponse(Open):
    records: list[Record]
    results: list[BatchResult]


@routes.endpoint(
    "POST",
    "/v1/modules/{moduleSlug}/records/batch",
    summary="Create (or upsert) up to 100 records in one transaction",
    description="All or nothing: when any record is invalid nothing is written and the 400 "
    "lists every problem with its path starting at `records`, index. With `upsertBy=<slug>` "
    '(a text field whose config has `"unique": true`) a record whose value matches a live '
    "record updates it instead. 201 when at least one record was created, else 200.",
    scope="records:write",
    tag="records",
    query=BatchQuery,
    body=BatchBody,
    responses={200: BatchResponse, 201: BatchResponse},
)
async def batch_create(
    svc: Services, principal: Principal, moduleSlug: str, query: BatchQuery, body: BatchBody
) -> Any:
    schema, _ = await visible_module(svc, principal, moduleSlug, write=True)
    if query.upsertBy is not None:
        check_upsert_field(schema, query.upsertBy)
    outcome = await svc.actors.ask(
        BatchWrite(
            schema.module.module_id,
            tuple(
                BatchItem(r.displayName, r.fields, str(r.ownerUserId) if r.ownerUserId else None)
                for r in body.records
            ),
            upsert_by=query.upsertBy,
            by=principal,
        ),
    )
    slug = schema.module.slug
    payload = {
        "records": [row.to_json(slug, schema.live_keys) for _, row, _ in outcome.written],
        "results": [
            {"index": i, "recordId": row.record_id, "action": "created" if new else "updated"}
            for i, row, new in outcome.written
        ],
    }
    created = any(new for _, _, new in outcome.written)
    return payload, 201 if created else 200
