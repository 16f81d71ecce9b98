"""The page tools: a page created with its HTML sanitised, then published once approved."""

from __future__ import annotations

from fieldhouse.runtime import Runtime
from tests.agents.toolkit import activity_types, call, context, objects
from tests.agents.tools.support import allow_all, ok
from tests.conftest import Workspace


async def test_pages_create_sanitises_and_publish(runtime: Runtime, ws: Workspace) -> None:
    ctx = await context(runtime, ws)
    html = '<h1 onclick="evil()">Hi</h1><script>alert(1)</script><a href="javascript:x">l</a>'
    await ok(ctx, "pages.create", slug="launch", title="Launch", html=html)
    (page,) = await objects(runtime, ws, "landing_page")
    assert page.status == "draft"
    assert "<script" not in page.data["html"] and "onclick" not in page.data["html"]
    assert "javascript:" not in page.data["html"] and "<h1>Hi</h1>" in page.data["html"]
    dup = await call(ctx, "pages.create", slug="launch", title="Again", html="<p>x</p>")
    assert dup.status == "error" and "already exists" in dup.summary
    bad_slug = await call(ctx, "pages.create", slug="../etc", title="x", html="<p>x</p>")
    assert bad_slug.status == "error"
    await allow_all(runtime, ws)
    done = await ok(ctx, "pages.publish", slug="launch")
    assert done["page"]["status"] == "published"  # type: ignore[index]
    assert (await call(ctx, "pages.publish", slug="nope")).status == "error"
    assert {"page_created", "page_published"} <= set(await activity_types(runtime, ws))
