"""What every request leaves behind: its request id, one access-log line, its metrics, and the
CORS headers a browser needs. Kept to a few dictionary look-ups per request."""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence

from fieldhouse.http.exchange import Exchange
from fieldhouse.http.json import json_response
from fieldhouse.http.response import Response
from fieldhouse.logs import direct_writer, write_line
from fieldhouse.metrics import Metrics
from fieldhouse.model.errors import Forbidden

access_log = logging.getLogger("fieldhouse.access")

#: response headers a browser script may read
EXPOSED = (
    "X-Request-Id, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, "
    "Location"
)
ALLOWED_METHODS = "GET, POST, PUT, PATCH, DELETE, OPTIONS"
PREFLIGHT_MAX_AGE = "600"


def preflight(ex: Exchange, origins: Sequence[str]) -> Response | None:
    """The answer to a CORS preflight (None: the request is not one)."""
    if ex.method != "OPTIONS":
        return None
    origin = ex.headers.get("origin")
    wanted = ex.headers.get("access-control-request-method")
    if not origin or not wanted:
        return None
    allow = _allowed(origin, origins)
    if allow is None:
        err = Forbidden(
            f"Origin {origin} may not call this API; allowed origins are set with "
            "FIELDHOUSE_CORS_ORIGINS"
        )
        ex.error_code = err.code
        return json_response(err.to_json(), err.status, {"Vary": "Origin"})
    response = Response(b"", status=204)
    response.headers["Access-Control-Allow-Origin"] = allow
    response.headers["Access-Control-Allow-Methods"] = ALLOWED_METHODS
    asked = ex.headers.get("access-control-request-headers")
    if asked:
        response.headers["Access-Control-Allow-Headers"] = asked
    response.headers["Access-Control-Max-Age"] = PREFLIGHT_MAX_AGE
    response.headers["Vary"] = "Origin"
    return response


def finish_request(
    ex: Exchange, metrics: Metrics, origins: Sequence[str], response: Response
) -> None:
    """Add the request id and CORS headers, count and time the request, log its line."""
    headers = response.headers
    headers["X-Request-Id"] = ex.request_id
    if origins:
        _add_cors_headers(ex, origins, response)
    seconds = time.perf_counter() - ex.started
    route = ex.route
    status = response.status_code
    method = ex.method
    metrics.observe_request(method, route, status, seconds)
    level = logging.ERROR if status >= 500 else logging.INFO
    if not access_log.isEnabledFor(level):
        return
    principal = ex.principal
    path = ex.path
    fields: dict[str, object] = {
        "method": method,
        "route": route,
        "path": path,
        "status": status,
        "durationMs": round(seconds * 1000, 3),
        "requestId": ex.request_id,
        "workspaceId": None if principal is None else principal.account_id,
        "keyId": None if principal is None else principal.api_key_id,
    }
    if ex.error_code is not None:
        fields["error"] = ex.error_code
    direct = direct_writer(access_log, level)
    if direct is not None:
        handler, formatter = direct
        message = f"{method} {path} {status}"
        line = formatter.line(
            time.time(), logging.getLevelName(level), access_log.name, message, fields
        )
        write_line(handler, line)
        return
    # makeRecord + handle: the same record as .log() without its caller look-up (a stack walk)
    record = access_log.makeRecord(
        access_log.name,
        level,
        __file__,
        0,
        "%s %s %d",
        (method, path, status),
        None,
        extra={"fields": fields},
    )
    access_log.handle(record)


def _allowed(origin: str, origins: Sequence[str]) -> str | None:
    """The Access-Control-Allow-Origin value for ``origin``, or None when it is refused."""
    if "*" in origins:
        return "*"
    return origin if origin.rstrip("/") in origins else None


def _add_cors_headers(ex: Exchange, origins: Sequence[str], response: Response) -> None:
    """On a cross-origin request from an allowed origin, let the browser read the answer."""
    if "Access-Control-Allow-Origin" in response.headers:
        return
    origin = ex.headers.get("origin")
    if not origin:
        return
    allow = _allowed(origin, origins)
    if not _varies_by_origin(response):  # a refused preflight says so already
        response.headers.add("Vary", "Origin")
    if allow is not None:
        response.headers["Access-Control-Allow-Origin"] = allow
        response.headers["Access-Control-Expose-Headers"] = EXPOSED


def _varies_by_origin(response: Response) -> bool:
    return any(
        part.strip().lower() == "origin"
        for line in response.headers.getlist("Vary")
        for part in line.split(",")
    )
