"""Reading request bodies under the size limit, and discarding refused ones.

A body left unread on the connection would be taken for the next request, or close that
keep-alive connection without saying so. Here the error path reads a refused body (too
large, or never read because the request failed first) to its end and drops it, so the
connection stays in step; one longer than :func:`drain_limit` is not read, and the answer
says ``Connection: close``.
"""

from __future__ import annotations

import math

import trio

from fieldhouse.http.exchange import Exchange
from fieldhouse.http.json import body_nul_issues
from fieldhouse.model.errors import PayloadTooLarge, RequestTimeout, ValidationFailed

#: how many times the body limit a refused body may be before it is not worth reading
DRAIN_FACTOR = 16


def drain_limit(max_body_bytes: int) -> int:
    return DRAIN_FACTOR * max_body_bytes


def has_body(ex: Exchange) -> bool:
    chunked = "chunked" in ex.headers.get("transfer-encoding", "").lower()
    return chunked or bool(ex.content_length)


def _within(seconds: float | None) -> trio.CancelScope:
    """``trio.move_on_after(seconds)`` (None: no limit) as a plain scope, without the generator
    context manager that wraps it (two per request on the hot path)."""
    return trio.CancelScope(deadline=trio.current_time() + seconds if seconds else math.inf)


async def read_body(ex: Exchange, max_body_bytes: int) -> bytes:
    """The whole body; PayloadTooLarge as soon as it passes ``max_body_bytes``, and
    ValidationFailed when its JSON holds U+0000 (see :mod:`fieldhouse.http.json`)."""
    data = bytearray()
    with _within(ex.body_timeout):
        while (chunk := await ex.next_chunk()) is not None:
            data.extend(chunk)
            if len(data) > max_body_bytes:
                raise too_large(ex, max_body_bytes)
        ex.body_read = True
        body = bytes(data)
        issues = body_nul_issues(body)
        if issues:
            raise ValidationFailed(issues)
        return body
    raise RequestTimeout(f"The request body did not arrive within {ex.body_timeout:g} s")


async def discard_body(ex: Exchange, max_body_bytes: int) -> bool:
    """Read and drop what is left of the body (nothing once it has been read); False when it
    is too long to be worth reading, and the response must close the connection."""
    if ex.body_read or not has_body(ex):
        return True
    cap = drain_limit(max_body_bytes)
    length = ex.content_length
    if length is not None and length > cap:
        return False
    seen = 0
    with _within(ex.body_timeout):
        while (chunk := await ex.next_chunk()) is not None:
            seen += len(chunk)
            if seen > cap:
                return False
        return True
    return False


def too_large(ex: Exchange, max_body_bytes: int) -> PayloadTooLarge:
    length = ex.content_length
    if length is None:
        return PayloadTooLarge(f"Request body exceeds the limit of {max_body_bytes} bytes")
    return PayloadTooLarge(f"Request body is {length} bytes; the limit is {max_body_bytes}")
