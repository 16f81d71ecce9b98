"""HTTP/1.1 as the server speaks it (``fieldhouse.http.wire.h1``, llhttp through httptools): raw
requests over a loopback socket to the real server, the answers read byte by byte."""

from __future__ import annotations

from collections.abc import AsyncIterator
from functools import partial

import pytest
import trio

from fieldhouse.http.wire.server import serve_app
from fieldhouse.runtime import Runtime
from tests.conftest import make_workspace


class Served:
    """The real server on a loopback port, a workspace's Authorization header line, and the
    connections opened to it (closed at the end)."""

    def __init__(self, port: int, auth: str) -> None:
        self.port = port
        self.auth = auth
        self.conns: list[Conn] = []

    async def open(self) -> Conn:
        conn = Conn(await trio.open_tcp_stream("127.0.0.1", self.port))
        self.conns.append(conn)
        return conn


@pytest.fixture
async def served(runtime: Runtime) -> AsyncIterator[Served]:
    ws = await make_workspace(runtime)
    stop = trio.Event()
    async with trio.open_nursery() as nursery:
        binds = await nursery.start(partial(serve_app, runtime, shutdown_trigger=stop.wait))
        server = Served(
            int(binds[0].rsplit(":", 1)[1]), f"Authorization: {ws.headers['Authorization']}"
        )
        try:
            yield server
        finally:
            for conn in server.conns:
                await conn.stream.aclose()
            stop.set()


class Conn:
    """One connection, its answers parsed off the bytes as they come."""

    def __init__(self, stream: trio.SocketStream) -> None:
        self.stream = stream
        self.buffer = b""

    async def send(self, data: bytes) -> None:
        await self.stream.send_all(data)

    async def _fill(self) -> bool:
        chunk = await self.stream.receive_some(65536)
        self.buffer += chunk
        return bool(chunk)

    async def head(self) -> tuple[int, dict[str, str]]:
        with trio.fail_after(10):
            while b"\r\n\r\n" not in self.buffer:
                assert await self._fill(), f"closed before a whole head: {self.buffer!r}"
        raw, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
        lines = raw.decode("latin-1").split("\r\n")
        status = int(lines[0].split(" ")[1])
        assert lines[0].startswith("HTTP/1.1 ")
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        return status, headers

    async def answer(self, *, head_request: bool = False) -> tuple[int, dict[str, str], bytes]:
        status, headers = await self.head()
        if head_request or status in (204, 304):
            return status, headers, b""
        with trio.fail_after(10):
            if "content-length" in headers:
                size = int(headers["content-length"])
                while len(self.buffer) < size:
                    assert await self._fill()
                body, self.buffer = self.buffer[:size], self.buffer[size:]
            elif headers.get("transfer-encoding") == "chunked":
                body = b""
                while True:
                    while b"\r\n" not in self.buffer:
                        assert await self._fill()
                    line, rest = self.buffer.split(b"\r\n", 1)
                    size = int(line, 16)
                    while len(rest) < size + 2:
                        assert await self._fill()
                        rest = self.buffer.split(b"\r\n", 1)[1]
                    body += rest[:size]
                    self.buffer = rest[size + 2 :]
                    if size == 0:
                        break
            else:  # delimited by the end of the connection
                while await self._fill():
                    pass
                body, self.buffer = self.buffer, b""
        return status, headers, body

    async def closed_by_server(self) -> bool:
        with trio.fail_after(10):
            while True:
                try:
                    if not await self._fill():
                        return self.buffer == b""
                except trio.BrokenResourceError:  # reset: closed all the same
                    return True


def _get(path: str, auth: str, *extra: str, method: str = "GET", version: str = "1.1") -> bytes:
    lines = [f"{method} {path} HTTP/{version}", "Host: t", auth, *extra, "", ""]
    return "\r\n".join(lines).encode()


async def test_requests_on_one_connection_are_answered_and_it_stays_open(
    served: Served,
) -> None:
    auth = served.auth
    conn = await served.open()
    for _ in range(3):
        await conn.send(_get("/v1/me", auth))
        status, headers, body = await conn.answer()
        assert status == 200
        assert b'"accountId"' in body
        assert headers.get("connection") is None
        assert int(headers["content-length"]) == len(body)
        assert "date" in headers


