"""What a request head must be before the app sees it, and the refusals when it is not.

llhttp (:mod:`fieldhouse.http.wire.h1`) already refuses what cannot be framed one way only:
Content-Length with Transfer-Encoding, two Content-Lengths, obs-fold, bare LF or CR, a
chunk size that overflows. Here, once the head is whole (:func:`check_head`): an HTTP version
other than 1.0 and 1.1 is ``505``; an HTTP/1.1 request without exactly one ``Host`` is
``400``, as is a ``Transfer-Encoding`` other than ``chunked`` alone (another coding would
reach the app still coded) or any on HTTP/1.0 (RFC 9112 6.1: its framing is faulty). While it
comes: header fields over their limit are ``431``, a URL over :data:`URL_CAP` ``414``.

A URL over :data:`URL_LIMIT` (within the cap) is not refused here: the app gets the request
with its path cut there, its query dropped and :data:`URL_TOO_LONG` in its ``state``, and
answers ``414`` with the credential's rate-limit headers; the connection stays open.

Every refusal here is an :class:`~fieldhouse.model.errors.ApiError`: the connection answers it
in the envelope (:func:`refusal`) and closes.
"""

from __future__ import annotations

import orjson

from fieldhouse.model.errors import ApiError, BadRequest, UriTooLong, VersionNotSupported

#: the key, in a request's ASGI ``state``, of (its URL's length, the limit) when the URL was
#: longer than the limit: the app answers 414 (after the credential and the rate limit)
URL_TOO_LONG = "fieldhouse.url_too_long"
#: the longest URL (request target) handed to the app as it is
URL_LIMIT = 16 * 1024
#: the longest URL read at all: past it the request is refused (414) and the connection
#: closed
URL_CAP = 4 * URL_LIMIT
_VERSIONS = frozenset({"1.0", "1.1"})


class Refused(Exception):
    """The request cannot be taken: answer ``error`` and close."""

    def __init__(self, error: ApiError) -> None:
        self.error = error


def url_over_cap() -> Refused:
    return Refused(UriTooLong(f"Request URL is over {URL_CAP} bytes; the limit is {URL_LIMIT}"))


def check_head(version: str, headers: list[tuple[bytes, bytes]]) -> bool:
    """Refused unless the whole head keeps the rules above (``headers``: lower-case names);
    whether the client waits for ``100 Continue``."""
    if version not in _VERSIONS:
        raise Refused(VersionNotSupported(f"HTTP/{version} is not supported; send HTTP/1.1"))
    expects = False
    hosts = 0
    codings: list[bytes] = []
    for name, value in headers:
        if name == b"host":
            hosts += 1
        elif name == b"expect":
            expects = version == "1.1" and value.lower() == b"100-continue"
        elif name == b"transfer-encoding":
            codings.extend(c.strip().lower() for c in value.split(b","))
    if hosts != 1 and version == "1.1":
        raise Refused(BadRequest(f"An HTTP/1.1 request needs one Host header, not {hosts}"))
    if codings and (codings != [b"chunked"] or version != "1.1"):
        got = b", ".join(codings).decode("latin-1")
        raise Refused(
            BadRequest(
                f"Transfer-Encoding must be chunked alone, on HTTP/1.1 (got {got!r} on "
                f"HTTP/{version})"
            )
        )
    return expects


def refusal(error: ApiError) -> tuple[list[tuple[bytes, bytes]], bytes]:
    """The headers and body of the envelope answering ``error``."""
    body = orjson.dumps(error.to_json())
    headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(body))]
    return headers, body
