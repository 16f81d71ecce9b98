"""The activity vocabulary: its wire strings, an entry's JSON form, the filter parser, and a
round trip of writes whose every entry is a member, in the form the feeds show."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import httpx
import pytest

from fieldhouse.actors import admin_ops as ops
from fieldhouse.actors.context import Event
from fieldhouse.model.activity import KIND_NAMES, ActivityEntry, ActivityKind, parse_kinds
from fieldhouse.model.errors import ValidationFailed
from fieldhouse.runtime import Runtime
from tests.conftest import Workspace
from tests.http.test_records_crud import create, make_label, make_type, records_url

#: What clients filter on and webhooks deliver: renaming a member must not change one of these.
WIRE = (
    "record_created",
    "record_updated",
    "record_deleted",
    "record_labelled",
    "record_typed",
    "field_created",
    "field_updated",
    "field_backfilled",
    "field_deleted",
    "field_archived",
    "field_unarchived",
    "module_created",
    "module_updated",
    "module_archived",
    "module_unarchived",
    "template_installed",
    "template_reset",
    "user_created",
    "user_deleted",
    "api_key_created",
    "api_key_revoked",
    "agent_tool_call",
    "agent_created",
    "approval_requested",
    "approval_decided",
    "agent_policy_changed",
    "page_created",
    "page_published",
    "outreach_drafted",
    "outreach_scheduled",
    "social_drafted",
    "social_scheduled",
    "social_posted",
    "email_drafted",
    "email_queued",
    "email_sent",
    "email_failed",
    "reminder_created",
    "reminder_fired",
)
FEED_KEYS = {
    "id",
    "seq",
    "activityType",
    "moduleId",
    "recordId",
    "userId",
    "createdDateTime",
    "data",
}


def test_the_wire_strings_are_fixed() -> None:
    assert KIND_NAMES == WIRE
    assert [str(k) for k in ActivityKind] == list(WIRE)


def test_an_entry_serialises_to_the_feed_form_without_seq() -> None:
    entry = ActivityEntry(
        "e1", ActivityKind.RECORD_TYPED, "u1", "2026-01-02T03:04:05.000Z", "m1", "r1", {"a": 1}
    )
    assert entry.to_json() == {
        "id": "e1",
        "activityType": "record_typed",
        "moduleId": "m1",
        "recordId": "r1",
        "userId": "u1",
        "createdDateTime": "2026-01-02T03:04:05.000Z",
        "data": {"a": 1},
    }
    bare = ActivityEntry("e2", ActivityKind.USER_CREATED, None, "2026-01-02T03:04:05.000Z")
    assert bare.to_json()["data"] == {} and bare.to_json()["moduleId"] is None
    assert type(bare.to_json()["activityType"]) is str  # plain text, not the enum


def test_a_filter_names_members_once_and_ignores_blanks() -> None:
    got = parse_kinds(" record_deleted,,record_created , record_deleted", ("activityTypes",))
    assert got == (ActivityKind.RECORD_DELETED, ActivityKind.RECORD_CREATED)
    assert parse_kinds(None, ("activityTypes",)) == ()
    assert parse_kinds(" , ", ("activityTypes",)) == ()


def test_an_unknown_kind_is_refused_with_the_known_ones() -> None:
    with pytest.raises(ValidationFailed) as info:
        parse_kinds("record_created,record_create,Record_Deleted", ("activityTypes",))
    assert info.value.status == 400
    assert [i.to_json() for i in info.value.issues] == [
        {
            "code": "invalid_enum_value",
            "path": ["activityTypes"],
            "message": f"Unknown activity type {name!r}",
            "options": list(WIRE),
            "received": name,
        }
        for name in ("record_create", "Record_Deleted")
    ]


async def test_a_round_trip_writes_members_in_the_feed_form(
    client: httpx.AsyncClient, runtime: Runtime, ws: Workspace
) -> None:
    published: list[Event] = []

    def collect(events: Sequence[Event]) -> None:
        published.extend(e for e in events if e.account_id == ws.account_id)

    start = (await client.get("/v1/activity?limit=1", headers=ws.headers)).json()["activities"]
    runtime.actors.subscribe(collect)
    await _round_trip(client, runtime, ws)

    resp = await client.get(
        "/v1/activity", headers=ws.headers, params={"afterSeq": start[0]["seq"], "limit": 50}
    )
    entries: list[dict[str, Any]] = resp.json()["activities"]
    assert [(e.kind, e.seq) for e in published] == [(e["activityType"], e["seq"]) for e in entries]
    assert all(isinstance(e.kind, ActivityKind) for e in published)
    assert {e["activityType"] for e in entries} == {
        "record_created",
        "record_updated",
        "record_labelled",
        "record_typed",
        "record_deleted",
        "field_created",
        "field_updated",
        "field_backfilled",
        "field_deleted",
        "template_reset",
        "user_created",
        "api_key_created",
        "api_key_revoked",
        "user_deleted",
    }
    for e in entries:
        assert set(e) == FEED_KEYS
        written = ActivityEntry(
            e["id"],
            ActivityKind(e["activityType"]),
            e["userId"],
            e["createdDateTime"],
            e["moduleId"],
            e["recordId"],
            e["data"],
        )
        assert {**written.to_json(), "seq": e["seq"]} == e


async def _round_trip(client: httpx.AsyncClient, runtime: Runtime, ws: Workspace) -> None:
    """Records created, changed, labelled, typed and deleted; a field created, changed,
    backfilled and deleted; the module reset to its template; a user and a key come and go."""
    deal = await create(client, ws, "deals")
    url = records_url("deals", deal["recordId"])
    await client.patch(url, headers=ws.headers, json={"fields": {"probability": 30}})
    bulk = {
        "recordIds": [deal["recordId"]],
        "addLabelIds": [await make_label(client, ws, "Hot")],
        "addTypeIds": [await make_type(client, ws, "Partner")],
    }
    assert (
        await client.post(records_url("deals") + "/bulk", headers=ws.headers, json=bulk)
    ).is_success
    mid = deal["moduleId"]
    made = await client.post(
        f"/api/modules/{mid}/fields",
        headers=ws.headers,
        json={"label": "Ticket", "dataType": "autonumber"},
    )
    assert made.status_code == 201, made.text
    field_url = f"/api/modules/{mid}/fields/{made.json()['fieldId']}"
    body = {"label": "Ticket no.", "backfillExisting": True}
    assert (await client.patch(field_url, headers=ws.headers, json=body)).status_code == 200
    assert (await client.delete(field_url, headers=ws.headers)).status_code == 204
    assert (await client.delete(url, headers=ws.headers)).status_code == 204
    reset = await client.post(f"/api/modules/{mid}/reset-to-template", headers=ws.headers)
    assert reset.status_code == 200, reset.text
    user = await runtime.actors.ask(ops.CreateUser("x@example.com", "X", "member", by=ws.system))
    key = await runtime.actors.ask(ops.CreateApiKey(user, None, "x", by=ws.system))
    await runtime.actors.ask(ops.RevokeApiKey(key.api_key_id, by=ws.system))
    await runtime.actors.ask(ops.DeleteUser(user, by=ws.system))
