"""Approvals over HTTP: owners and admins decide, never with the key that asked; approving runs
the call exactly once, with edited arguments if the approver edited them; a rejection carries
a reason."""

from __future__ import annotations

import re

import httpx

from fieldhouse.actors.admin_ops import RevokeApiKey
from fieldhouse.runtime import Runtime
from tests.agents.toolkit import call, context, expire, objects
from tests.conftest import Workspace, add_user

MAIL = {"to": ["ada@example.com"], "subject": "Hello", "body": "Hi Ada"}


async def request_send(runtime: Runtime, ws: Workspace) -> str:
    outcome = await call(await context(runtime, ws), "email.send", **MAIL)
    assert outcome.status == "pending_approval" and outcome.approval_id is not None
    return outcome.approval_id


async def test_list_and_approve_runs_once(
    client: httpx.AsyncClient, runtime: Runtime, ws: Workspace
) -> None:
    approval_id = await request_send(runtime, ws)
    admin = await add_user(runtime, ws, "admin")
    listed = await client.get("/api/approvals?status=pending", headers=ws.headers)
    assert listed.status_code == 200
    (item,) = listed.json()["approvals"]
    assert item["id"] == approval_id and item["tool"] == "email.send"
    assert item["arguments"]["to"] == ["ada@example.com"] and item["status"] == "pending"
    assert item["preview"] == {"to": ["ada@example.com"], "subject": "Hello", "body": "Hi Ada"}
    resp = await client.post(f"/api/approvals/{approval_id}/approve", headers=admin.headers)
    assert resp.status_code == 200, resp.text
    body = resp.json()
    assert body["outcome"]["status"] == "ok"
    assert body["approval"]["status"] == "executed"
    assert body["approval"]["decidedBy"] == admin.owner_id and body["approval"]["decidedAt"]
    assert [e.status for e in await objects(runtime, ws, "email")] == ["queued"]
    for decision in ("approve", "reject"):
        again = await client.post(f"/api/approvals/{approval_id}/{decision}", headers=admin.headers)
        assert again.status_code == 409 and again.json()["error"]["code"] == "conflict"
    assert len(await objects(runtime, ws, "email")) == 1
    executed = await client.get("/api/approvals?status=executed", headers=ws.headers)
    assert [a["id"] for a in executed.json()["approvals"]] == [approval_id]
    feed = await client.get(
        "/v1/activity?activityTypes=approval_requested,approval_decided,email_queued",
        headers=ws.headers,
    )
    assert {a["activityType"] for a in feed.json()["activities"]} == {
        "approval_requested",
        "approval_decided",
        "email_queued",
    }


async def test_reject_never_runs(
    client: httpx.AsyncClient, runtime: Runtime, ws: Workspace
) -> None:
    approval_id = await request_send(runtime, ws)
    admin = await add_user(runtime, ws, "admin")
    resp = await client.post(
        f"/api/approvals/{approval_id}/reject",
        json={"reason": "Ada left the company"},
        headers=admin.headers,
    )
    assert resp.status_code == 200
    assert resp.json()["approval"]["status"] == "rejected" and resp.json()["outcome"] is None
    assert resp.json()["approval"]["reason"] == "Ada left the company"
    late = await client.post(f"/api/approvals/{approval_id}/approve", headers=admin.headers)
    assert late.status_code == 409
    assert await objects(runtime, ws, "email") == []


async def test_unknown_and_foreign_ids_are_not_found(
    client: httpx.AsyncClient, runtime: Runtime, ws: Workspace, other_ws: Workspace
) -> None:
    approval_id = await request_send(runtime, ws)
    for path in (
        "/api/approvals/00000000-0000-4000-8000-000000000000/approve",
        f"/api/approvals/{approval_id}/approve",
        f"/api/approvals/{approval_id}/reject",
    ):
        resp = await client.post(path, headers=other_ws.headers)
        assert resp.status_code == 404 and resp.json()["error"]["code"] == "not_found"
    assert (await client.get("/api/approvals", headers=other_ws.headers)).json() == {
        "approvals": []
    }
    assert await objects(runtime, ws, "email") == []


async def test_only_owners_and_admins_decide(
    client: httpx.AsyncClient, runtime: Runtime, ws: Workspace
) -> None:
    approval_id = await request_send(runtime, ws)
    member = await add_user(runtime, ws, "member")
    viewer = await add_user(runtime, ws, "viewer")
    for who in (member, viewer):
        for method, path in (
            ("GET", "/api/approvals"),
            ("POST", f"/api/approvals/{approval_id}/approve"),
            ("POST", f"/api/approvals/{approval_id}/reject"),
        ):
            resp = await client.request(method, path, headers=who.headers)
            assert resp.status_code == 403, (who, path)
    admin = await add_user(runtime, ws, "admin")
    resp = await client.post(f"/api/approvals/{approval_id}/approve", headers=admin.headers)
    assert resp.status_code == 200
    assert resp.json()["approval"]["decidedBy"] == admin.owner_id
    bad = await client.get("/api/approvals?status=maybe", headers=ws.headers)
    assert bad.status_code == 400


