"""The application: every route's operation, served by one ASGI dispatch."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

from fieldhouse.http.dispatch import Dispatch
from fieldhouse.http.endpoint import Operation, Routes
from fieldhouse.http.json import json_response
from fieldhouse.http.routes import ROUTES
from fieldhouse.http.routes.console import routes as console_routes
from fieldhouse.http.routes.ops import routes as ops_routes
from fieldhouse.services import Services


def create_app(svc: Services, *extra: Routes) -> Dispatch:
    """The web application over ``svc``: every route (and ``extra`` ones, undocumented: tests
    add theirs), the request pipeline, the envelope (:class:`~fieldhouse.http.dispatch.Dispatch`
    answers every request, 404 and 405 included)."""
    groups: list[Routes] = [*ROUTES]
    # the document is built from this list when first asked for, once it holds every group
    groups.extend([_document_routes(groups), ops_routes, console_routes])
    operations = [
        Operation(spec, fn, svc) for routes in (*groups, *extra) for spec, fn in routes.entries
    ]
    return Dispatch(svc, operations)


def _document_routes(groups: Sequence[Routes]) -> Routes:
    """/openapi.json, served from the document built over every route of ``groups`` (these
    two included) when it is first asked for (0.1 s): a worker that is never asked does not
    hold it (1.4 MB)."""
    routes = Routes()

    @cache
    def document() -> dict[str, Any]:
        from fieldhouse.http.openapi import build_openapi  # (with the first document)

        return build_openapi([spec for group in groups for spec, _ in group.entries])

    @routes.endpoint(
        "GET",
        "/v1/openapi.json",
        summary="The OpenAPI 3.1 document",
        scope=None,
        tag="meta",
        responses={200: None},
    )
    async def get_openapi(svc: Services) -> Any:
        return json_response(document())

    @routes.endpoint(
        "GET",
        "/openapi.json",
        summary="The OpenAPI 3.1 document (host root alias)",
        scope=None,
        tag="meta",
        responses={200: None},
        hidden=True,
    )
    async def get_openapi_root(svc: Services) -> Any:
        return json_response(document())

    return routes
