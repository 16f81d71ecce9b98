"""A TCP relay between a store and the test PostgreSQL server that fails as the network or a
restarting server does: it refuses connections, drops the ones it carries, or loses a COMMIT
(or the answer to one) on its way.

The store connects to the relay's port instead of the server's, without TLS (the relay reads
the protocol's messages to find a COMMIT). Everything else is the real server and the real
driver.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Literal
from urllib.parse import urlsplit

import trio

#: a simple-protocol Query message holding COMMIT: 'Q', its length (4 + 7), the text and NUL
COMMIT_QUERY = b"Q\x00\x00\x00\x0bCOMMIT\x00"


def _error_response(**fields: str) -> bytes:
    body = b"".join(k.encode() + v.encode() + b"\x00" for k, v in fields.items()) + b"\x00"
    return b"E" + (4 + len(body)).to_bytes(4, "big") + body


#: what a server shutting down ("fast") sends each session before it closes the socket
ADMIN_SHUTDOWN = _error_response(
    S="FATAL", V="FATAL", C="57P01", M="terminating connection due to administrator command"
)

Lose = Literal["commit", "answer"]


class PgProxy:
    def __init__(self, target: tuple[str, int]) -> None:
        self._target = target
        self.port = 0
        #: connections are accepted and closed at once (the server is away)
        self.refusing = False
        #: connection attempts refused so far, and an event set at each
        self.refused = 0
        self.refused_one = trio.Event()
        #: what the next COMMIT loses: the message itself (the server never sees it and
        #: rolls back) or the server's answer (it commits; the client never hears so)
        self.lose: Lose | None = None
        self.lost = trio.Event()
        self._links: set[_Link] = set()

    def url(self, database_url: str) -> str:
        """``database_url`` pointed at the relay, without TLS."""
        parts = urlsplit(database_url)
        netloc = parts.netloc.rsplit("@", 1)
        host = f"127.0.0.1:{self.port}"
        netloc[-1] = host
        query = "&".join(q for q in (parts.query, "sslmode=disable") if q)
        return parts._replace(netloc="@".join(netloc), query=query).geturl()

    def go_away(self) -> None:
        """Drop every connection carried and refuse new ones (a server stopping)."""
        self.refusing = True
        self.drop_all()

    def come_back(self) -> None:
        self.refusing = False

    def drop_all(self) -> None:
        for link in list(self._links):
            link.scope.cancel()

    async def end_sessions(self) -> None:
        """Tell every session the server is terminating it, as PostgreSQL does when it stops;
        the socket's end follows only with the client's next message."""
        for link in list(self._links):
            link.muted = link.ending = True
            await link.client.send_all(ADMIN_SHUTDOWN)

    async def _handle(self, client: trio.SocketStream) -> None:
        async with client:
            if self.refusing:
                self.refused += 1
                self.refused_one.set()
                self.refused_one = trio.Event()
                return
            server = await trio.open_tcp_stream(*self._target)
            async with server:
                link = _Link(client)
                self._links.add(link)
                try:
                    with link.scope:
                        async with trio.open_nursery() as nursery:
                            nursery.start_soon(self._upstream, client, server, link)
                            nursery.start_soon(self._downstream, server, client, link)
                finally:
                    self._links.discard(link)

    async def _upstream(
        self, client: trio.SocketStream, server: trio.SocketStream, link: _Link
    ) -> None:
        async for data in client:
            if link.ending:
                break
            if self.lose is not None and COMMIT_QUERY in data:
                lose, self.lose = self.lose, None
                link.muted = True  # nothing more reaches the client
                if lose == "answer":
                    await server.send_all(data)
                    # the server has it all before it sees the end of the stream
                link.scope.cancel()
                self.lost.set()
                return
            await server.send_all(data)
        link.scope.cancel()

    async def _downstream(
        self, server: trio.SocketStream, client: trio.SocketStream, link: _Link
    ) -> None:
        async for data in server:
            if link.muted:
                return
            await client.send_all(data)
        link.scope.cancel()


class _Link:
    """One relayed connection: cancelled to drop it; ``muted`` once the client must hear
    nothing more from the server, ``ending`` once it is to close at the client's next word."""

    def __init__(self, client: trio.SocketStream) -> None:
        self.client = client
        self.scope = trio.CancelScope()
        self.muted = False
        self.ending = False


@asynccontextmanager
async def open_pg_proxy(database_url: str) -> AsyncIterator[PgProxy]:
    """A relay to the server ``database_url`` names, on a free loopback port."""
    parts = urlsplit(database_url)
    proxy = PgProxy((parts.hostname or "127.0.0.1", parts.port or 5432))
    async with trio.open_nursery() as nursery:
        listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
        proxy.port = listeners[0].socket.getsockname()[1]
        await nursery.start(trio.serve_listeners, proxy._handle, listeners)
        try:
            yield proxy
        finally:
            proxy.drop_all()
            nursery.cancel_scope.cancel()