DEFAULTS = {
    "maxToolCallsPerStep": 10,
    "maxToolCallsPerRun": 50,
    "maxArgumentBytes": 262144,
    "recordWritesWithoutApproval": 20,
}


async def test_policy_endpoint(client: httpx.AsyncClient, runtime: Runtime, ws: Workspace) -> None:
    assert (await client.get("/api/agents/policy", headers=ws.headers)).json() == {
        "autoApprove": [],
        "requireApproval": [],
        "setBy": None,
        **DEFAULTS,
    }
    unknown = await client.put(
        "/api/agents/policy", json={"autoApprove": ["shell.exec"]}, headers=ws.headers
    )
    assert unknown.status_code == 400
    member = await add_user(runtime, ws, "member")
    denied = await client.put(
        "/api/agents/policy", json={"autoApprove": ["email.send"]}, headers=member.headers
    )
    assert denied.status_code == 403
    assert (await call(await context(runtime, member), "email.send", **MAIL)).status == (
        "pending_approval"
    )
    resp = await client.put(
        "/api/agents/policy", json={"autoApprove": ["email.send"]}, headers=ws.headers
    )
    assert resp.status_code == 200
    assert resp.json() == {
        "autoApprove": ["email.send"],
        "requireApproval": [],
        "setBy": ws.owner_id,
        **DEFAULTS,
    }
    outcome = await call(await context(runtime, member), "email.send", **MAIL)
    assert outcome.status == "ok"


async def test_no_other_route_runs_an_external_tool(
    client: httpx.AsyncClient, runtime: Runtime, ws: Workspace
) -> None:
    """Every served route but approve, called with the tool's arguments and forged approval
    flags, leaves the call pending and the outbox empty."""
    approval_id = await request_send(runtime, ws)
    forged = {**MAIL, "approved": True, "approvalId": approval_id, "tool": "email.send"}
    fill = {"approvalId": approval_id, "moduleSlug": "contacts", "workspaceSlug": "acme"}
    for op in runtime.app.operations:
        if op.spec.operation_id == "approve":  # served under /v1 too: the same operation
            continue
        if op.spec.stream and op.spec.method == "GET":
            continue  # a read-only event stream (GET /v1/events) runs until the client goes
        for path in op.spec.served_paths:
            path = re.sub(r"\{(\w+)\}", lambda m: fill.get(m.group(1), "x"), path)
            await client.request(op.spec.method, path, json=forged, headers=ws.headers)
    assert await objects(runtime, ws, "email") == []
    approval = await runtime.store.get_object(ws.account_id, "approval", approval_id)
    assert approval is not None and approval.status in ("pending", "rejected")


async def test_approvers_never_decide_with_a_delegated_or_the_requesting_key(
    client: httpx.AsyncClient, runtime: Runtime, ws: Workspace
) -> None:
    """An owner's agents:write-only key can neither approve nor reject nor change the policy;
    the key that asked for a call cannot decide it even with every scope; another approver
    can."""
    approval_id = await request_send(runtime, ws)
    delegated = await add_user(runtime, ws, "owner", ("agents:write",))
    for path, body in (
        (f"/api/approvals/{approval_id}/approve", None),
        (f"/api/approvals/{approval_id}/reject", None),
    ):
        resp = await client.post(path, json=body, headers=delegated.headers)
        assert resp.status_code == 403, resp.text
        assert "not limited to some scopes" in resp.json()["error"]["message"]
    policy = await client.put(
        "/api/agents/policy", json={"autoApprove": ["email.send"]}, headers=delegated.headers
    )
    assert policy.status_code == 403
    own = await client.post(f"/api/approvals/{approval_id}/approve", headers=ws.headers)
    assert own.status_code == 403
    assert "asked for this call" in own.json()["error"]["message"]
    assert (
        await client.post(f"/api/approvals/{approval_id}/reject", headers=ws.headers)
    ).status_code == 403
    row = await runtime.store.get_object(ws.account_id, "approval", approval_id)
    assert row is not None and row.status == "pending"
    assert await objects(runtime, ws, "email") == []
    assert (await client.get("/api/agents/policy", headers=ws.headers)).json()["autoApprove"] == []
    admin = await add_user(runtime, ws, "admin")
    resp = await client.post(f"/api/approvals/{approval_id}/approve", headers=admin.headers)
    assert resp.status_code == 200 and resp.json()["approval"]["status"] == "executed"


