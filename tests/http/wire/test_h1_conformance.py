"""HTTP/1.1 conformance and request smuggling against the real server on a loopback port, raw
bytes over a socket: a request framed two ways (Content-Length and Transfer-Encoding, two
lengths, obs-fold, bare LF or CR, chunk sizes that overflow) is refused 400 in the envelope
and nothing sent after it on the connection is read; Host and version rules; URLs and
headers too long; a head trickled slower than the header timeout (slowloris)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace

import pytest
import trio

from fieldhouse.config import Settings
from fieldhouse.http.wire.rules import URL_CAP, URL_LIMIT
from fieldhouse.runtime import Runtime
from tests.http.wire.raw import Conn, Served, request, serving

#: the server's header timeout in these tests (seconds)
HEADER_TIMEOUT = 0.5


@pytest.fixture
def backend() -> str:
    return "sqlite"


@pytest.fixture
def settings(settings: Settings) -> Settings:
    return replace(settings, header_timeout=HEADER_TIMEOUT)


@pytest.fixture
async def served(runtime: Runtime) -> AsyncIterator[Served]:
    async with serving(runtime) as server:
        yield server


def _post(auth: str, *framing: str) -> bytes:
    """A POST /v1/search head with ``framing`` header lines (as raw text, CRLF-joined)."""
    return request("/v1/search", auth, "Content-Type: application/json", *framing, method="POST")


#: (name, the request's bytes after its auth line is known, a phrase of the refusal's message)
SMUGGLING = [
    ("CL then TE", ["Content-Length: 5", "Transfer-Encoding: chunked"], b"0\r\n\r\n", "Transfer"),
    ("TE then CL", ["Transfer-Encoding: chunked", "Content-Length: 5"], b"0\r\n\r\n", "Content"),
    ("two lengths", ["Content-Length: 5", "Content-Length: 6"], b"0\r\n\r\n", "Duplicate"),
    ("the same length twice", ["Content-Length: 5", "Content-Length: 5"], b"0\r\n\r\n", "Dup"),
    ("a list of lengths", ["Content-Length: 5, 5"], b"0\r\n\r\n", "Content-Length"),
    ("a signed length", ["Content-Length: +5"], b"0\r\n\r\n", "Content-Length"),
    ("TE twice", ["Transfer-Encoding: chunked", "Transfer-Encoding: chunked"], b"0\r\n\r\n", "T"),
    ("TE not last", ["Transfer-Encoding: chunked, gzip"], b"0\r\n\r\n", "Transfer-Encoding"),
    ("TE gzip", ["Transfer-Encoding: gzip, chunked"], b"0\r\n\r\n", "chunked alone"),
    ("TE space colon", ["Transfer-Encoding : chunked"], b"0\r\n\r\n", "header"),
    ("TE obs-fold", ["Transfer-Encoding:", " chunked"], b"0\r\n\r\n", "header"),
    ("chunk size overflow", ["Transfer-Encoding: chunked"], b"1" + b"0" * 16 + b"\r\nx\r\n", "ov"),
    ("chunk size 0x", ["Transfer-Encoding: chunked"], b"0x5\r\nhello\r\n0\r\n\r\n", "chunk size"),
    ("chunk size -1", ["Transfer-Encoding: chunked"], b"-1\r\nx\r\n0\r\n\r\n", "chunk size"),
    ("chunk too long", ["Transfer-Encoding: chunked"], b"1\r\nxy\r\n0\r\n\r\n", "chunk data"),
    ("chunk bare LF", ["Transfer-Encoding: chunked"], b"1\nx\n0\n\n", "CR"),
]


async def _refused_and_nothing_after(conn: Conn, status: int, code: str) -> str:
    """The refusal in the envelope, then the connection closed with nothing more on it (the
    request pipelined after the refused one got no answer)."""
    message = await conn.refusal(status, code)
    assert await conn.closed_by_server()
    return message


@pytest.mark.parametrize(
    ("framing", "body", "phrase"), [c[1:] for c in SMUGGLING], ids=[c[0] for c in SMUGGLING]
)
async def test_a_request_framed_two_ways_is_refused_and_what_follows_is_not_read(
    served: Served, framing: list[str], body: bytes, phrase: str
) -> None:
    conn = await served.open()
    smuggled = request("/v1/me", served.auth)
    await conn.send(_post(served.auth, *framing) + body + smuggled)
    message = await _refused_and_nothing_after(conn, 400, "bad_request")
    assert phrase in message, message


@pytest.mark.parametrize(
    "head",
    [
        b"GET /v1/me HTTP/1.1\nHost: t\n\n",  # bare LF throughout
        b"GET /v1/me HTTP/1.1\r\nHost: t\nX-A: b\r\n\r\n",  # one header line ends in LF alone
        b"GET /v1/me HTTP/1.1\rHost: t\r\n\r\n",  # bare CR
        b"GET /v1/me HTTP/1.1\r\nHost: t\r\nX-A: one\r\n two\r\n\r\n",  # obs-fold
        b"GET /v1/me HTTP/1.1\r\nHost: t\r\nX-A: a\x00b\r\n\r\n",  # NUL in a value
        b"GET /v1/me HTTP/1.1\r\nHost: t\r\nX A: b\r\n\r\n",  # space in a name
        b"GET /v1/me HTTP/1.1\r\n Host: t\r\n\r\n",  # a line starting with space
        b"GET /v1/m\xc3\xa9 HTTP/1.1\r\nHost: t\r\n\r\n",  # a raw non-ASCII byte in the path
        b"GET /v1/me HTTP/1.2\r\nHost: t\r\n\r\n",  # no such version
    ],
    ids=[
        "bare-LF",
        "LF-header",
        "bare-CR",
        "obs-fold",
        "NUL",
        "name-space",
        "lead-space",
        "non-ascii",
        "1.2",
    ],
)
async def test_a_malformed_head_is_refused_and_what_follows_is_not_read(
    served: Served, head: bytes
) -> None:
    conn = await served.open()
    await conn.send(head + request("/v1/me", served.auth))
    message = await _refused_and_nothing_after(conn, 400, "bad_request")
    assert message.startswith("Malformed HTTP request: ")


@pytest.mark.parametrize("hosts", [[], ["Host: a", "Host: b"]], ids=["none", "two"])
async def test_an_http11_request_needs_exactly_one_host(served: Served, hosts: list[str]) -> None:
    conn = await served.open()
    head = "\r\n".join(["GET /v1/me HTTP/1.1", served.auth, *hosts, "", ""]).encode()
    await conn.send(head + request("/v1/me", served.auth))
    message = await _refused_and_nothing_after(conn, 400, "bad_request")
    assert message == f"An HTTP/1.1 request needs one Host header, not {len(hosts)}"
    # HTTP/1.0 has no such rule
    old = await served.open()
    await old.send("\r\n".join(["GET /v1/me HTTP/1.0", served.auth, "", ""]).encode())
    assert (await old.answer())[0] == 200


async def test_another_http_version_is_505(served: Served) -> None:
    conn = await served.open()
    await conn.send(request("/v1/me", served.auth, version="2.0"))
    message = await _refused_and_nothing_after(conn, 505, "http_version_not_supported")
    assert message == "HTTP/2.0 is not supported; send HTTP/1.1"


async def test_transfer_encoding_on_http10_is_refused(served: Served) -> None:
    conn = await served.open()
    await conn.send(
        _post(served.auth, "Transfer-Encoding: chunked").replace(b"HTTP/1.1", b"HTTP/1.0")
    )
    await conn.send(b"0\r\n\r\n")
    assert "HTTP/1.0" in await _refused_and_nothing_after(conn, 400, "bad_request")


async def test_a_url_over_the_limit_is_414_with_the_rate_limit_and_the_connection_kept(
    served: Served,
) -> None:
    conn = await served.open()
    long = "/v1/modules/deals/records?filter=" + "x" * URL_LIMIT
    await conn.send(request(long, served.auth))
    status, headers, body = await conn.answer()
    assert (status, headers["content-type"]) == (414, "application/json")
    assert body == (
        b'{"error":{"code":"uri_too_long","message":"Request URL is %d bytes; the limit is %d",'
        b'"statusCode":414}}' % (len(long), URL_LIMIT)
    )
    assert "x-ratelimit-limit" in headers and "x-request-id" in headers
    assert headers.get("connection") is None
    await conn.send(request("/v1/me", served.auth))  # the same connection serves the next
    assert (await conn.answer())[0] == 200


async def test_a_url_over_the_cap_is_refused_414_at_once_and_the_connection_closed(
    served: Served,
) -> None:
    conn = await served.open()
    await conn.send(
        request("/v1/me?" + "x" * URL_CAP, served.auth) + request("/v1/me", served.auth)
    )
    message = await _refused_and_nothing_after(conn, 414, "uri_too_long")
    assert message == f"Request URL is over {URL_CAP} bytes; the limit is {URL_LIMIT}"


async def test_many_headers_over_the_limit_are_431(served: Served) -> None:
    conn = await served.open()
    many = [f"X-Header-{n}: {'v' * 100}" for n in range(200)]
    await conn.send(request("/v1/me", served.auth, *many))
    await _refused_and_nothing_after(conn, 431, "request_header_fields_too_large")


async def _trickle(conn: Conn, data: bytes, gap: float) -> None:
    """``data`` a byte at a time, ``gap`` seconds apart, until it is sent or the server hangs
    up."""
    try:
        for at in range(len(data)):
            await conn.send(data[at : at + 1])
            await trio.sleep(gap)
    except (trio.BrokenResourceError, trio.ClosedResourceError):
        pass


async def test_a_head_trickled_slower_than_the_header_timeout_is_408_and_closed(
    served: Served,
) -> None:
    """Slowloris: each byte comes well within the keep-alive time, the head never ends; the
    server answers 408 once the header timeout has passed since its first byte, and closes."""
    conn = await served.open()
    head = request("/v1/me", served.auth, *[f"X-Slow-{n}: {n}" for n in range(50)])
    started = trio.current_time()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(_trickle, conn, head, HEADER_TIMEOUT / 20)
        message = await conn.refusal(408, "request_timeout")
        elapsed = trio.current_time() - started
        nursery.cancel_scope.cancel()
    assert message == f"The request head did not arrive within {HEADER_TIMEOUT:g} s"
    assert HEADER_TIMEOUT <= elapsed < 4 * HEADER_TIMEOUT
    assert await conn.closed_by_server()


async def test_a_body_trickled_past_the_header_timeout_is_still_read(served: Served) -> None:
    """The header timeout covers the head only: a slow body is the app's to time."""
    conn = await served.open()
    body = b'{"query": "anything"}'
    extra = ["Content-Type: application/json", f"Content-Length: {len(body)}"]
    await conn.send(request("/v1/search", served.auth, *extra, method="POST"))
    started = trio.current_time()
    await _trickle(conn, body, 2 * HEADER_TIMEOUT / len(body))
    assert trio.current_time() - started > HEADER_TIMEOUT
    status, _, answer = await conn.answer()
    assert status == 200, answer
