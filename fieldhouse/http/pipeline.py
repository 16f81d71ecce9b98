"""The steps every request goes through (:mod:`fieldhouse.http.dispatch`): admit (CORS
preflight, credential, rate limit, body size), finish (rate-limit headers, request id, CORS,
metrics, access log), and the error envelope."""

from __future__ import annotations

import logging

from fieldhouse.http.body import discard_body, too_large
from fieldhouse.http.exchange import Exchange
from fieldhouse.http.json import json_response, request_nul_issues
from fieldhouse.http.observe import finish_request, preflight
from fieldhouse.http.response import Response
from fieldhouse.model.errors import ApiError, InternalError, RateLimited, ValidationFailed
from fieldhouse.services import Services

log = logging.getLogger("fieldhouse.http")

_API_PREFIXES = ("/v1/", "/api/")


async def admit(svc: Services, ex: Exchange) -> Response | None:
    """Answer a CORS preflight; note the credential's principal (or why it has none); count
    the request against its rate limit; refuse a body declared too large. Raises ApiError."""
    answered = preflight(ex, svc.settings.cors_origins)
    if answered is not None:
        return answered
    path = ex.path
    if not (path.startswith(_API_PREFIXES) or path in ("/v1", "/api")):
        return None
    header = ex.headers.get("authorization")
    if header and not path.endswith("/openapi.json"):
        try:
            ex.principal, ex.schema_version = await svc.auth.authenticate(header)
        except ApiError as exc:
            ex.auth_error = exc
    known = ex.principal
    bucket = known.rate_key if known is not None else f"ip:{ex.remote_addr}"
    state = ex.rate = await svc.limiter.check(bucket)
    if not state.allowed:
        raise RateLimited(
            f"Rate limit of {state.limit} requests per minute exceeded; retry after "
            f"{state.retry_after} s",
            headers={"Retry-After": str(state.retry_after)},
        )
    # after the count, so a 413 carries the rate-limit headers like every other answer
    length = ex.content_length
    if length is not None and length > svc.settings.max_body_bytes:
        raise too_large(ex, svc.settings.max_body_bytes)
    nul = request_nul_issues(path, ex.route, ex.query_string, ex.args.items(multi=True))
    if nul:
        raise ValidationFailed(nul)
    return None


def finish(svc: Services, ex: Exchange, response: Response) -> Response:
    """Stamp the answer with what the request left behind, and record it."""
    rate = ex.rate
    if rate is not None:
        for name, value in rate.headers().items():
            response.headers[name] = value
    finish_request(ex, svc.metrics, svc.settings.cors_origins, response)
    return response


async def error_response(svc: Services, ex: Exchange, error: Exception) -> Response:
    """The envelope for any error a request ended with."""
    if isinstance(error, ApiError):
        return await _api_error(svc, ex, error)
    return await _unexpected(svc, ex, error)


async def _api_error(svc: Services, ex: Exchange, error: ApiError) -> Response:
    ex.error_code = error.code
    headers = dict(error.headers)
    # a request refused before its body was read, or part way through it (413): read the
    # rest and drop it so the keep-alive connection stays in step (a no-op once it has been
    # read); one too long to be worth reading ends the connection, and says so
    if not await discard_body(ex, svc.settings.max_body_bytes):
        headers["Connection"] = "close"
    return json_response(error.to_json(), error.status, headers)


async def _unexpected(svc: Services, ex: Exchange, error: Exception) -> Response:
    request_id = ex.request_id
    log.error(
        "request %s failed: %s %s",
        request_id,
        ex.method,
        ex.path,
        exc_info=error,
        extra={"fields": {"requestId": request_id, "path": ex.path}},
    )
    err = InternalError(
        "Internal error; quote the request id when reporting it", data={"requestId": request_id}
    )
    return await _api_error(svc, ex, err)
