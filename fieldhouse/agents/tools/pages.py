"""Landing-page tools: create a draft (HTML sanitised with nh3), publish it (external).

Pages are objects of kind ``landing_page`` whose id is their slug, status draft -> published;
published ones are served at ``/pages/{workspaceSlug}/{pageSlug}``.
"""

from __future__ import annotations

import nh3
from pydantic import Field

from fieldhouse.actors.object_ops import ObjectWrite
from fieldhouse.agents.contract import ToolContext, ToolOutcome
from fieldhouse.agents.tools.base import (
    Args,
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
from fieldhouse.model.agents import PageStatus
from fieldhouse.model.clock import now_iso

PAGE = "landing_page"
SLUG_PATTERN = r"^[a-z0-9]+(-[a-z0-9]+)*$"


def sanitise(html: str) -> str:
    """Only safe markup survives: no scripts, event handlers or javascript: links."""
    return nh3.clean(html)


class CreateArgs(Args):
    slug: str = Field(min_length=1, max_length=64, pattern=SLUG_PATTERN)
    title: str = Field(min_length=1, max_length=200)
    html: str = Field(min_length=1, max_length=200_000, description="the page body's HTML")


class PublishArgs(Args):
    slug: str = Field(min_length=1, max_length=64, pattern=SLUG_PATTERN)


async def create(args: CreateArgs, ctx: ToolContext, consume: Consume | None) -> ToolOutcome:
    summary = f"Created the landing page {args.slug!r} ({short(args.title)}) as a draft."
    write = ObjectWrite(
        PAGE,
        args.slug,
        {"slug": args.slug, "title": args.title, "html": sanitise(args.html), **requested(ctx)},
        PageStatus.DRAFT,
        activity=ActivityKind.PAGE_CREATED,
        activity_data={"slug": args.slug, "title": args.title},
    )
    (row,) = await apply(ctx, "pages.create", summary, (write,), consume)
    return ok(summary, page=object_json(row))


async def publish(args: PublishArgs, ctx: ToolContext, consume: Consume | None) -> ToolOutcome:
    account = await ctx.store.get_account(ctx.principal.account_id)
    path = f"/pages/{account.slug if account else '-'}/{args.slug}"
    summary = f"Published the landing page {args.slug!r} at {path}."
    write = ObjectWrite(
        PAGE,
        args.slug,
        {"publishedAt": now_iso(), "publishedBy": ctx.principal.user_id, "path": path},
        PageStatus.PUBLISHED,
        mode="update",
        expect=(PageStatus.DRAFT,),
        activity=ActivityKind.PAGE_PUBLISHED,
        activity_data={"slug": args.slug, "path": path},
    )
    (row,) = await apply(ctx, "pages.publish", summary, (write,), consume)
    return ok(summary, page=object_json(row))


TOOLS: tuple[Tool, ...] = (
    make_tool(
        "pages.create",
        "Create a landing page draft (its HTML is sanitised; scripts are removed).",
        CreateArgs,
        create,
        lambda a: f"Creating the landing page {a.slug!r}",
    ),
    make_tool(
        "pages.publish",
        "Publish a landing page draft on the public web. Needs an approval.",
        PublishArgs,
        publish,
        lambda a: f"Publishing the landing page {a.slug!r}",
        external=True,
        preview=lambda a, ctx: stored_preview(ctx, PAGE, a.slug, ("slug", "title", "html")),
    ),
)
