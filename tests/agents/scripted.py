"""A scripted model server on a loopback port: answers each HTTP request with the next
scripted (status, content type, body), sent in small writes, and keeps what was asked."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from functools import partial

import trio


@dataclass
class Script:
    answers: list[tuple[int, str, bytes]]
    requests: list[bytes] = field(default_factory=list)
    url: str = ""

    async def handle(self, stream: trio.SocketStream) -> None:
        async with stream:
            head = b""
            while b"\r\n\r\n" not in head:
                chunk = await stream.receive_some(65536)
                if not chunk:
                    return
                head += chunk
            head, _, body = head.partition(b"\r\n\r\n")
            length = 0
            for line in head.split(b"\r\n")[1:]:
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value.strip())
            while len(body) < length:
                body += await stream.receive_some(65536)
            self.requests.append(head + b"\r\n\r\n" + body)
            status, kind, payload = self.answers.pop(0)
            await stream.send_all(
                f"HTTP/1.1 {status} X\r\nContent-Type: {kind}\r\n"
                f"Content-Length: {len(payload)}\r\nConnection: close\r\n\r\n".encode()
            )
            for i in range(0, len(payload), 5):
                await stream.send_all(payload[i : i + 5])


@asynccontextmanager
async def scripted(*answers: tuple[int, str, bytes]) -> AsyncIterator[Script]:
    script = Script(list(answers))
    async with trio.open_nursery() as nursery:
        (listener,) = await nursery.start(
            partial(trio.serve_tcp, script.handle, 0, host="127.0.0.1")
        )
        host, port = listener.socket.getsockname()[:2]
        script.url = f"http://{host}:{port}"
        yield script
        nursery.cancel_scope.cancel()


def sse(*events: str) -> tuple[int, str, bytes]:
    return 200, "text/event-stream", "".join(f"data: {e}\n\n" for e in events).encode()