async def test_approve_with_edited_arguments(
    client: httpx.AsyncClient, runtime: Runtime, ws: Workspace
) -> None:
    approval_id = await request_send(runtime, ws)
    admin = await add_user(runtime, ws, "admin")
    bad = await client.post(
        f"/api/approvals/{approval_id}/approve",
        json={"arguments": {**MAIL, "to": ["not an address"]}},
        headers=admin.headers,
    )
    assert bad.status_code == 400
    edited = {**MAIL, "body": "Hi Ada, see you on Monday"}
    resp = await client.post(
        f"/api/approvals/{approval_id}/approve", json={"arguments": edited}, headers=admin.headers
    )
    assert resp.status_code == 200, resp.text
    approval = resp.json()["approval"]
    assert approval["status"] == "executed"
    assert approval["arguments"]["body"] == "Hi Ada, see you on Monday"
    assert approval["originalArguments"]["body"] == "Hi Ada"
    assert approval["preview"]["body"] == "Hi Ada, see you on Monday"
    (email,) = await objects(runtime, ws, "email")
    assert email.data["body"] == "Hi Ada, see you on Monday"


async def test_approvals_show_what_goes_out(
    client: httpx.AsyncClient, runtime: Runtime, ws: Workspace
) -> None:
    """Publishing, posting and scheduling outreach name an id or slug; the approval shows the
    page's HTML, the post's text and the sequence's recipients and steps."""
    ctx = await context(runtime, ws)
    await call(ctx, "pages.create", slug="spring", title="Spring", html="<h1>Spring sale</h1>")
    page = await call(ctx, "pages.publish", slug="spring")
    drafted = await call(ctx, "social.draft", network="linkedin", text="We are hiring")
    post = await call(ctx, "social.post", postId=drafted.result["post"]["id"])
    steps = [{"subject": "Hi", "body": "Hello there", "delayDays": 0}]
    seq = await call(
        ctx, "outreach.draft", name="Launch", recipients=["ann@example.com"], steps=steps
    )
    scheduled = await call(
        ctx,
        "outreach.schedule",
        sequenceId=seq.result["sequence"]["id"],
        startAt="2026-04-01T09:00:00Z",
    )
    previews = {}
    for outcome in (page, post, scheduled):
        assert outcome.status == "pending_approval"
        got = await client.get(f"/api/approvals/{outcome.approval_id}", headers=ws.headers)
        previews[got.json()["tool"]] = got.json()["preview"]
    assert previews["pages.publish"]["html"] == "<h1>Spring sale</h1>"
    assert previews["pages.publish"]["title"] == "Spring"
    assert previews["social.post"] == {
        "found": True,
        "status": "draft",
        "network": "linkedin",
        "text": "We are hiring",
    }
    outreach = previews["outreach.schedule"]
    assert outreach["recipients"] == ["ann@example.com"] and outreach["steps"] == steps
    assert outreach["startAt"] == "2026-04-01T09:00:00.000000Z"


async def test_a_pending_approval_past_its_expiry_reads_as_expired(
    client: httpx.AsyncClient, runtime: Runtime, ws: Workspace
) -> None:
    stale = await request_send(runtime, ws)
    fresh = await call(await context(runtime, ws), "email.send", **{**MAIL, "subject": "Later"})
    assert fresh.approval_id is not None
    # nothing has written the expiry down yet: the row is still stored as pending
    await expire(runtime, ws, stale)

    async def listed(query: str) -> list[tuple[str, str]]:
        resp = await client.get(f"/api/approvals{query}", headers=ws.headers)
        assert resp.status_code == 200, resp.text
        return [(a["id"], a["status"]) for a in resp.json()["approvals"]]

    assert await listed("?status=pending") == [(fresh.approval_id, "pending")]
    assert await listed("?status=expired") == [(stale, "expired")]
    assert await listed("") == [(fresh.approval_id, "pending"), (stale, "expired")]
    one = await client.get(f"/api/approvals/{stale}", headers=ws.headers)
    assert one.json()["status"] == "expired"


async def test_the_approved_call_runs_with_the_asking_keys_authority(
    client: httpx.AsyncClient, runtime: Runtime, ws: Workspace
) -> None:
    member = await add_user(runtime, ws, "member")
    admin = await add_user(runtime, ws, "admin")
    approval_id = await request_send(runtime, member)
    resp = await client.post(f"/api/approvals/{approval_id}/approve", headers=admin.headers)
    assert resp.status_code == 200, resp.text
    assert resp.json()["approval"]["decidedBy"] == admin.owner_id
    feed = await client.get("/v1/activity?activityTypes=email_queued", headers=ws.headers)
    (queued,) = feed.json()["activities"]
    assert queued["userId"] == member.owner_id  # the agent's key acted, not the approver


