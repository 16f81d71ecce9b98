"""The Quart-Trio application: request pipeline, error envelope, and route installation."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, cast
from uuid import uuid4

from quart import Response, current_app, g, request
from quart_trio import QuartTrio
from werkzeug.exceptions import HTTPException

from fieldhouse.actors.system import ActorSystem
from fieldhouse.config import Settings
from fieldhouse.http.auth import Authenticator
from fieldhouse.http.json import json_response
from fieldhouse.http.openapi import build_openapi
from fieldhouse.http.ratelimit import Limiter, RateState, make_limiter
from fieldhouse.model.errors import (
    ApiError,
    InternalError,
    MethodNotAllowed,
    NotFound,
    PayloadTooLarge,
    RateLimited,
)
from fieldhouse.model.principal import Principal
from fieldhouse.search.service import SearchService
from fieldhouse.storage.base import Store

log = logging.getLogger("fieldhouse.http")

_STATUS_ERRORS: dict[int, type[ApiError]] = {
    404: NotFound,
    405: MethodNotAllowed,
    413: PayloadTooLarge,
}
_API_PREFIXES = ("/v1/", "/api/")


@dataclass
class Services:
    settings: Settings
    store: Store
    actors: ActorSystem
    auth: Authenticator
    limiter: Limiter
    openapi: dict[str, Any]
    #: None when search is switched off (the endpoints then use their fallbacks)
    search: SearchService | None = None


def services() -> Services:
    return cast(Services, current_app.extensions["fieldhouse"])


def create_app(
    settings: Settings,
    store: Store,
    actors: ActorSystem,
    jwt_secret: str,
    *,
    search: SearchService | None = None,
) -> QuartTrio:
    from fieldhouse.http.routes import all_routes

    app = QuartTrio("fieldhouse")
    app.config["MAX_CONTENT_LENGTH"] = settings.max_body_bytes
    app.config["JSON_SORT_KEYS"] = False
    endpoints = []
    for routes in all_routes():
        endpoints.extend(routes.install(app))
    app.extensions["fieldhouse"] = Services(
        settings=settings,
        store=store,
        actors=actors,
        auth=Authenticator(store, jwt_secret),
        limiter=make_limiter(store, settings.rate_limit),
        openapi=build_openapi(endpoints),
        search=search,
    )
    app.before_request(_before)
    app.after_request(_after)
    app.register_error_handler(ApiError, _api_error)
    app.register_error_handler(HTTPException, _http_error)
    app.register_error_handler(Exception, _unexpected)
    return app


async def _before() -> None:
    g.request_id = uuid4().hex
    path = request.path
    if not (path.startswith(_API_PREFIXES) or path in ("/v1", "/api")):
        return
    svc = services()
    length = request.content_length
    if length is not None and length > svc.settings.max_body_bytes:
        raise PayloadTooLarge(
            f"Request body is {length} bytes; the limit is {svc.settings.max_body_bytes}"
        )
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


async def _after(response: Response) -> Response:
    rate: RateState | None = getattr(g, "rate", None)
    if rate is not None:
        for name, value in rate.headers().items():
            response.headers[name] = value
    request_id = getattr(g, "request_id", None)
    if request_id:
        response.headers["X-Request-Id"] = request_id
    return response


async def _api_error(error: ApiError) -> Response:
    if error.status != 413 and request.method not in ("GET", "HEAD"):
        # a request refused before its body was read (401, 403, 404, 429, 503, ...): drain the
        # body so the keep-alive connection stays in step (a no-op once it has been read)
        await request.get_data(cache=False)
    return json_response(error.to_json(), error.status, error.headers)


async def _http_error(error: HTTPException) -> Response:
    status = error.code or 500
    if status in (404, 405) and request.content_length:
        # drain the unread body so the keep-alive connection stays in step
        await request.get_data(cache=False)
    kind = _STATUS_ERRORS.get(status)
    if status == 404:
        message = f"No route for {request.method} {request.path}"
    elif status == 405:
        allowed = sorted(getattr(error, "valid_methods", None) or [])
        message = f"Method {request.method} is not allowed on {request.path}"
        if allowed:
            message += f"; allowed: {', '.join(allowed)}"
        err: ApiError = MethodNotAllowed(message, headers={"Allow": ", ".join(allowed)})
        return json_response(err.to_json(), err.status, err.headers)
    elif status == 413:
        message = f"Request body exceeds the limit of {services().settings.max_body_bytes} bytes"
    else:
        message = error.description or error.name
    if kind is None:
        err = ApiError(message, code=_default_code(status))
        body = err.to_json()
        body["error"]["statusCode"] = status
        return json_response(body, status)
    return await _api_error(kind(message))


async def _unexpected(error: Exception) -> Response:
    request_id = getattr(g, "request_id", "-")
    log.error("request %s failed: %s %s", request_id, request.method, request.path, exc_info=error)
    err = InternalError(
        "Internal error; quote the request id when reporting it", data={"requestId": request_id}
    )
    return await _api_error(err)


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
