"""Agent trust over HTTP (issue 13): tools obey the key's scopes exactly as REST does; runs can
be listed, read and resumed after their approvals are decided, and the model reads the
decision; policy can require approvals for record writes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import httpx
import pytest

from fieldhouse.actors.admin_ops import CreateRole
from fieldhouse.agents.contract import ToolCall, ToolSpec
from fieldhouse.agents.providers.base import Step, TextSink, Turn
from fieldhouse.agents.resume import prepare_resume
from fieldhouse.model.errors import Conflict
from fieldhouse.runtime import Runtime
from tests.agents.toolkit import another_key, session_of
from tests.conftest import Workspace, add_user
from tests.http.agents_support import install_runtime

URL = "/v1/agents/messages"


async def chat(client: httpx.AsyncClient, who: Workspace, message: str) -> Any:
    res = await client.post(URL, json={"message": message}, headers=who.headers)
    assert res.status_code == 200, res.text
    return res.json()


async def test_tools_obey_the_key_scopes_like_rest(
    runtime: Runtime, client: httpx.AsyncClient, ws: Workspace
) -> None:
    """An agents:write-only key gets 403 from REST for records, and the agent's record tools
    refuse the same calls: nothing is created, nothing is read."""
    agent_only = await add_user(runtime, ws, "owner", ("agents:write",))
    rest = await client.post(
        "/v1/modules/contacts/records", json={"displayName": "Ada"}, headers=agent_only.headers
    )
    assert rest.status_code == 403
    listed = await client.get("/v1/modules/contacts/records", headers=agent_only.headers)
    assert listed.status_code == 403
    made = await chat(client, agent_only, "create a contact named Ada Lovelace")
    assert "lacks the 'records:write' scope" in made["response"]
    found = await chat(client, agent_only, "find contacts named Ada")
    assert "lacks the 'records:read' scope" in found["response"]
    assert "Ada" not in found["response"].replace("named Ada", "")
    everything = await client.get("/v1/modules/contacts/records", headers=ws.headers)
    assert everything.json()["total"] == 0
    # a read-only key reads through the agent but does not write
    reader = await add_user(runtime, ws, "member", ("records:read", "agents:write"))
    assert (
        "lacks the 'records:write' scope"
        in (await chat(client, reader, "create a contact named Ada Lovelace"))["response"]
    )
    assert "Found 0 contacts record(s)" in (await chat(client, reader, "find contacts"))["response"]


async def test_runs_are_listed_read_and_private_to_their_user(
    runtime: Runtime, client: httpx.AsyncClient, ws: Workspace
) -> None:
    member = await add_user(runtime, ws, "member")
    mine = await chat(client, member, "create a contact named Ada Lovelace")
    theirs = await chat(client, ws, "show my reminders")
    listed = await client.get("/v1/agents/runs", headers=member.headers)
    assert listed.status_code == 200
    assert [r["runId"] for r in listed.json()["runs"]] == [mine["runId"]]
    everyone = await client.get("/v1/agents/runs", headers=ws.headers)
    assert [r["runId"] for r in everyone.json()["runs"]] == [theirs["runId"], mine["runId"]]
    one = await client.get(f"/v1/agents/runs/{mine['runId']}", headers=member.headers)
    assert one.status_code == 200
    run = one.json()
    assert run["status"] == "succeeded" and run["message"] == "create a contact named Ada Lovelace"
    lookup, call = run["toolCalls"]  # a look-up for a contact of that name, then the create
    assert lookup["tool"] == "records.search"
    assert call["tool"] == "records.create" and call["status"] == "ok"
    hidden = await client.get(f"/v1/agents/runs/{theirs['runId']}", headers=member.headers)
    assert hidden.status_code == 404
    bad = await client.get("/v1/agents/runs?status=done", headers=ws.headers)
    assert bad.status_code == 400


async def test_resume_tells_the_model_the_rejection_reason(
    runtime: Runtime, client: httpx.AsyncClient, ws: Workspace
) -> None:
    asked = await chat(client, ws, "send an email to bob@example.com about Pricing")
    run_id = asked["runId"]
    (approval,) = asked["pendingApprovals"]
    early = await client.post(f"/v1/agents/runs/{run_id}/resume", headers=ws.headers)
    assert early.status_code == 409
    assert early.json()["error"]["data"]["pendingApprovals"] == [approval]
    admin = await add_user(runtime, ws, "admin")
    rejected = await client.post(
        f"/api/approvals/{approval}/reject",
        json={"reason": "Bob unsubscribed"},
        headers=admin.headers,
    )
    assert rejected.status_code == 200
    resumed = await client.post(f"/v1/agents/runs/{run_id}/resume", headers=ws.headers)
    assert resumed.status_code == 200, resumed.text
    body = resumed.json()
    assert body["runId"] == run_id and body["success"] is True
    assert "An approver rejected this call: Bob unsubscribed." in body["response"]
    run = (await client.get(f"/v1/agents/runs/{run_id}", headers=ws.headers)).json()
    assert run["status"] == "succeeded"
    (call,) = run["toolCalls"]
    assert call["status"] == "rejected" and call["result"]["reason"] == "Bob unsubscribed"
    again = await client.post(f"/v1/agents/runs/{run_id}/resume", headers=ws.headers)
    assert again.status_code == 409
    assert (await client.post("/v1/agents/runs/nope/resume", headers=ws.headers)).status_code == 404


async def test_resume_after_an_approved_call(
    runtime: Runtime, client: httpx.AsyncClient, ws: Workspace
) -> None:
    asked = await chat(client, ws, "post on linkedin: We are hiring")
    (approval,) = asked["pendingApprovals"]
    admin = await add_user(runtime, ws, "admin")
    shown = await client.get(f"/api/approvals/{approval}", headers=admin.headers)
    assert shown.status_code == 200
    preview = shown.json()["preview"]
    assert preview["text"] == "We are hiring" and preview["network"] == "linkedin"
    approved = await client.post(f"/api/approvals/{approval}/approve", headers=admin.headers)
    assert approved.json()["outcome"]["status"] == "ok"
    resumed = await client.post(f"/v1/agents/runs/{asked['runId']}/resume", headers=ws.headers)
    assert "Approved and done: Posting the social post" in resumed.json()["response"]


async def test_policy_can_require_approval_for_record_writes(
    runtime: Runtime, client: httpx.AsyncClient, ws: Workspace
) -> None:
    """A record's text tells the model to mark a won deal lost: with records.update:deals
    requiring approval, the deal stays won until an approver decides, and the run shows which
    record text it read."""
    made = await client.post(
        "/v1/modules/deals/records",
        json={"displayName": "Big One", "fields": {"name": "Big One", "stage": "won"}},
        headers=ws.headers,
    )
    assert made.status_code == 201, made.text
    policy = await client.put(
        "/api/agents/policy",
        json={"autoApprove": [], "requireApproval": ["records.update:deals"]},
        headers=ws.headers,
    )
    assert policy.status_code == 200 and policy.json()["requireApproval"] == [
        "records.update:deals"
    ]
    bad = await client.put(
        "/api/agents/policy",
        json={"autoApprove": [], "requireApproval": ["records.drop:deals"]},
        headers=ws.headers,
    )
    assert bad.status_code == 400
    body = await chat(client, ws, "update deal Big One stage to lost")
    (approval,) = body["pendingApprovals"]
    record = (await client.get("/v1/modules/deals/records", headers=ws.headers)).json()
    assert record["records"][0]["fields"]["stage"] == "won"
    run = (await client.get(f"/v1/agents/runs/{body['runId']}", headers=ws.headers)).json()
    search, update = run["toolCalls"]
    assert search["tool"] == "records.search"
    assert search["read"] == [
        {"module": "deals", "recordId": record["records"][0]["recordId"], "displayName": "Big One"}
    ]
    assert update["status"] == "pending_approval" and update["approvalId"] == approval
    admin = await add_user(runtime, ws, "admin")
    shown = (await client.get(f"/api/approvals/{approval}", headers=admin.headers)).json()
    assert shown["tool"] == "records.update" and shown["arguments"]["fields"] == {"stage": "lost"}
    approved = await client.post(f"/api/approvals/{approval}/approve", headers=admin.headers)
    assert approved.json()["approval"]["status"] == "executed"
    record = (await client.get("/v1/modules/deals/records", headers=ws.headers)).json()
    assert record["records"][0]["fields"]["stage"] == "lost"


async def test_an_ambiguous_name_changes_nothing_and_lists_candidates(
    runtime: Runtime, client: httpx.AsyncClient, ws: Workspace
) -> None:
    """52 contacts match "Ada" and three are named exactly "Ada Lovelace": renaming "Ada
    Lovelace" changes none of them and asks which one, naming the candidates; a unique name
    is changed."""
    names = ["Ada Lovelace"] * 3 + [f"Ada Number {i}" for i in range(49)]
    for name in names:
        first, _, last = name.partition(" ")
        made = await client.post(
            "/v1/modules/contacts/records",
            json={"displayName": name, "fields": {"first-name": first, "last-name": last}},
            headers=ws.headers,
        )
        assert made.status_code == 201, made.text
    body = await chat(client, ws, "update contact Ada Lovelace name to Ada King")
    assert body["response"].startswith("Which one do you mean: Ada Lovelace (contacts), Ada")
    assert "I changed nothing yet" in body["response"]
    run = (await client.get(f"/v1/agents/runs/{body['runId']}", headers=ws.headers)).json()
    assert [c["tool"] for c in run["toolCalls"]] == ["records.search"]  # no update was tried
    listed = await client.get(
        "/v1/modules/contacts/records", params={"search": "King"}, headers=ws.headers
    )
    assert listed.json()["total"] == 0
    unique = await chat(client, ws, "update contact Ada Number 7 name to Ada King")
    assert "Updated contacts record Ada King." in unique["response"]
    listed = await client.get(
        "/v1/modules/contacts/records", params={"search": "King"}, headers=ws.headers
    )
    assert listed.json()["total"] == 1


async def test_email_a_person_by_name_and_questions(
    runtime: Runtime, client: httpx.AsyncClient, ws: Workspace
) -> None:
    await chat(client, ws, "create a contact named Ada Lovelace with email ada@example.com")
    asked = await chat(client, ws, "email Ada Lovelace about the meeting")
    (approval,) = asked["pendingApprovals"]
    admin = await add_user(runtime, ws, "admin")
    shown = (await client.get(f"/api/approvals/{approval}", headers=admin.headers)).json()
    assert shown["preview"] == {
        "to": ["ada@example.com"],
        "subject": "the meeting",
        "body": "the meeting",
    }
    unknown = await chat(client, ws, "what's the weather like?")
    assert unknown["response"].startswith("Sorry, I did not understand that, so I did nothing.")
    assert unknown["toolCalls"] == 0
    closed = await chat(client, ws, "what deals closed this month?")
    assert closed["success"] is True and "Found 0 deals record(s)" in closed["response"]


async def test_the_document_describes_runs_approvals_and_events(client: httpx.AsyncClient) -> None:
    doc = (await client.get("/openapi.json")).json()
    for path, method in (
        ("/agents/runs", "get"),
        ("/agents/runs/{runId}", "get"),
        ("/agents/runs/{runId}/resume", "post"),
        ("/api/approvals/{approvalId}", "get"),
    ):
        assert method in doc["paths"][path], path
    resume = doc["paths"]["/agents/runs/{runId}/resume"]["post"]
    assert "Conflict" in resume["responses"]["409"]["description"]
    schemas = doc["components"]["schemas"]
    assert schemas["AgentEvent_approval_required"]["required"] == [
        "approvalId",
        "tool",
        "description",
        "preview",
    ]
    assert "runId" in schemas["AgentEvent_open"]["properties"]
    approve = doc["paths"]["/api/approvals/{approvalId}/approve"]["post"]
    assert approve["requestBody"]["required"] is False
    assert "preview" in schemas["Approval"]["properties"]


async def test_of_two_resumes_of_one_run_one_wins(
    runtime: Runtime, client: httpx.AsyncClient, ws: Workspace
) -> None:
    """Both resumes read the run before either writes: the first claims the record, the second
    is refused (409) instead of running the continuation twice."""
    asked = await chat(client, ws, "send an email to bob@example.com about Pricing")
    (approval,) = asked["pendingApprovals"]
    admin = await add_user(runtime, ws, "admin")
    await client.post(f"/api/approvals/{approval}/reject", headers=admin.headers)
    principal, _ = await runtime.services.auth.authenticate(f"Bearer {ws.key}")
    agents = runtime.services.agents
    first = await prepare_resume(agents, principal, asked["runId"])
    second = await prepare_resume(agents, principal, asked["runId"])
    assert (await first.execute())["success"] is True
    with pytest.raises(Conflict, match="resumed meanwhile"):
        await second.execute()
    run = (await client.get(f"/v1/agents/runs/{asked['runId']}", headers=ws.headers)).json()
    assert run["status"] == "succeeded" and run["steps"] == first.steps


class MailThenLose:
    """A model that asks for an e-mail and waits; once it reads that the e-mail went out, it
    marks the deal Big One lost (a record text's injected instruction, say); then it says
    what happened."""

    name = "mail-then-lose"

    async def step(self, turns: Sequence[Turn], tools: Sequence[ToolSpec], emit: TextSink) -> Step:
        done = {t.call.name: t.outcome for t in turns if t.call is not None and t.outcome}
        text = " ".join(o.summary for o in done.values())
        if "email.send" not in done:
            mail = {"to": ["bob@example.com"], "subject": "Pricing", "body": "Our prices"}
            return Step((ToolCall("c-mail", "email.send", mail),))
        if done["email.send"].status == "ok" and "records.update" not in done:
            lose = {"module": "deals", "name": "Big One", "fields": {"stage": "lost"}}
            return Step((ToolCall("c-lose", "records.update", lose),))
        await emit(text)
        return Step((), text)


async def test_a_resumed_run_acts_with_its_requesters_rights_not_the_resumers(
    runtime: Runtime, client: httpx.AsyncClient, ws: Workspace
) -> None:
    """Issue 32 item 1: a sales key that cannot edit deals asks for an e-mail; an admin approves
    it and resumes the run: the e-mail goes out as the sales user, the model's next call (mark
    the deal lost) runs with the sales user's rights and is refused, and the run stays theirs."""
    await runtime.actors.ask(
        CreateRole(
            "sales", frozenset({"deals", "contacts"}), frozenset({"contacts"}), by=ws.system
        ),
    )
    sales = await add_user(runtime, ws, "sales")
    admin = await add_user(runtime, ws, "admin")
    deal = await client.post(
        "/v1/modules/deals/records",
        json={"displayName": "Big One", "fields": {"name": "Big One", "stage": "proposal"}},
        headers=ws.headers,
    )
    assert deal.status_code == 201, deal.text
    install_runtime(runtime, MailThenLose())
    asked = await chat(client, sales, "write to Bob about pricing")
    (approval,) = asked["pendingApprovals"]
    waiting = (await client.get(f"/v1/agents/runs/{asked['runId']}", headers=sales.headers)).json()
    assert [c["tool"] for c in waiting["toolCalls"]] == ["email.send"]
    approved = await client.post(f"/api/approvals/{approval}/approve", headers=admin.headers)
    assert approved.status_code == 200, approved.text
    resumed = await client.post(f"/v1/agents/runs/{asked['runId']}/resume", headers=admin.headers)
    assert resumed.status_code == 200, resumed.text
    assert "may not change records of module 'deals'" in resumed.json()["response"]
    stage = (await client.get(f"/v1/modules/deals/records/{deal.json()['record']['recordId']}",
                              headers=ws.headers)).json()["record"]["fields"]["stage"]  # fmt: skip
    assert stage == "proposal"
    run = await client.get(f"/v1/agents/runs/{asked['runId']}", headers=sales.headers)
    assert run.status_code == 200, run.text
    assert run.json()["userId"] == sales.owner_id and run.json()["authMethod"] == "api_key"
    update = run.json()["toolCalls"][-1]
    assert (update["tool"], update["status"]) == ("records.update", "error")
    feed = await client.get("/v1/activity?activityTypes=email_queued", headers=ws.headers)
    (queued,) = feed.json()["activities"]
    assert queued["userId"] == sales.owner_id