async def test_a_call_asked_for_by_a_revoked_key_cannot_run(
    client: httpx.AsyncClient, runtime: Runtime, ws: Workspace
) -> None:
    member = await add_user(runtime, ws, "member")
    admin = await add_user(runtime, ws, "admin")
    approval_id = await request_send(runtime, member)
    await runtime.actors.ask(RevokeApiKey(member.key_id, by=ws.system))
    resp = await client.post(f"/api/approvals/{approval_id}/approve", headers=admin.headers)
    assert resp.status_code == 409 and "revoked" in resp.json()["error"]["message"]
    assert await objects(runtime, ws, "email") == []
    one = await client.get(f"/api/approvals/{approval_id}", headers=ws.headers)
    assert one.json()["status"] == "pending"  # still there to be rejected
    rejected = await client.post(f"/api/approvals/{approval_id}/reject", headers=admin.headers)
    assert rejected.status_code == 200 and rejected.json()["approval"]["status"] == "rejected"


async def test_the_policy_caps_are_set_within_bounds_and_documented(
    client: httpx.AsyncClient, ws: Workspace
) -> None:
    """Issue 32 item 4: the caps are part of the policy, bounded, and their defaults are in
    the document."""
    caps = {"maxToolCallsPerStep": 3, "maxToolCallsPerRun": 12, "recordWritesWithoutApproval": 0}
    resp = await client.put(
        "/api/agents/policy", json={"autoApprove": [], **caps}, headers=ws.headers
    )
    assert resp.status_code == 200, resp.text
    assert resp.json() == {
        "autoApprove": [],
        "requireApproval": [],
        "setBy": ws.owner_id,
        **DEFAULTS,
        **caps,
    }
    for bad in ({"maxToolCallsPerStep": 0}, {"maxArgumentBytes": 10**9}):
        refused = await client.put(
            "/api/agents/policy", json={"autoApprove": [], **bad}, headers=ws.headers
        )
        assert refused.status_code == 400 and refused.json()["error"]["code"] == "validation_error"
    doc = (await client.get("/openapi.json")).json()
    body = doc["components"]["schemas"]["PolicyBody"]["properties"]
    for name, default in DEFAULTS.items():
        assert body[name]["default"] == default
        assert f"(default {default})" in body[name]["description"]


async def test_a_record_update_shows_its_changes_and_an_edit_its_own_description(
    client: httpx.AsyncClient, runtime: Runtime, ws: Workspace
) -> None:
    """Issue 32 item 5: an approval of a record update showed no preview, and approving it with
    edited arguments kept the model's description."""
    made = await client.post(
        "/v1/modules/deals/records",
        json={"displayName": "Big One", "fields": {"name": "Big One", "stage": "won"}},
        headers=ws.headers,
    )
    record_id = made.json()["record"]["recordId"]
    await client.put(
        "/api/agents/policy",
        json={"autoApprove": [], "requireApproval": ["records.update:deals"]},
        headers=ws.headers,
    )
    asked = await client.post(
        "/v1/agents/messages",
        json={"message": "update deal Big One stage to lost"},
        headers=ws.headers,
    )
    (approval_id,) = asked.json()["pendingApprovals"]
    admin = await add_user(runtime, ws, "admin")
    shown = (await client.get(f"/api/approvals/{approval_id}", headers=admin.headers)).json()
    assert shown["preview"] == {
        "found": True,
        "module": "deals",
        "recordId": record_id,
        "displayName": "Big One",
        "changes": {"stage": {"from": "won", "to": "lost"}},
    }
    assert shown["description"] == f"Updating deals record '{record_id}': stage to \"lost\""
    edited = {"module": "deals", "recordId": record_id, "fields": {"stage": "negotiation"}}
    resp = await client.post(
        f"/api/approvals/{approval_id}/approve", json={"arguments": edited}, headers=admin.headers
    )
    assert resp.status_code == 200, resp.text
    approval = resp.json()["approval"]
    assert approval["description"] == (
        f"Updating deals record '{record_id}': stage to \"negotiation\""
    )
    assert approval["preview"]["changes"] == {"stage": {"from": "won", "to": "negotiation"}}
    stage = (await client.get(f"/v1/modules/deals/records/{record_id}", headers=ws.headers)).json()
    assert stage["record"]["fields"]["stage"] == "negotiation"
