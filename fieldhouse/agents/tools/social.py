"""Social tools: draft a post, schedule it or post it now (both external).

Posts are objects of kind ``social_post``, status draft -> scheduled -> posted (or draft ->
posted). No network is called: "posted" records the post as published by the workspace; the
scheduler posts scheduled ones at their ``due_at``.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from fieldhouse.actors.object_ops import ObjectWrite
from fieldhouse.agents.contract import ToolContext, ToolOutcome
from fieldhouse.agents.tools.base import (
    Args,
    Moment,
    Tool,
    apply,
    make_tool,
    object_json,
    ok,
    requested,
    short,
    stored_preview,
)
from fieldhouse.agents.writes import Consume
from fieldhouse.model.activity import ActivityKind
from fieldhouse.model.agents import POST, PostStatus
from fieldhouse.model.clock import new_id, now_iso

Network = Literal["linkedin", "x", "facebook", "instagram", "mastodon", "bluesky"]


class DraftArgs(Args):
    network: Network
    text: str = Field(min_length=1, max_length=3000)


class ScheduleArgs(Args):
    postId: str = Field(min_length=1, max_length=64)
    publishAt: Moment = Field(description="ISO 8601 date-time; without a zone it is UTC")


class PostArgs(Args):
    postId: str = Field(min_length=1, max_length=64)


async def draft(args: DraftArgs, ctx: ToolContext, consume: Consume | None) -> ToolOutcome:
    summary = f"Drafted a {args.network} post {short(args.text)!r}."
    write = ObjectWrite(
        POST,
        new_id(),
        {"network": args.network, "text": args.text, **requested(ctx)},
        PostStatus.DRAFT,
        activity=ActivityKind.SOCIAL_DRAFTED,
        activity_data={"network": args.network},
    )
    (row,) = await apply(ctx, "social.draft", summary, (write,), consume)
    return ok(summary, post=object_json(row))


async def schedule(args: ScheduleArgs, ctx: ToolContext, consume: Consume | None) -> ToolOutcome:
    summary = f"Scheduled the social post {args.postId} for {args.publishAt}."
    write = ObjectWrite(
        POST,
        args.postId,
        {"publishAt": args.publishAt},
        PostStatus.SCHEDULED,
        mode="update",
        expect=(PostStatus.DRAFT,),
        due_at=args.publishAt,
        activity=ActivityKind.SOCIAL_SCHEDULED,
        activity_data={"publishAt": args.publishAt},
    )
    (row,) = await apply(ctx, "social.schedule", summary, (write,), consume)
    return ok(summary, post=object_json(row))


async def post(args: PostArgs, ctx: ToolContext, consume: Consume | None) -> ToolOutcome:
    summary = f"Posted the social post {args.postId}."
    write = ObjectWrite(
        POST,
        args.postId,
        {"postedAt": now_iso()},
        PostStatus.POSTED,
        mode="update",
        expect=(PostStatus.DRAFT, PostStatus.SCHEDULED),
        activity=ActivityKind.SOCIAL_POSTED,
    )
    (row,) = await apply(ctx, "social.post", summary, (write,), consume)
    return ok(summary, post=object_json(row))


TOOLS: tuple[Tool, ...] = (
    make_tool(
        "social.draft",
        "Draft a social media post (nothing is published).",
        DraftArgs,
        draft,
        lambda a: f"Drafting a {a.network} post",
    ),
    make_tool(
        "social.schedule",
        "Schedule a drafted social post for publishAt. Needs an approval.",
        ScheduleArgs,
        schedule,
        lambda a: f"Scheduling the social post {a.postId} for {a.publishAt}",
        external=True,
        preview=lambda a, ctx: stored_preview(
            ctx, POST, a.postId, ("network", "text"), publishAt=a.publishAt
        ),
    ),
    make_tool(
        "social.post",
        "Publish a drafted or scheduled social post now. Needs an approval.",
        PostArgs,
        post,
        lambda a: f"Posting the social post {a.postId}",
        external=True,
        preview=lambda a, ctx: stored_preview(ctx, POST, a.postId, ("network", "text")),
    ),
)