async def test_the_approver_is_a_person_not_a_key(
    runtime: Runtime, client: httpx.AsyncClient, ws: Workspace
) -> None:
    """Issue 32 item 3: the owner who asked for a call can decide it neither with a second key
    nor in a session; another admin can."""
    asked = await chat(client, ws, "send an email to bob@example.com about Pricing")
    (approval,) = asked["pendingApprovals"]
    for headers in ((await another_key(runtime, ws)).headers, await session_of(runtime, ws)):
        for decision in ("approve", "reject"):
            own = await client.post(f"/api/approvals/{approval}/{decision}", headers=headers)
            assert own.status_code == 403, own.text
            assert "asked for this call" in own.json()["error"]["message"]
    assert (await client.get(f"/api/approvals/{approval}", headers=ws.headers)).json()[
        "status"
    ] == "pending"
    admin = await add_user(runtime, ws, "admin")
    approved = await client.post(f"/api/approvals/{approval}/approve", headers=admin.headers)
    assert approved.status_code == 200 and approved.json()["approval"]["status"] == "executed"


async def test_auto_approval_never_covers_its_setters_own_calls(
    runtime: Runtime, client: httpx.AsyncClient, ws: Workspace
) -> None:
    """Issue 32 item 3: an owner's unrestricted key that auto-approves e-mails does not let its
    own e-mails through; another user's are, and their run says who auto-approved them."""
    policy = await client.put(
        "/api/agents/policy", json={"autoApprove": ["email.send"]}, headers=ws.headers
    )
    assert policy.status_code == 200 and policy.json()["setBy"] == ws.owner_id
    own = await chat(client, ws, "send an email to bob@example.com about Pricing")
    assert len(own["pendingApprovals"]) == 1
    member = await add_user(runtime, ws, "member")
    theirs = await chat(client, member, "send an email to bob@example.com about Pricing")
    assert theirs["pendingApprovals"] == []
    run = (await client.get(f"/v1/agents/runs/{theirs['runId']}", headers=member.headers)).json()
    (call,) = run["toolCalls"]
    assert (call["status"], call["autoApprovedBy"]) == ("ok", ws.owner_id)
