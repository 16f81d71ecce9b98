"""What every request leaves behind: its request id, one access-log line, its metrics, and the
CORS headers a browser needs. Kept to a few dictionary look-ups per request."""

from __future__ import annotations

import logging
import os
import re
import time
from collections.abc import Sequence
from typing import Any

from quart import Response, g, request

from fieldhouse.http.json import json_response
from fieldhouse.metrics import Metrics
from fieldhouse.model.errors import Forbidden
from fieldhouse.model.principal import Principal

access_log = logging.getLogger("fieldhouse.access")

#: a client's X-Request-Id is kept when it looks like an id (else a fresh one is made)
_CLIENT_ID = re.compile(r"[A-Za-z0-9._:\-]{1,128}")
_RULE_PARAM = re.compile(r"<(?:\w+:)?(\w+)>")
UNMATCHED = "<unmatched>"
#: response headers a browser script may read
EXPOSED = (
    "X-Request-Id, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, "
    "Location"
)
ALLOWED_METHODS = "GET, POST, PUT, PATCH, DELETE, OPTIONS"
PREFLIGHT_MAX_AGE = "600"

_templates: dict[str, str] = {}


# Quart's ``request`` and ``g`` are context-local proxies, each attribute access a look-up of
# the current context: these functions resolve them once and work on the objects themselves.


def start_request(origins: Sequence[str]) -> Response | None:
    """Stamp the request with its start time and id (the client's X-Request-Id when it looks
    like one); answer it here when it is a CORS preflight."""
    req: Any = request._get_current_object()  # type: ignore[attr-defined]
    state: Any = g._get_current_object()  # type: ignore[attr-defined]
    state.started = time.perf_counter()
    sent = req.headers.get("X-Request-Id")
    state.request_id = sent if sent and _CLIENT_ID.fullmatch(sent) else os.urandom(16).hex()
    if req.method == "OPTIONS":
        return _preflight(req, state, origins)
    return None


def route_template(req: Any) -> str:
    """The matched route in OpenAPI form (``/v1/modules/{moduleSlug}``), for bounded labels."""
    rule = req.url_rule
    if rule is None:
        return UNMATCHED
    text = rule.rule
    template = _templates.get(text)
    if template is None:
        template = _templates[text] = _RULE_PARAM.sub(r"{\1}", text)
    return template


def finish_request(metrics: Metrics, origins: Sequence[str], response: Response) -> None:
    """Add the request id and CORS headers, count and time the request, log its line."""
    req: Any = request._get_current_object()  # type: ignore[attr-defined]
    state = vars(g._get_current_object())  # type: ignore[attr-defined]
    request_id = state.get("request_id")
    if request_id:
        response.headers["X-Request-Id"] = request_id
    if origins:
        _add_cors_headers(req, origins, response)
    started: float | None = state.get("started")
    seconds = 0.0 if started is None else time.perf_counter() - started
    route = route_template(req)
    status = response.status_code
    method = req.method
    metrics.observe_request(method, route, status, seconds)
    level = logging.ERROR if status >= 500 else logging.INFO
    if not access_log.isEnabledFor(level):
        return
    principal: Principal | None = state.get("principal")
    path = req.path
    fields: dict[str, object] = {
        "method": method,
        "route": route,
        "path": path,
        "status": status,
        "durationMs": round(seconds * 1000, 3),
        "requestId": request_id,
        "workspaceId": None if principal is None else principal.account_id,
        "keyId": None if principal is None else principal.api_key_id,
    }
    code = state.get("error_code")
    if code is not None:
        fields["error"] = code
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


def _preflight(req: Any, state: Any, origins: Sequence[str]) -> Response | None:
    """The answer to a CORS preflight (None: the OPTIONS request is not one)."""
    origin = req.headers.get("Origin")
    wanted = req.headers.get("Access-Control-Request-Method")
    if not origin or not wanted:
        return None
    allow = _allowed(origin, origins)
    if allow is None:
        err = Forbidden(
            f"Origin {origin} may not call this API; allowed origins are set with "
            "FIELDHOUSE_CORS_ORIGINS"
        )
        state.error_code = err.code
        return json_response(err.to_json(), err.status, {"Vary": "Origin"})
    response = Response(b"", status=204)
    response.headers["Access-Control-Allow-Origin"] = allow
    response.headers["Access-Control-Allow-Methods"] = ALLOWED_METHODS
    asked = req.headers.get("Access-Control-Request-Headers")
    if asked:
        response.headers["Access-Control-Allow-Headers"] = asked
    response.headers["Access-Control-Max-Age"] = PREFLIGHT_MAX_AGE
    response.headers["Vary"] = "Origin"
    return response


def _add_cors_headers(req: Any, origins: Sequence[str], response: Response) -> None:
    """On a cross-origin request from an allowed origin, let the browser read the answer."""
    if "Access-Control-Allow-Origin" in response.headers:
        return
    origin = req.headers.get("Origin")
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