async def test_pipelined_requests_are_answered_in_order(served: Served) -> None:
    auth = served.auth
    conn = await served.open()
    await conn.send(_get("/v1/me", auth) + _get("/v1/no-such-thing", auth) + _get("/v1/me", auth))
    statuses = [(await conn.answer())[0] for _ in range(3)]
    assert statuses == [200, 404, 200]


async def test_a_client_that_expects_100_continue_is_told_to_send_its_body(
    served: Served,
) -> None:
    auth = served.auth
    conn = await served.open()
    body = b'{"query": "anything"}'
    extra = ["Content-Type: application/json", f"Content-Length: {len(body)}"]
    await conn.send(_get("/v1/search", auth, *extra, "Expect: 100-continue", method="POST"))
    assert (await conn.head())[0] == 100  # before any byte of the body was sent
    await conn.send(body)
    status, _, answer = await conn.answer()
    assert status == 200, answer
    assert b'"results"' in answer or b'"data"' in answer


async def test_a_chunked_request_body_is_read_whole(served: Served) -> None:
    auth = served.auth
    conn = await served.open()
    head = _get(
        "/v1/search",
        auth,
        "Content-Type: application/json",
        "Transfer-Encoding: chunked",
        method="POST",
    )
    await conn.send(head + b'6\r\n{"quer\r\nf\r\ny": "anything"}\r\n0\r\n\r\n')
    status, _, answer = await conn.answer()
    assert status == 200, answer
    await conn.send(_get("/v1/me", auth))  # and the connection is in step after it
    assert (await conn.answer())[0] == 200


async def test_a_malformed_request_is_answered_400_and_the_connection_closed(
    served: Served,
) -> None:
    for bad in (
        b"NOT A REQUEST\r\n\r\n",
        b"POST /v1/search HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab",
        b"POST /v1/search HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
    ):
        conn = await served.open()
        await conn.send(bad)
        status, headers, body = await conn.answer()
        assert (status, headers["connection"], body) == (400, "close", b"")
        assert await conn.closed_by_server()


async def test_a_head_too_large_is_answered_431_and_the_connection_closed(
    served: Served,
) -> None:
    auth = served.auth
    conn = await served.open()
    await conn.send(_get("/v1/me", auth, "X-Padding: " + "p" * 20_000))
    status, headers, _ = await conn.answer()
    assert (status, headers["connection"]) == (431, "close")
    assert await conn.closed_by_server()


@pytest.mark.parametrize(
    ("version", "extra"), [("1.0", ()), ("1.1", ("Connection: close",))], ids=["http10", "close"]
)
async def test_a_client_that_will_not_keep_the_connection_has_it_closed_after_the_answer(
    served: Served, version: str, extra: tuple[str, ...]
) -> None:
    auth = served.auth
    conn = await served.open()
    await conn.send(_get("/v1/me", auth, *extra, version=version))
    status, headers, body = await conn.answer()
    assert (status, headers["connection"]) == (200, "close")
    assert int(headers["content-length"]) == len(body) > 0
    assert await conn.closed_by_server()


async def test_head_is_answered_without_a_body(served: Served) -> None:
    auth = served.auth
    conn = await served.open()
    await conn.send(_get("/v1/me", auth, method="HEAD"))
    status, headers, _ = await conn.answer(head_request=True)
    assert status == 200
    assert "transfer-encoding" not in headers
    await conn.send(_get("/v1/me", auth))  # nothing was left on the wire in between
    status, _, body = await conn.answer()
    assert status == 200 and body.startswith(b"{")


async def test_an_upgrade_is_not_taken_the_request_is_answered_and_the_connection_closed(
    served: Served,
) -> None:
    auth = served.auth
    conn = await served.open()
    upgrade = ("Connection: Upgrade", "Upgrade: websocket", "Sec-WebSocket-Version: 13")
    await conn.send(_get("/v1/me", auth, *upgrade) + b"\x81\x05hello")
    status, headers, _ = await conn.answer()
    assert (status, headers["connection"]) == (200, "close")
    assert await conn.closed_by_server()


async def test_a_request_that_comes_a_byte_at_a_time_is_read_whole(served: Served) -> None:
    conn = await served.open()
    body = b'{"query": "anything"}'
    extra = ["Content-Type: application/json", f"Content-Length: {len(body)}"]
    request = _get("/v1/search", served.auth, *extra, method="POST") + body
    for n in range(len(request)):
        await conn.send(request[n : n + 1])
    status, _, answer = await conn.answer()
    assert status == 200, answer
