"""The three activity feeds (SPEC endpoints 18-20)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fieldhouse.http.endpoint import Routes
from fieldhouse.http.record_models import (
    ActivityList,
    ActivityQuery,
    GroupedActivityList,
    RecordActivityQuery,
)
from fieldhouse.http.routes.common import check_uuid, visible_module, workspace_schemas
from fieldhouse.model.activity import parse_kinds
from fieldhouse.model.errors import NotFound
from fieldhouse.model.principal import Principal
from fieldhouse.services import Services

routes = Routes()


@routes.endpoint(
    "GET",
    "/v1/activity",
    summary="The workspace's activity, newest first; with afterSeq, the change feed",
    description="With `afterSeq=N` the entries whose `seq` is above N come oldest first, and "
    "`nextAfterSeq` is the value to send next: polling with it resumes exactly, missing and "
    "repeating nothing.",
    scope="workspace:read",
    tag="activity",
    query=ActivityQuery,
    responses={200: ActivityList},
)
async def workspace_activity(svc: Services, principal: Principal, query: ActivityQuery) -> Any:
    module_ids: list[str] | None = None
    if principal.role.can_view is not None:
        schemas = await workspace_schemas(svc, principal)
        module_ids = [
            s.module.module_id
            for s in schemas.modules.values()
            if principal.can_view(s.module.slug)
        ]
    activities = await svc.store.list_activity(
        principal.account_id,
        module_ids=module_ids,
        record_id=None,
        types=parse_kinds(query.activityTypes, ("activityTypes",)),
        limit=query.limit,
        after_seq=query.afterSeq,
    )
    read = activities
    if module_ids is None:
        # the records of archived modules are out of /v1, their entries too (the modules'
        # own entries stay); nextAfterSeq still moves past what was read
        archived = {
            m.module_id
            for m in await svc.store.all_modules(principal.account_id)
            if not m.is_active
        }
        if archived:
            activities = [
                a
                for a in activities
                if a["moduleId"] not in archived or not a["activityType"].startswith("record_")
            ]
    return _page(activities, query.afterSeq, read)


def _page(
    activities: list[dict[str, Any]],
    after_seq: int | None,
    read: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    if after_seq is None:
        return {"activities": activities}
    read = activities if read is None else read
    last = read[-1]["seq"] if read else after_seq
    return {"activities": activities, "nextAfterSeq": last}


@routes.endpoint(
    "GET",
    "/v1/modules/{moduleSlug}/activity",
    summary="A module's activity",
    scope="workspace:read",
    tag="activity",
    query=ActivityQuery,
    responses={200: ActivityList},
)
async def module_activity(
    svc: Services,
    principal: Principal,
    moduleSlug: str,
    query: ActivityQuery,
) -> Any:
    schema, _ = await visible_module(svc, principal, moduleSlug)
    activities = await svc.store.list_activity(
        principal.account_id,
        module_ids=[schema.module.module_id],
        record_id=None,
        types=parse_kinds(query.activityTypes, ("activityTypes",)),
        limit=query.limit,
        after_seq=query.afterSeq,
    )
    return _page(activities, query.afterSeq)


@routes.endpoint(
    "GET",
    "/v1/modules/{moduleSlug}/records/{recordId}/activity",
    summary="A record's activity, grouped",
    scope="workspace:read",
    tag="activity",
    query=RecordActivityQuery,
    responses={200: GroupedActivityList},
)
async def record_activity(
    svc: Services,
    principal: Principal,
    moduleSlug: str,
    recordId: str,
    query: RecordActivityQuery,
) -> Any:
    schema, _ = await visible_module(svc, principal, moduleSlug)
    check_uuid(recordId, "recordId")
    store = svc.store
    record_id = recordId.lower()
    entries = await store.list_activity(
        principal.account_id,
        module_ids=[schema.module.module_id],
        record_id=record_id,
        types=(),
        limit=query.limit,
    )
    if (
        not entries
        and await store.get_record(principal.account_id, schema.module.module_id, record_id) is None
    ):
        raise NotFound(f"Record {recordId} not found")
    return {"activities": group_activities(entries, query.groupWithinMinutes)}


def group_activities(entries: list[dict[str, Any]], minutes: int | None) -> list[dict[str, Any]]:
    """Merge consecutive entries of one user and type that lie within `minutes` of each other
    (newest first). Without `minutes` every entry is its own group."""
    groups: list[dict[str, Any]] = []
    window = (minutes or 0) * 60
    for entry in entries:
        at = datetime.fromisoformat(entry["createdDateTime"].replace("Z", "+00:00"))
        last = groups[-1] if groups else None
        if (
            last is not None
            and window
            and last["activityType"] == entry["activityType"]
            and last["userId"] == entry["userId"]
            and (last["_oldest"] - at).total_seconds() <= window
        ):
            last["activities"].append(entry)
            last["count"] += 1
            last["_oldest"] = at
            last["startedDateTime"] = entry["createdDateTime"]
            continue
        groups.append(
            {
                "activityType": entry["activityType"],
                "userId": entry["userId"],
                "recordId": entry["recordId"],
                "startedDateTime": entry["createdDateTime"],
                "endedDateTime": entry["createdDateTime"],
                "count": 1,
                "activities": [entry],
                "_oldest": at,
            }
        )
    for group in groups:
        del group["_oldest"]
    return groups
