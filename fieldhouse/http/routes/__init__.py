"""One module of routes per resource."""

from __future__ import annotations

from fieldhouse.http.endpoint import Routes


def all_routes() -> list[Routes]:
    from fieldhouse.http.routes import (
        activity,
        agents,
        approvals,
        meta,
        pages,
        records,
        references,
        search,
        template_admin,
        templates,
    )

    return [
        meta.routes,
        records.routes,
        references.routes,
        activity.routes,
        templates.routes,
        template_admin.routes,
        search.routes,
        approvals.routes,
        pages.routes,
        agents.routes,
    ]
