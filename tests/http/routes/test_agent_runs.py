"""Agent runs over HTTP: the listing's status filter and limit, what a run shows, runs kept to
their workspace, and a resume that streams its events. (Privacy between users and the resume
decisions are in test_agents_trust.py.)"""

from __future__ import annotations

import uuid
from typing import Any

import httpx
import orjson

from fieldhouse.actors.object_ops import ApplyObjects, ObjectWrite
from fieldhouse.agents.run_writes import AGENT_RUN
from fieldhouse.http.routes.agent_runs import AgentRun, RunList
from fieldhouse.model.principal import SystemActor
from fieldhouse.runtime import Runtime
from tests.conftest import Workspace, add_user
from tests.http.test_auth import assert_envelope

RUNS = "/v1/agents/runs"


async def chat(client: httpx.AsyncClient, who: Workspace, message: str) -> Any:
    res = await client.post("/v1/agents/messages", json={"message": message}, headers=who.headers)
    assert res.status_code == 200, res.text
    return res.json()


async def test_listing_filters_by_status_and_limits(
    client: httpx.AsyncClient, ws: Workspace
) -> None:
    first = await chat(client, ws, "create a contact named Ada Lovelace")
    second = await chat(client, ws, "find contacts named Ada")
    third = await chat(client, ws, "show my reminders")
    listed = await client.get(RUNS, headers=ws.headers)
    assert listed.status_code == 200
    body = RunList.model_validate(listed.json())  # the declared response model fits
    assert [r.runId for r in body.runs] == [third["runId"], second["runId"], first["runId"]]
    two = await client.get(RUNS, headers=ws.headers, params={"limit": 2})
    assert [r["runId"] for r in two.json()["runs"]] == [third["runId"], second["runId"]]
    done = await client.get(RUNS, headers=ws.headers, params={"status": "succeeded"})
    assert len(done.json()["runs"]) == 3
    failed = await client.get(RUNS, headers=ws.headers, params={"status": "failed"})
    assert failed.json() == {"runs": [], "nextCursor": None}
    for params in ({"limit": 0}, {"limit": 101}, {"status": "finished"}):
        error = assert_envelope(
            await client.get(RUNS, headers=ws.headers, params=params), 400, "validation_error"
        )
        issues = error["issues"]
        assert isinstance(issues, list) and [i["path"] for i in issues] == [list(params)]


async def test_a_run_shows_its_calls_and_what_they_read(
    client: httpx.AsyncClient, ws: Workspace
) -> None:
    made = await chat(client, ws, "create a contact named Ada Lovelace")
    resp = await client.get(f"{RUNS}/{made['runId']}", headers=ws.headers)
    assert resp.status_code == 200
    run = AgentRun.model_validate(resp.json())
    assert run.runId == made["runId"] and run.userId == ws.owner_id
    assert run.status == "succeeded" and run.pendingApprovals == []
    assert run.response == made["response"] and run.error is None
    lookup, call = run.toolCalls  # a look-up for a contact of that name, then the create
    assert (lookup.tool, lookup.status) == ("records.search", "ok")
    assert (call.tool, call.status, call.approvalId) == ("records.create", "ok", None)
    assert call.result["record"]["displayName"] == "Ada Lovelace"


async def test_runs_stay_in_their_workspace(
    client: httpx.AsyncClient, ws: Workspace, other_ws: Workspace
) -> None:
    ours = await chat(client, ws, "send an email to bob@example.com about Pricing")
    for method, path in (("GET", ""), ("POST", "/resume")):
        resp = await client.request(
            method, f"{RUNS}/{ours['runId']}{path}", headers=other_ws.headers
        )
        assert_envelope(resp, 404, "not_found")
    assert (await client.get(RUNS, headers=other_ws.headers)).json() == {
        "runs": [],
        "nextCursor": None,
    }


async def test_resume_streams_when_asked(
    runtime: Runtime, client: httpx.AsyncClient, ws: Workspace
) -> None:
    asked = await chat(client, ws, "send an email to bob@example.com about Pricing")
    (approval,) = asked["pendingApprovals"]
    admin = await add_user(runtime, ws, "admin")
    rejected = await client.post(
        f"/api/approvals/{approval}/reject", json={"reason": "Not now"}, headers=admin.headers
    )
    assert rejected.status_code == 200
    resp = await client.post(
        f"{RUNS}/{asked['runId']}/resume", headers=ws.headers, params={"stream": "true"}
    )
    assert resp.status_code == 200
    assert resp.headers["content-type"].startswith("text/event-stream")
    names = [line[7:] for line in resp.text.splitlines() if line.startswith("event: ")]
    data = [orjson.loads(line[6:]) for line in resp.text.splitlines() if line.startswith("data: ")]
    assert names[-1] == "done", names
    assert data[-1]["runId"] == asked["runId"]
    assert "An approver rejected this call: Not now." in data[-1]["response"]
    run = (await client.get(f"{RUNS}/{asked['runId']}", headers=ws.headers)).json()
    assert run["status"] == "succeeded"


def stored_runs(user_id: str, count: int, *, by: SystemActor) -> ApplyObjects:
    """``count`` finished runs of one user, written in one transaction."""
    writes = []
    for _ in range(count):
        run_id = str(uuid.uuid4())
        data = {"runId": run_id, "userId": user_id, "message": "m", "provider": "offline"}
        writes.append(ObjectWrite(AGENT_RUN, run_id, data, "succeeded"))
    return ApplyObjects(tuple(writes), by=by)


async def test_runs_are_listed_page_by_page_past_the_newest_500(
    runtime: Runtime, client: httpx.AsyncClient, ws: Workspace
) -> None:
    """Issue 32 item 5: the listing stopped at the workspace's 500 newest runs (a member with
    an older run saw none) and had no paging."""
    member = await add_user(runtime, ws, "member")
    theirs = await chat(client, member, "show my reminders")
    await runtime.actors.ask(stored_runs(ws.owner_id, 505, by=ws.system))
    mine = await client.get(RUNS, headers=member.headers)
    assert [r["runId"] for r in mine.json()["runs"]] == [theirs["runId"]]
    assert mine.json()["nextCursor"] is None
    seen: list[str] = []
    cursor = None
    for _ in range(10):
        params = {"limit": 100, **({"cursor": cursor} if cursor else {})}
        page = (await client.get(RUNS, headers=ws.headers, params=params)).json()
        seen += [r["runId"] for r in page["runs"]]
        cursor = page["nextCursor"]
        if cursor is None:
            break
    assert len(seen) == 506 and len(set(seen)) == 506 and seen[-1] == theirs["runId"]
    bad = await client.get(RUNS, headers=ws.headers, params={"cursor": "not-a-cursor"})
    assert_envelope(bad, 400, "validation_error")


async def test_a_key_that_may_chat_reads_the_runs_it_made(
    runtime: Runtime, client: httpx.AsyncClient, ws: Workspace
) -> None:
    """Issue 32 item 5: an agents:write-only key could chat but got 403 on its own runs."""
    agent_only = await add_user(runtime, ws, "member", ("agents:write",))
    made = await chat(client, agent_only, "show my reminders")
    listed = await client.get(RUNS, headers=agent_only.headers)
    assert listed.status_code == 200, listed.text
    assert [r["runId"] for r in listed.json()["runs"]] == [made["runId"]]
    one = await client.get(f"{RUNS}/{made['runId']}", headers=agent_only.headers)
    assert one.status_code == 200 and one.json()["userId"] == agent_only.owner_id
