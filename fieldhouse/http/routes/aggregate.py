"""Aggregates of a module's records: ``GET /v1/modules/{moduleSlug}/aggregate`` (issue 37)."""

from __future__ import annotations

from typing import Any

from fieldhouse.http.endpoint import ExtraParam, Routes
from fieldhouse.http.exchange import current
from fieldhouse.http.routes.common import visible_module
from fieldhouse.http.routes.records import LIST_PARAMS
from fieldhouse.model.aggregate import MAX_METRICS, parse_aggregate
from fieldhouse.model.listquery import parse_list_query
from fieldhouse.model.principal import Principal
from fieldhouse.services import Services
from fieldhouse.storage.aggregate import MAX_GROUPS

routes = Routes()
#: the list endpoint's parameters that choose records (paging, sorting and fields do not apply)
_FILTERS = {"search", "filter", "advancedFilter", "labelIds", "typeIds"}
_OWN = ("groupBy", "metrics")

AGGREGATE_PARAMS = (
    ExtraParam(
        "groupBy",
        {"type": "string", "maxLength": 140, "examples": ["stage", "company", "close-date:month"]},
        "what groups the records: a select, boolean, reference (key: record id, with its "
        "displayName), person (key: user id, with its displayName) field, or a date field "
        "with a bucket, `<date field>:day|week|month` (key: the bucket's first day, "
        "YYYY-MM-DD; weeks start on Monday; UTC); date fields are date, date_range (its "
        "start), created_at and updated_at. Records without a value form the group whose key "
        "is null, listed last; the others come in ascending key order, at most "
        f"{MAX_GROUPS} (`truncated` says when there were more). Without groupBy every "
        "matching record is one group. Multi-valued fields are refused.",
    ),
    ExtraParam(
        "metrics",
        {"type": "string", "default": "count", "examples": ["count,sum:amount,avg:probability"]},
        "comma-separated, at most "
        f"{MAX_METRICS}: count, sum:<field>, avg:<field>, min:<field>, max:<field>, where the "
        "field is a number, currency (its amount), rating, progress or duration field. Sums "
        "and averages are exact decimals for values of up to 10 decimal places on both "
        "backends; a group without values has sum 0 and avg/min/max null.",
    ),
    *(p for p in LIST_PARAMS if p.name in _FILTERS),
)


@routes.endpoint(
    "GET",
    "/v1/modules/{moduleSlug}/aggregate",
    summary="Aggregate records",
    scope="records:read",
    tag="records",
    extra_params=AGGREGATE_PARAMS,
    description=(
        "Counts, sums, averages, minimums and maximums of the records the list endpoint's "
        "filters and search match, grouped by one field. Example: "
        "`GET /v1/modules/deals/aggregate?groupBy=stage&metrics=count,sum:amount` answers "
        '`{"groupBy": "stage", "groups": [{"key": "lost", "count": 1, "metrics": {"count": 1, '
        '"sum:amount": 250}}, {"key": "won", "count": 2, "metrics": {"count": 2, '
        '"sum:amount": 350.5}}], "total": 3, "truncated": false}`; '
        "`groupBy=company` groups carry `displayName` beside the record id key."
    ),
)
async def aggregate_records(svc: Services, principal: Principal, moduleSlug: str) -> Any:
    schema, _ = await visible_module(svc, principal, moduleSlug)
    args = current().args
    spec = parse_aggregate(args.get("groupBy"), args.get("metrics"), schema)
    pairs = [(k, v) for k, v in args.items(multi=True) if k not in _OWN]
    query = parse_list_query(pairs, schema)
    result = await svc.store.aggregate(principal.account_id, schema, query, spec)
    return {
        "groupBy": spec.group_by and args.get("groupBy"),
        "metrics": [m.name for m in spec.metrics],
        "groups": result["groups"],
        "total": sum(g["count"] for g in result["groups"]),
        "truncated": result["truncated"],
    }
