"""The application: every route's operation, served by one ASGI dispatch."""

from __future__ import annotations

from typing import Any

from fieldhouse.http.dispatch import Dispatch
from fieldhouse.http.endpoint import Operation, Routes
from fieldhouse.http.json import json_response
from fieldhouse.http.openapi import build_openapi
from fieldhouse.http.routes import ROUTES
from fieldhouse.http.routes.console import routes as console_routes
from fieldhouse.http.routes.ops import routes as ops_routes
from fieldhouse.services import Services


def create_app(svc: Services, *extra: Routes) -> Dispatch:
    """The web application over ``svc``: every route (and ``extra`` ones, undocumented: tests
    add theirs), the request pipeline, the envelope (:class:`~fieldhouse.http.dispatch.Dispatch`
    answers every request, 404 and 405 included)."""
    document: dict[str, Any] = {}
    groups = [*ROUTES, _document_routes(document), ops_routes, console_routes]
    document.update(build_openapi([spec for routes in groups for spec, _ in routes.entries]))
    operations = [
        Operation(spec, fn, svc) for routes in (*groups, *extra) for spec, fn in routes.entries
    ]
    return Dispatch(svc, operations)


def _document_routes(document: dict[str, Any]) -> Routes:
    """/openapi.json, served from the document built over every route (these two included)."""
    routes = Routes()

    @routes.endpoint(
        "GET",
        "/v1/openapi.json",
        summary="The OpenAPI 3.1 document",
        scope=None,
        tag="meta",
        responses={200: None},
    )
    async def get_openapi(svc: Services) -> Any:
        return json_response(document)

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
        return json_response(document)

    return routes
