"""Published landing pages, served as sanitised HTML without authentication."""

from __future__ import annotations

from html import escape
from typing import Any

from fieldhouse.http.endpoint import Routes
from fieldhouse.http.response import Response
from fieldhouse.model.agents import PageStatus
from fieldhouse.model.errors import NotFound
from fieldhouse.services import Services

routes = Routes()

#: the page may show images and inline styles, and nothing may run
_CSP = "default-src 'none'; img-src https: data:; style-src 'unsafe-inline'; frame-ancestors 'none'"


@routes.endpoint(
    "GET",
    "/pages/{workspaceSlug}/{pageSlug}",
    summary="A published landing page (text/html)",
    scope=None,
    tag="pages",
    responses={200: None},
)
async def landing_page(svc: Services, workspaceSlug: str, pageSlug: str) -> Any:
    from fieldhouse.agents.tools.pages import PAGE, sanitise  # (loaded at the first page)

    store = svc.store
    accounts = [a for a in await store.list_accounts() if a.slug == workspaceSlug]
    row = None
    if accounts and len(pageSlug) <= 64:
        row = await store.get_object(accounts[0].account_id, PAGE, pageSlug)
    if row is None or row.status != PageStatus.PUBLISHED:
        raise NotFound(f"No published page {pageSlug!r} in workspace {workspaceSlug!r}")
    title = escape(str(row.data.get("title", "")))
    # sanitised when stored; cleaned again here so no stored HTML is ever served raw
    body = sanitise(str(row.data.get("html", "")))
    document = (
        '<!doctype html>\n<html><head><meta charset="utf-8">'
        f"<title>{title}</title></head>\n<body>\n{body}\n</body></html>\n"
    )
    return Response(
        document,
        status=200,
        content_type="text/html; charset=utf-8",
        headers={"Content-Security-Policy": _CSP, "X-Content-Type-Options": "nosniff"},
    )
