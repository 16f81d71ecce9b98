"""Isolation between workspaces, and credentials that stop working: workspace B's credentials
never see or change anything of workspace A; revoked keys, forged or expired JWTs and deleted
users are refused on the next request."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import httpx
import jwt
import pytest

from fieldhouse.actors import admin_ops as ops
from fieldhouse.cli import main
from fieldhouse.http.auth import JWT_ISSUER, issue_token, jwt_secret
from fieldhouse.runtime import Runtime
from tests.conftest import Workspace, add_user

DEAL = "/v1/modules/deals/records"


async def _seed(client: httpx.AsyncClient, ws: Workspace) -> dict[str, Any]:
    """A company, a deal linked to it, a label and the ids an attacker would try."""
    company = await client.post(
        "/v1/modules/companies/records",
        headers=ws.headers,
        json={"displayName": "A Corp", "fields": {"name": "A Corp"}},
    )
    assert company.status_code == 201, company.text
    company_id = company.json()["record"]["recordId"]
    deal = await client.post(
        DEAL,
        headers=ws.headers,
        json={
            "displayName": "A deal",
            "fields": {
                "name": "A deal",
                "stage": "lead",
                "company": {"recordId": company_id, "displayName": "A Corp"},
            },
        },
    )
    assert deal.status_code == 201, deal.text
    label = await client.post("/api/labels", headers=ws.headers, json={"name": "A secret"})
    assert label.status_code in (200, 201), label.text
    schema = (await client.get("/v1/modules/deals", headers=ws.headers)).json()
    return {
        "company": company_id,
        "deal": deal.json()["record"]["recordId"],
        "deal_record": deal.json()["record"],
        "label": label.json().get("labelId") or label.json().get("label", {}).get("id"),
        "module_id": schema["module"]["id"],
        "field_id": schema["fields"][0]["fieldId"],
        "schema": schema,
    }


def _no_a_ids(payload: Any, a: dict[str, Any]) -> None:
    text = str(payload)
    for key in ("company", "deal", "module_id", "field_id"):
        assert a[key] not in text, (key, text[:300])


async def test_workspace_b_cannot_reach_workspace_a(
    client: httpx.AsyncClient, ws: Workspace, other_ws: Workspace
) -> None:
    a = await _seed(client, ws)
    b = other_ws.headers
    deal, company = a["deal"], a["company"]
    # single-record endpoints: 404, as if the ids did not exist
    for method, path, body in [
        ("GET", f"{DEAL}/{deal}", None),
        ("PATCH", f"{DEAL}/{deal}", {"fields": {"stage": "won"}}),
        ("DELETE", f"{DEAL}/{deal}", None),
        ("GET", f"/v1/modules/companies/records/{company}", None),
        ("GET", f"/v1/modules/deals/references/company/records/{deal}", None),
        ("GET", f"/v1/modules/deals/records/{deal}/activity", None),
        ("POST", f"/api/modules/{a['module_id']}/reset-to-template", None),
        (
            "POST",
            f"/api/modules/{a['module_id']}/fields",
            {"label": "Injected", "slug": "injected", "dataType": "text"},
        ),
        ("PATCH", f"/api/modules/{a['module_id']}/fields/{a['field_id']}", {"label": "X"}),
        ("DELETE", f"/api/modules/{a['module_id']}/fields/{a['field_id']}", None),
    ]:
        resp = await client.request(method, path, headers=b, json=body)
        assert resp.status_code == 404, (method, path, resp.status_code, resp.text)
        assert resp.json()["error"]["code"] == "not_found"
        assert "A Corp" not in resp.text and "A deal" not in resp.text  # ids echoed, not data
    # bulk endpoints: nothing of A is touched or returned
    bulk = await client.post(f"{DEAL}/bulk", headers=b, json={"recordIds": [deal]})
    assert bulk.status_code in (200, 400, 404), bulk.text
    if bulk.status_code == 200:
        assert bulk.json()["records"] == []
    gone = await client.post(f"{DEAL}/bulk-delete", headers=b, json={"recordIds": [deal]})
    assert gone.status_code == 200 and gone.json()["deletedCount"] == 0, gone.text
    # lists, pickers, activity and search of B hold none of A's records
    for path in [
        DEAL,
        "/v1/modules/companies/records",
        "/v1/modules/deals/references/company/picker",
        "/v1/activity",
        "/v1/modules/deals/activity",
        "/v1/modules",
        "/api/labels",
        "/api/types",
    ]:
        resp = await client.get(path, headers=b)
        assert resp.status_code == 200, (path, resp.text)
        _no_a_ids(resp.json(), a)
        assert "A Corp" not in resp.text and "A secret" not in resp.text, path
    found = await client.post("/v1/search", headers=b, json={"query": "A Corp"})
    assert found.status_code == 200
    _no_a_ids(found.json(), a)
    # a B record cannot link to A's company, nor carry A's label
    linked = await client.post(
        DEAL,
        headers=b,
        json={
            "displayName": "B deal",
            "fields": {
                "name": "B deal",
                "stage": "lead",
                "company": {"recordId": company, "displayName": "A Corp"},
            },
        },
    )
    assert linked.status_code in (400, 404), linked.text
    own = await client.post(
        DEAL, headers=b, json={"displayName": "B", "fields": {"name": "B", "stage": "lead"}}
    )
    assert own.status_code == 201
    b_deal = own.json()["record"]["recordId"]
    labelled = await client.post(
        f"{DEAL}/bulk", headers=b, json={"recordIds": [b_deal], "addLabelIds": [a["label"]]}
    )
    if labelled.status_code == 200:
        assert all(a["label"] not in r["labelIds"] for r in labelled.json()["records"])
    else:
        assert labelled.status_code in (400, 404), labelled.text
    # and A's data is exactly as it was
    still = await client.get(f"{DEAL}/{deal}", headers=ws.headers)
    assert still.status_code == 200
    assert still.json()["record"]["fields"] == a["deal_record"]["fields"]
    assert (await client.get("/v1/modules/deals", headers=ws.headers)).json() == a["schema"]


async def test_revoked_key_stops_on_the_next_request(
    client: httpx.AsyncClient, runtime: Runtime, ws: Workspace
) -> None:
    member = await add_user(runtime, ws, "member")
    assert (await client.get("/v1/me", headers=member.headers)).status_code == 200
    await runtime.actors.ask(ops.RevokeApiKey(member.key_id, by=ws.system))
    resp = await client.get("/v1/me", headers=member.headers)
    assert resp.status_code == 401
    assert resp.json()["error"]["code"] == "unauthorized"


async def test_forged_expired_and_orphaned_jwts_are_refused(
    client: httpx.AsyncClient, runtime: Runtime, ws: Workspace, other_ws: Workspace
) -> None:
    secret = await jwt_secret(runtime.store, runtime.settings, runtime.backend)
    good = issue_token(secret, ws.account_id, ws.owner_id, 60)
    assert (await client.get("/v1/me", headers=_bearer(good))).status_code == 200
    now = int(time.time())
    claims = {"iss": JWT_ISSUER, "sub": ws.owner_id, "acct": ws.account_id, "iat": now}
    forged = jwt.encode({**claims, "exp": now + 60}, "not-the-secret" * 4, algorithm="HS256")
    expired = jwt.encode({**claims, "exp": now - 10, "iat": now - 100}, secret, algorithm="HS256")
    unsigned = jwt.encode({**claims, "exp": now + 60}, None, algorithm="none")
    # a real user of A presented as if in B's workspace
    crossed = issue_token(secret, other_ws.account_id, ws.owner_id, 60)
    tampered = good[:-4] + ("AAAA" if not good.endswith("AAAA") else "BBBB")
    for token in (forged, expired, unsigned, crossed, tampered, "a.b.c", "x" * 5000):
        resp = await client.get("/v1/me", headers=_bearer(token))
        assert resp.status_code == 401, (token[:20], resp.text)
        assert resp.json()["error"]["code"] == "unauthorized"


async def test_deleted_user_loses_keys_and_tokens(
    client: httpx.AsyncClient, runtime: Runtime, ws: Workspace
) -> None:
    member = await add_user(runtime, ws, "member")
    secret = await jwt_secret(runtime.store, runtime.settings, runtime.backend)
    token = issue_token(secret, ws.account_id, member.owner_id, 60)
    assert (await client.get("/v1/me", headers=member.headers)).status_code == 200
    assert (await client.get("/v1/me", headers=_bearer(token))).status_code == 200
    assert await runtime.actors.ask(ops.DeleteUser(member.owner_id, by=ws.system)) is True
    for headers in (member.headers, _bearer(token)):
        resp = await client.get("/v1/me", headers=headers)
        assert resp.status_code == 401, resp.text
        assert resp.json()["error"]["code"] == "unauthorized"
    assert (await client.get("/v1/me", headers=ws.headers)).status_code == 200  # others go on


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_cli_user_delete(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    d = ["--data-dir", str(tmp_path)]
    assert main(["init", *d, "--template", "deals"]) == 0
    made = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    account = made["accountId"]
    args = ["--email", "m@example.com", "--display-name", "M", "--role", "member"]
    assert main(["user", "create", *d, "--workspace", account, *args]) == 0
    user = json.loads(capsys.readouterr().out.strip())["userId"]
    assert main(["user", "delete", *d, "--workspace", account, user]) == 0
    assert json.loads(capsys.readouterr().out.strip()) == {"userId": user, "deleted": True}
    assert main(["user", "delete", *d, "--workspace", account, user]) == 1  # already deleted
    assert json.loads(capsys.readouterr().err.strip())["error"]["code"] == "not_found"
    assert main(["key", "create", *d, "--workspace", account, "--user", user]) == 1
