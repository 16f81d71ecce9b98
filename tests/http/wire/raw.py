"""Raw HTTP/1.1 against the real server on a loopback port: the bytes sent as they are, the
answers parsed off the bytes as they come (helpers for the tests of this folder)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial
from typing import Any

import orjson
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


@asynccontextmanager
async def serving(runtime: Runtime, **serve: Any) -> AsyncIterator[Served]:
    """The runtime's app served on a loopback port (``serve``: serve_app's options) until the
    block ends, with a workspace's key."""
    ws = await make_workspace(runtime)
    stop = trio.Event()
    async with trio.open_nursery() as nursery:
        start = partial(serve_app, runtime, shutdown_trigger=stop.wait, **serve)
        binds = await nursery.start(start)
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

    async def refusal(self, status: int, code: str) -> str:
        """The next answer is ``status`` in the envelope with ``code``, and says it closes the
        connection; its message."""
        got, headers, body = await self.answer()
        assert got == status, body
        assert headers["content-type"] == "application/json"
        assert headers["connection"] == "close"
        error = orjson.loads(body)["error"]
        assert (error["code"], error["statusCode"]) == (code, status)
        return str(error["message"])

    async def closed_by_server(self) -> bool:
        """Whether the server closes the connection with nothing more sent on it."""
        with trio.fail_after(10):
            while True:
                try:
                    if not await self._fill():
                        return self.buffer == b""
                except trio.BrokenResourceError:  # reset: closed all the same
                    return True


def request(path: str, auth: str, *extra: str, method: str = "GET", version: str = "1.1") -> bytes:
    """A request head with a Host, the workspace's Authorization and ``extra`` header lines."""
    lines = [f"{method} {path} HTTP/{version}", "Host: t", auth, *extra, "", ""]
    return "\r\n".join(lines).encode()
