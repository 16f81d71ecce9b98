"""Published landing pages at /pages/{workspaceSlug}/{pageSlug}: sanitised HTML, no auth."""

from __future__ import annotations

import httpx

from fieldhouse.actors.object_ops import ApplyObjects, ObjectWrite
from fieldhouse.runtime import Runtime
from tests.agents.toolkit import call, context
from tests.conftest import Workspace, add_user

HTML = '<h1>Launch</h1><p onmouseover="steal()">Join us</p><script>alert("x")</script>'


async def workspace_slug(runtime: Runtime, ws: Workspace) -> str:
    account = await runtime.store.get_account(ws.account_id)
    assert account is not None
    return account.slug


async def test_published_page_is_served_sanitised(
    client: httpx.AsyncClient, runtime: Runtime, ws: Workspace, other_ws: Workspace
) -> None:
    ctx = await context(runtime, ws)
    made = await call(ctx, "pages.create", slug="launch", title="Launch <day>", html=HTML)
    assert made.status == "ok"
    slug = await workspace_slug(runtime, ws)
    draft = await client.get(f"/pages/{slug}/launch")
    assert draft.status_code == 404 and draft.json()["error"]["code"] == "not_found"
    pending = await call(ctx, "pages.publish", slug="launch")
    assert pending.status == "pending_approval"
    assert (await client.get(f"/pages/{slug}/launch")).status_code == 404
    admin = await add_user(runtime, ws, "admin")  # never the requesting key
    approved = await client.post(
        f"/api/approvals/{pending.approval_id}/approve", headers=admin.headers
    )
    assert approved.json()["outcome"]["status"] == "ok"
    resp = await client.get(f"/pages/{slug}/launch")
    assert resp.status_code == 200
    assert resp.headers["content-type"].startswith("text/html")
    assert "default-src 'none'" in resp.headers["content-security-policy"]
    page = resp.text
    assert "<h1>Launch</h1>" in page and "Join us" in page
    assert "<script" not in page and "onmouseover" not in page and "alert" not in page
    assert "<title>Launch &lt;day&gt;</title>" in page
    other = await workspace_slug(runtime, other_ws)
    assert (await client.get(f"/pages/{other}/launch")).status_code == 404
    assert (await client.get("/pages/no-such-workspace/launch")).status_code == 404
    assert (await client.get(f"/pages/{slug}/nope")).status_code == 404


async def test_stored_html_is_cleaned_again_when_served(
    client: httpx.AsyncClient, runtime: Runtime, ws: Workspace
) -> None:
    raw = ObjectWrite(
        "landing_page",
        "raw",
        {"slug": "raw", "title": "Raw", "html": "<p>ok</p><script>bad()</script>"},
        "published",
    )
    await runtime.actors.ask(ApplyObjects((raw,), by=ws.system))
    resp = await client.get(f"/pages/{await workspace_slug(runtime, ws)}/raw")
    assert resp.status_code == 200
    assert "<p>ok</p>" in resp.text and "<script" not in resp.text
