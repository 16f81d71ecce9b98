"""The workspace's realtime events (``GET /v1/events``): the activity log as Server-Sent
Events, resumable by sequence number (``fieldhouse.events`` follows the store)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from fieldhouse import events
from fieldhouse.http.endpoint import Routes
from fieldhouse.http.exchange import current
from fieldhouse.http.models import MAX_INT64, QUERY_INT, Open, Uuid
from fieldhouse.http.response import Response
from fieldhouse.http.routes.common import visible_module, workspace_schemas
from fieldhouse.model.activity import KIND_NAMES, parse_kinds
from fieldhouse.model.errors import Issue, ValidationFailed
from fieldhouse.model.principal import Principal
from fieldhouse.services import Services

routes = Routes()
LAST_EVENT_ID = "last-event-id"


class EventsQuery(Open):
    modules: str | None = Field(
        default=None,
        max_length=1000,
        description="comma-separated module slugs (default: every module the role can view)",
    )
    recordId: Uuid | None = Field(default=None, description="only this record's events")
    activityTypes: str | None = Field(
        default=None,
        max_length=1000,
        description="comma-separated activity types, each one of: " + ", ".join(KIND_NAMES),
    )
    afterSeq: Annotated[int, Field(ge=0, le=MAX_INT64), QUERY_INT] | None = Field(
        default=None,
        description="start after this seq (a Last-Event-ID header wins); omitted: from now",
    )


DESCRIPTION = (
    "Server-Sent Events of the workspace's activity, limited to the modules the credential's "
    "role can view (workspace-level entries only for roles that view every module). The "
    "first event is `open` {afterSeq}: where the stream starts. Then one event per activity "
    "entry, oldest first: its `id:` is the entry's `seq`, its `event:` the activityType, its "
    "`data:` the entry as GET /v1/activity shows it; record_created and record_updated also "
    "carry `values` {fieldSlug: value} (an update's values after it; a created record's "
    "values as the record holds them when the event is sent). Resume with the "
    "`Last-Event-ID` header (browsers send it on reconnect) or `afterSeq`: nothing is missed "
    "or repeated, whichever server or worker answers. Without either the stream starts now. "
    "A `: heartbeat` comment comes after 15 s of silence. A client that leaves 64 events "
    "unread for 10 s gets `overflow` {afterSeq, reason} (resume from afterSeq) and the "
    "stream ends; one that does not read even that is disconnected. The stream also ends "
    "when the server shuts down. Example:\n\n"
    "```\n"
    "event: open\n"
    'data: {"afterSeq":41}\n\n'
    "id: 42\n"
    "event: record_updated\n"
    'data: {"id":"3f0c…","seq":42,"activityType":"record_updated","moduleId":"…",'
    '"recordId":"…","userId":"…","createdDateTime":"2026-11-28T02:00:00Z",'
    '"data":{"changedFields":["probability"],"changes":{"probability":{"before":10,'
    '"after":20}}},"values":{"probability":20}}\n\n'
    ": heartbeat\n"
    "```"
)


@routes.endpoint(
    "GET",
    "/v1/events",
    summary="The workspace's activity as a realtime event stream",
    scope="workspace:read",
    tag="activity",
    query=EventsQuery,
    responses={200: None},
    stream=True,
    description=DESCRIPTION,
)
async def event_stream(svc: Services, principal: Principal, query: EventsQuery) -> Any:
    selection = await _selection(svc, principal, query)
    account_id = principal.account_id
    after = _last_event_id()
    if after is None:
        after = query.afterSeq
    if after is None:
        after = await events.latest_seq(svc.store, account_id)
    body = events.EventsBody(
        svc.store,
        events.wakeups(svc.actors),
        account_id,
        after,
        selection,
        shutdown=svc.shutdown,
    )
    response = Response(
        body,
        status=200,
        content_type="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )
    response.timeout = None  # a stream has no response deadline
    return response


async def _selection(svc: Services, principal: Principal, query: EventsQuery) -> events.Selection:
    types = parse_kinds(query.activityTypes, ("activityTypes",))
    record_id = str(query.recordId).lower() if query.recordId is not None else None
    slugs = [s.strip() for s in (query.modules or "").split(",") if s.strip()]
    schemas = await workspace_schemas(svc, principal)
    # archived fields' values are left out of the events' values
    hidden = {
        s.module.module_id: s.archived_slugs for s in schemas.modules.values() if s.archived_fields
    }
    if slugs:
        module_ids = [
            (await visible_module(svc, principal, slug))[0].module.module_id
            for slug in dict.fromkeys(slugs)
        ]
        return events.Selection(module_ids, record_id, types, (), hidden)
    if principal.role.can_view is None:
        # every module's entries, but the records of archived ones (out of /v1 altogether)
        archived = [
            m.module_id
            for m in await svc.store.all_modules(principal.account_id)
            if not m.is_active
        ]
        return events.Selection(None, record_id, types, archived, hidden)
    visible = [
        s.module.module_id for s in schemas.modules.values() if principal.can_view(s.module.slug)
    ]
    return events.Selection(visible, record_id, types, (), hidden)


def _last_event_id() -> int | None:
    raw = current().headers.get(LAST_EVENT_ID)
    if raw is None or not raw.strip():
        return None
    text = raw.strip()
    if not text.isascii() or not text.isdigit() or int(text) > MAX_INT64:
        issue = Issue(
            "invalid_type",
            ("Last-Event-ID",),
            "Last-Event-ID must be the seq (a whole number) of an event this stream sent",
            {"received": text[:40]},
        )
        raise ValidationFailed([issue])
    return int(text)
