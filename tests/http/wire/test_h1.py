"""HTTP/1.1 as the server speaks it (``fieldhouse.http.wire.h1``, llhttp through httptools): raw
requests over a loopback socket to the real server, the answers read byte by byte."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from fieldhouse.runtime import Runtime
from tests.http.wire.raw import Served, request, serving


@pytest.fixture
async def served(runtime: Runtime) -> AsyncIterator[Served]:
    async with serving(runtime) as server:
        yield server


async def test_requests_on_one_connection_are_answered_and_it_stays_open(
    served: Served,
) -> None:
    auth = served.auth
    conn = await served.open()
    for _ in range(3):
        await conn.send(request("/v1/me", auth))
        status, headers, body = await conn.answer()
        assert status == 200
        assert b'"accountId"' in body
        assert headers.get("connection") is None
        assert int(headers["content-length"]) == len(body)
        assert "date" in headers


async def test_pipelined_requests_are_answered_in_order(served: Served) -> None:
    auth = served.auth
    conn = await served.open()
    me = request("/v1/me", auth)
    await conn.send(me + request("/v1/no-such-thing", auth) + me)
    statuses = [(await conn.answer())[0] for _ in range(3)]
    assert statuses == [200, 404, 200]


async def test_a_client_that_expects_100_continue_is_told_to_send_its_body(
    served: Served,
) -> None:
    auth = served.auth
    conn = await served.open()
    body = b'{"query": "anything"}'
    extra = ["Content-Type: application/json", f"Content-Length: {len(body)}"]
    await conn.send(request("/v1/search", auth, *extra, "Expect: 100-continue", method="POST"))
    assert (await conn.head())[0] == 100  # before any byte of the body was sent
    await conn.send(body)
    status, _, answer = await conn.answer()
    assert status == 200, answer
    assert b'"results"' in answer or b'"data"' in answer


async def test_a_chunked_request_body_is_read_whole(served: Served) -> None:
    auth = served.auth
    conn = await served.open()
    head = request(
        "/v1/search",
        auth,
        "Content-Type: application/json",
        "Transfer-Encoding: chunked",
        method="POST",
    )
    await conn.send(head + b'6\r\n{"quer\r\nf\r\ny": "anything"}\r\n0\r\n\r\n')
    status, _, answer = await conn.answer()
    assert status == 200, answer
    await conn.send(request("/v1/me", auth))  # and the connection is in step after it
    assert (await conn.answer())[0] == 200


async def test_a_malformed_request_is_answered_400_and_the_connection_closed(
    served: Served,
) -> None:
    for bad in (
        b"NOT A REQUEST\r\n\r\n",
        b"POST /v1/search HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab",
        b"POST /v1/search HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
    ):
        conn = await served.open()
        await conn.send(bad)
        message = await conn.refusal(400, "bad_request")
        assert message.startswith("Malformed HTTP request: ")
        assert await conn.closed_by_server()


async def test_a_head_too_large_is_answered_431_and_the_connection_closed(
    served: Served,
) -> None:
    auth = served.auth
    conn = await served.open()
    await conn.send(request("/v1/me", auth, "X-Padding: " + "p" * 60_000))
    message = await conn.refusal(431, "request_header_fields_too_large")
    assert message == "Request header fields are over 16384 bytes"
    assert await conn.closed_by_server()


@pytest.mark.parametrize(
    ("version", "extra"), [("1.0", ()), ("1.1", ("Connection: close",))], ids=["http10", "close"]
)
async def test_a_client_that_will_not_keep_the_connection_has_it_closed_after_the_answer(
    served: Served, version: str, extra: tuple[str, ...]
) -> None:
    auth = served.auth
    conn = await served.open()
    await conn.send(request("/v1/me", auth, *extra, version=version))
    status, headers, body = await conn.answer()
    assert (status, headers["connection"]) == (200, "close")
    assert int(headers["content-length"]) == len(body) > 0
    assert await conn.closed_by_server()


async def test_head_is_answered_without_a_body(served: Served) -> None:
    auth = served.auth
    conn = await served.open()
    await conn.send(request("/v1/me", auth, method="HEAD"))
    status, headers, _ = await conn.answer(head_request=True)
    assert status == 200
    assert "transfer-encoding" not in headers
    await conn.send(request("/v1/me", auth))  # nothing was left on the wire in between
    status, _, body = await conn.answer()
    assert status == 200 and body.startswith(b"{")


async def test_an_upgrade_is_not_taken_the_request_is_answered_and_the_connection_closed(
    served: Served,
) -> None:
    auth = served.auth
    conn = await served.open()
    upgrade = ("Connection: Upgrade", "Upgrade: websocket", "Sec-WebSocket-Version: 13")
    await conn.send(request("/v1/me", auth, *upgrade) + b"\x81\x05hello")
    status, headers, _ = await conn.answer()
    assert (status, headers["connection"]) == (200, "close")
    assert await conn.closed_by_server()


async def test_a_request_that_comes_a_byte_at_a_time_is_read_whole(served: Served) -> None:
    conn = await served.open()
    body = b'{"query": "anything"}'
    extra = ["Content-Type: application/json", f"Content-Length: {len(body)}"]
    whole = request("/v1/search", served.auth, *extra, method="POST") + body
    for n in range(len(whole)):
        await conn.send(whole[n : n + 1])
    status, _, answer = await conn.answer()
    assert status == 200, answer
