"""The Quart-Trio application: the dispatch in front, Quart behind it, the route table."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from quart import Response, request
from quart_trio import QuartTrio
from werkzeug.exceptions import HTTPException

from fieldhouse.http.dispatch import Dispatch
from fieldhouse.http.endpoint import PATH_PARAM, Operation, Routes
from fieldhouse.http.exchange import UNMATCHED, Exchange, NextChunk, current, enter
from fieldhouse.http.json import json_response
from fieldhouse.http.openapi import build_openapi
from fieldhouse.http.pipeline import admit, error_response, finish
from fieldhouse.http.routes import ROUTES
from fieldhouse.http.routes.ops import routes as ops_routes
from fieldhouse.model.errors import ApiError
from fieldhouse.services import Services


def create_app(svc: Services) -> QuartTrio:
    """The web application over ``svc``: every route, the request pipeline, the envelope.

    The declared endpoints are served by :class:`~fieldhouse.http.dispatch.Dispatch`, which
    wraps Quart's ASGI entry; they are registered with Quart too, so what the dispatch leaves
    to Quart (HEAD, OPTIONS, event streams, 404/405) is routed and answered as before, by the
    same pipeline through Quart's hooks."""
    app = QuartTrio("fieldhouse")
    # the limit is kept by fieldhouse.http.body, which also drains refused bodies
    app.config["MAX_CONTENT_LENGTH"] = None
    app.config["JSON_SORT_KEYS"] = False
    document: dict[str, Any] = {}
    groups = [*ROUTES, _document_routes(document), ops_routes]
    document.update(build_openapi([spec for routes in groups for spec, _ in routes.entries]))
    operations = [Operation(spec, fn, svc) for routes in groups for spec, fn in routes.entries]
    #: Quart's rule text -> the route label (the served path in OpenAPI form)
    templates: dict[str, str] = {}
    for op in operations:
        _install(app, op, templates)

    async def before() -> Response | None:
        ex = Exchange(request.scope, _quart_body(aiter(request.body)), request.body_timeout)
        rule = request.url_rule
        if rule is not None:
            ex.route = templates.get(rule.rule, UNMATCHED)
        enter(ex)
        return await admit(svc, ex)

    async def after(response: Response) -> Response:
        return finish(svc, current(), response)

    async def on_error(error: Exception) -> Response:
        return await error_response(svc, current(), error)

    app.before_request(before)
    app.after_request(after)
    for kind in (ApiError, HTTPException, Exception):
        app.register_error_handler(kind, on_error)
    app.asgi_app = Dispatch(  # type: ignore[method-assign, assignment]
        svc,
        operations,
        app.asgi_app,
        body_timeout=app.config["BODY_TIMEOUT"],
        response_timeout=app.config["RESPONSE_TIMEOUT"],
    )
    return app


def _install(app: QuartTrio, op: Operation, templates: dict[str, str]) -> None:
    """Register ``op`` with Quart on each path it is served on."""

    async def view(**path_args: str) -> Response:
        return await op(current(), path_args)

    spec = op.spec
    for index, path in enumerate(spec.served_paths):
        rule = PATH_PARAM.sub(r"<\1>", path)
        templates[rule] = path
        app.add_url_rule(
            rule,
            spec.operation_id if index == 0 else f"{spec.operation_id}@{path}",
            view,
            methods=[spec.method],
            strict_slashes=False,
        )


def _quart_body(body: AsyncIterator[bytes]) -> NextChunk:
    """The body as Quart receives it (its request task reads the ASGI messages)."""

    async def next_chunk() -> bytes | None:
        return await anext(body, None)

    return next_chunk


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
