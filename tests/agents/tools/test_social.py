"""The social tools: a draft, scheduled or posted once approved."""

from __future__ import annotations

from fieldhouse.runtime import Runtime
from tests.agents.toolkit import call, context, objects
from tests.agents.tools.support import FUTURE, allow_all, ok
from tests.conftest import Workspace


async def test_social_draft_schedule_post(runtime: Runtime, ws: Workspace) -> None:
    ctx = await context(runtime, ws)
    first = await ok(ctx, "social.draft", network="linkedin", text="We are hiring")
    second = await ok(ctx, "social.draft", network="x", text="Launch day")
    assert (await call(ctx, "social.post", postId=first["post"]["id"])).status == (  # type: ignore[index]
        "pending_approval"
    )
    await allow_all(runtime, ws)
    await ok(ctx, "social.schedule", postId=first["post"]["id"], publishAt=FUTURE)  # type: ignore[index]
    await ok(ctx, "social.post", postId=second["post"]["id"])  # type: ignore[index]
    statuses = {
        r.data["network"]: (r.status, r.due_at) for r in await objects(runtime, ws, "social_post")
    }
    assert statuses["linkedin"] == ("scheduled", "2100-01-01T09:00:00.000000Z")
    assert statuses["x"][0] == "posted"
    bad = await call(ctx, "social.draft", network="myspace", text="x")
    assert bad.status == "error"
