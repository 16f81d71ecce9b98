"""One module of routes per resource; ``ROUTES`` lists their groups for the app factory."""

from __future__ import annotations

from fieldhouse.http.endpoint import Routes
from fieldhouse.http.routes import (
    activity,
    agent_runs,
    agents,
    aggregate,
    approvals,
    batch,
    events,
    key_admin,
    meta,
    module_admin,
    pages,
    records,
    references,
    search,
    template_admin,
    templates,
    webhooks,
)

ROUTES: tuple[Routes, ...] = (
    meta.routes,
    batch.routes,
    records.routes,
    aggregate.routes,
    references.routes,
    activity.routes,
    events.routes,
    templates.routes,
    template_admin.routes,
    module_admin.routes,
    key_admin.routes,
    search.routes,
    approvals.routes,
    pages.routes,
    agents.routes,
    webhooks.routes,
    agent_runs.routes,
)
