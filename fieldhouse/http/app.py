"""The Quart-Trio application: request pipeline, error envelope, and route installation."""

from __future__ import annotations

import logging
from typing import Any

from quart import Response, g, request
from quart_trio import QuartTrio
from werkzeug.exceptions import HTTPException

from fieldhouse.http.body import discard_body, too_large
from fieldhouse.http.endpoint import Routes
from fieldhouse.http.json import json_response
from fieldhouse.http.observe import finish_request, start_request
from fieldhouse.http.openapi import build_openapi
from fieldhouse.http.ratelimit import RateState
from fieldhouse.http.routes import ROUTES
from fieldhouse.http.routes.ops import routes as ops_routes
from fieldhouse.model.errors import (
    ApiError,
    InternalError,
    MethodNotAllowed,
    NotFound,
    PayloadTooLarge,
    RateLimited,
)
from fieldhouse.model.principal import Principal
from fieldhouse.services import Services

log = logging.getLogger("fieldhouse.http")

_STATUS_ERRORS: dict[int, type[ApiError]] = {
    404: NotFound,
    405: MethodNotAllowed,
    413: PayloadTooLarge,
}
_API_PREFIXES = ("/v1/", "/api/")


def create_app(svc: Services) -> QuartTrio:
    """The web application over ``svc``: every route, the request pipeline, the envelope."""
    app = QuartTrio("fieldhouse")
    # the limit is kept by fieldhouse.http.body, which also drains refused bodies
    app.config["MAX_CONTENT_LENGTH"] = None
    app.config["JSON_SORT_KEYS"] = False
    document: dict[str, Any] = {}
    groups = [*ROUTES, _document_routes(document), ops_routes]
    document.update(build_openapi([spec for routes in groups for spec, _ in routes.entries]))
    for routes in groups:
        routes.install(app, svc)

    async def before() -> Response | None:
        return await _before(svc)

    async def after(response: Response) -> Response:
        return await _after(svc, response)

    async def http_error(error: HTTPException) -> Response:
        return await _http_error(svc, error)

    app.before_request(before)
    app.after_request(after)

    async def api_error(error: ApiError) -> Response:
        return await _api_error(svc, error)

    app.register_error_handler(ApiError, api_error)
    app.register_error_handler(HTTPException, http_error)

    async def unexpected(error: Exception) -> Response:
        return await _unexpected(svc, error)

    app.register_error_handler(Exception, unexpected)
    return app


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


async def _before(svc: Services) -> Response | None:
    answered = start_request(svc.settings.cors_origins)
    if answered is not None:
        return answered
    path = request.path
    if not (path.startswith(_API_PREFIXES) or path in ("/v1", "/api")):
        return None
    header = request.headers.get("Authorization")
    if header and not path.endswith("/openapi.json"):
        try:
            principal, schema_version = await svc.auth.authenticate(header)
        except ApiError as exc:
            g.auth_error = exc
        else:
            g.principal = principal
            g.schema_version = schema_version
    known: Principal | None = getattr(g, "principal", None)
    bucket = known.rate_key if known is not None else f"ip:{request.remote_addr}"
    state = await svc.limiter.check(bucket)
    g.rate = state
    if not state.allowed:
        raise RateLimited(
            f"Rate limit of {state.limit} requests per minute exceeded; retry after "
            f"{state.retry_after} s",
            headers={"Retry-After": str(state.retry_after)},
        )
    # after the count, so a 413 carries the rate-limit headers like every other answer
    length = request.content_length
    if length is not None and length > svc.settings.max_body_bytes:
        raise too_large(svc.settings.max_body_bytes)
    return None


async def _after(svc: Services, response: Response) -> Response:
    rate: RateState | None = getattr(g, "rate", None)
    if rate is not None:
        for name, value in rate.headers().items():
            response.headers[name] = value
    finish_request(svc.metrics, svc.settings.cors_origins, response)
    return response


async def _api_error(svc: Services, error: ApiError) -> Response:
    g.error_code = error.code
    headers = dict(error.headers)
    # a request refused before its body was read, or part way through it (413): read the
    # rest and drop it so the keep-alive connection stays in step (a no-op once it has been
    # read); one too long to be worth reading ends the connection, and says so
    if not await discard_body(svc.settings.max_body_bytes):
        headers["Connection"] = "close"
    return json_response(error.to_json(), error.status, headers)


async def _http_error(svc: Services, error: HTTPException) -> Response:
    status = error.code or 500
    kind = _STATUS_ERRORS.get(status)
    if status == 404:
        message = f"No route for {request.method} {request.path}"
    elif status == 405:
        allowed = sorted(getattr(error, "valid_methods", None) or [])
        message = f"Method {request.method} is not allowed on {request.path}"
        if allowed:
            message += f"; allowed: {', '.join(allowed)}"
        return await _api_error(
            svc, MethodNotAllowed(message, headers={"Allow": ", ".join(allowed)})
        )
    elif status == 413:
        message = f"Request body exceeds the limit of {svc.settings.max_body_bytes} bytes"
    else:
        message = error.description or error.name
    if kind is None:
        err = ApiError(message, code=_default_code(status))
        g.error_code = err.code
        body = err.to_json()
        body["error"]["statusCode"] = status
        headers = {} if await discard_body(svc.settings.max_body_bytes) else {"Connection": "close"}
        return json_response(body, status, headers)
    return await _api_error(svc, kind(message))


async def _unexpected(svc: Services, error: Exception) -> Response:
    request_id = getattr(g, "request_id", "-")
    log.error(
        "request %s failed: %s %s",
        request_id,
        request.method,
        request.path,
        exc_info=error,
        extra={"fields": {"requestId": request_id, "path": request.path}},
    )
    err = InternalError(
        "Internal error; quote the request id when reporting it", data={"requestId": request_id}
    )
    return await _api_error(svc, err)


def _default_code(status: int) -> str:
    return {
        400: "bad_request",
        401: "unauthorized",
        403: "forbidden",
        404: "not_found",
        409: "conflict",
        422: "unprocessable_entity",
        429: "rate_limit_exceeded",
        500: "internal_error",
        502: "bad_gateway",
        503: "service_unavailable",
        504: "gateway_timeout",
    }.get(status, "bad_request" if status < 500 else "internal_error")
