"""hypercorn's connection as Fieldhouse runs it: one write per sized response, the keep-alive
timer, and connections closed as soon as nobody can use them."""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator
from functools import partial

import pytest
import trio
import trio.testing
from hypercorn.events import RawData, Updated
from hypercorn.trio.worker_context import WorkerContext
from hypercorn.typing import ConnectionState

from fieldhouse.http.connection import FieldhouseTCPServer
from fieldhouse.http.server import hypercorn_config, serve_app
from fieldhouse.runtime import Runtime
from tests.conftest import make_workspace

SIZED_HEAD = b"HTTP/1.1 200 \r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n"
STREAM_HEAD = (
    b"HTTP/1.1 200 \r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"
)


async def _app(scope: object, receive: object, send: object) -> None:
    raise AssertionError("not called")


def _server(runtime: Runtime, stream: trio.abc.Stream) -> FieldhouseTCPServer:
    config = hypercorn_config(runtime.settings)
    return FieldhouseTCPServer(_app, config, WorkerContext(None), ConnectionState({}), stream)


async def test_a_sized_response_is_one_write_and_a_stream_head_goes_at_once(
    runtime: Runtime,
) -> None:
    writes: list[bytes] = []
    send_stream = trio.testing.MemorySendStream()

    async def record() -> None:
        writes.append(send_stream.get_data_nowait())

    send_stream.send_all_hook = record
    server = _server(runtime, send_stream)  # type: ignore[arg-type]
    await server.protocol_send(RawData(SIZED_HEAD))
    assert writes == []  # held for its body
    await server.protocol_send(RawData(b"{}"))
    await server.protocol_send(RawData(b""))  # the end of a sized message: nothing to write
    assert writes == [SIZED_HEAD + b"{}"]
    # a head with no length is not held: its first event may be a while coming
    await server.protocol_send(RawData(STREAM_HEAD))
    assert writes[-1] == STREAM_HEAD
    await server.protocol_send(RawData(b"6\r\ndata:1\r\n"))
    assert writes[-1] == b"6\r\ndata:1\r\n"
    # a held head goes out before whatever else the protocol says next
    await server.protocol_send(RawData(SIZED_HEAD))
    await server.protocol_send(Updated(idle=False))
    assert writes[-1] == SIZED_HEAD


@pytest.fixture
async def served(runtime: Runtime) -> AsyncIterator[tuple[Runtime, int, trio.Event]]:
    """The real server on a loopback port, keep-alive 0.5 s; set the event to shut it down."""
    stop = trio.Event()
    async with trio.open_nursery() as nursery:
        binds = await nursery.start(
            partial(serve_app, runtime, shutdown_trigger=stop.wait, keep_alive=0.5)
        )
        yield runtime, int(binds[0].rsplit(":", 1)[1]), stop
        stop.set()


async def _get_me(runtime: Runtime, port: int) -> trio.SocketStream:
    """A connection that has had one answer to GET /v1/me (a new workspace's), left open."""
    headers = (await make_workspace(runtime)).headers
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    lines = [f"{k}: {v}" for k, v in headers.items()]
    request = "\r\n".join(["GET /v1/me HTTP/1.1", "Host: t", *lines, "", ""])
    await stream.send_all(request.encode())
    answer = b""
    while b"\r\n\r\n" not in answer or not answer.rstrip().endswith(b"}"):
        answer += await stream.receive_some(65536)
    assert answer.startswith(b"HTTP/1.1 200")
    return stream


async def _closed_by_server(stream: trio.SocketStream) -> bytes:
    """What the server still sends before it closes the connection."""
    rest = b""
    with trio.fail_after(10):
        while chunk := await stream.receive_some(65536):
            rest += chunk
    return rest


async def test_an_idle_connection_closes_after_the_keep_alive_time(
    served: tuple[Runtime, int, trio.Event],
) -> None:
    runtime, port, _ = served
    stream = await _get_me(runtime, port)
    opened = trio.current_time()
    assert await _closed_by_server(stream) == b""
    assert trio.current_time() - opened >= 0.4  # not before its time
    await stream.aclose()


async def test_a_connection_the_client_closed_is_closed_at_once(
    served: tuple[Runtime, int, trio.Event],
) -> None:
    runtime, port, _ = served
    stream = await _get_me(runtime, port)
    opened = trio.current_time()
    stream.socket.shutdown(socket.SHUT_WR)
    assert await _closed_by_server(stream) == b""
    assert trio.current_time() - opened < 0.4  # hypercorn alone held it for the keep-alive
    await stream.aclose()


async def test_shutdown_closes_an_idle_connection_at_once(
    served: tuple[Runtime, int, trio.Event],
) -> None:
    runtime, port, stop = served
    stream = await _get_me(runtime, port)
    opened = trio.current_time()
    stop.set()
    assert await _closed_by_server(stream) == b""
    assert trio.current_time() - opened < 0.4
    await stream.aclose()
