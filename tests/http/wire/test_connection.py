"""A connection as Fieldhouse runs it: one write per sized response, the keep-alive
timer, and connections closed as soon as nobody can use them (HTTP/1.1 itself: test_h1)."""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator
from functools import partial
from typing import Any

import pytest
import trio
import trio.testing
from hypercorn.events import RawData
from hypercorn.protocol.events import Body, EndBody, Response, StreamClosed
from hypercorn.trio.worker_context import WorkerContext
from hypercorn.typing import ConnectionState
from hypercorn.utils import wrap_app

from fieldhouse.http.wire.connection import AppQueue, AppTasks, Connection
from fieldhouse.http.wire.h1 import H1Protocol
from fieldhouse.http.wire.server import hypercorn_config, serve_app
from fieldhouse.runtime import Runtime
from tests.conftest import make_workspace

SIZED = [(b"content-type", b"application/json"), (b"content-length", b"2")]
STREAM = [(b"content-type", b"text/event-stream")]


async def _app(scope: object, receive: object, send: object) -> None:
    raise AssertionError("not called")


async def _waits(scope: Any, receive: Any, send: Any) -> None:
    """An ASGI app that answers nothing: the test speaks for it through the protocol."""
    while (await receive())["type"] != "http.disconnect":
        pass


def _server(runtime: Runtime, stream: trio.abc.Stream) -> Connection:
    config = hypercorn_config(runtime.settings)
    return Connection(_app, config, WorkerContext(None), ConnectionState({}), stream)  # type: ignore[arg-type]


async def test_a_sized_response_is_one_write_and_a_stream_head_goes_at_once(
    runtime: Runtime,
) -> None:
    writes: list[bytes] = []
    send_stream = trio.testing.MemorySendStream()

    async def record() -> None:
        writes.append(bytes(send_stream.get_data_nowait()))

    send_stream.send_all_hook = record
    server = _server(runtime, send_stream)  # type: ignore[arg-type]
    context = WorkerContext(None)
    async with AppTasks() as group:
        protocol = H1Protocol(
            wrap_app(_waits, 0, "asgi"),  # type: ignore[arg-type]
            server.config,
            context,
            group,
            ConnectionState({}),
            False,
            None,
            None,
            server.protocol_send,
        )
        server.protocol = protocol
        server._tasks = group
        await protocol.handle(RawData(b"GET /a HTTP/1.1\r\nHost: t\r\n\r\n"))
        await protocol.stream_send(Response(stream_id=1, headers=SIZED, status_code=200))
        assert writes == []  # held for its body
        await protocol.stream_send(Body(stream_id=1, data=b"{}"))
        await protocol.stream_send(EndBody(stream_id=1))  # the end of a sized body: no write
        assert len(writes) == 1
        assert writes[0].startswith(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n")
        assert b"\r\ncontent-length: 2\r\n" in writes[0]
        assert writes[0].endswith(b"\r\n\r\n{}")
        await protocol.stream_send(StreamClosed(stream_id=1))
        # a head with no length goes at once, chunked: its first event may be a while coming
        await protocol.handle(RawData(b"GET /b HTTP/1.1\r\nHost: t\r\n\r\n"))
        await protocol.stream_send(Response(stream_id=1, headers=STREAM, status_code=200))
        assert len(writes) == 2
        assert b"\r\ntransfer-encoding: chunked\r\n" in writes[1]
        assert writes[1].endswith(b"\r\n\r\n")
        await protocol.stream_send(Body(stream_id=1, data=b"data:1\n\n"))
        assert writes[2] == b"8\r\ndata:1\n\n\r\n"
        await protocol.stream_send(EndBody(stream_id=1))
        assert writes[3] == b"0\r\n\r\n"
        await protocol.stream_send(StreamClosed(stream_id=1))
        group.nursery.cancel_scope.cancel()


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


async def test_an_app_that_does_not_read_holds_back_its_body_after_the_queue_is_full() -> None:
    queue = AppQueue(3)
    put: list[int] = []

    async def connection() -> None:
        for n in range(5):
            await queue.put({"type": "http.request", "body": b"%d" % n, "more_body": True})
            put.append(n)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(connection)
        await trio.testing.wait_all_tasks_blocked()
        assert put == [0, 1, 2]  # the fourth waits for the app
        assert (await queue.get())["body"] == b"0"
        await trio.testing.wait_all_tasks_blocked()
        assert put == [0, 1, 2, 3]
        bodies = [(await queue.get())["body"] for _ in range(4)]
    assert bodies == [b"1", b"2", b"3", b"4"]  # in order, none lost


async def test_an_app_waiting_for_its_body_gets_it_when_it_arrives() -> None:
    queue = AppQueue(10)
    got: list[Any] = []

    async def app() -> None:
        got.append(await queue.get())

    async with trio.open_nursery() as nursery:
        nursery.start_soon(app)
        await trio.testing.wait_all_tasks_blocked()
        assert got == []
        await queue.put({"type": "http.disconnect"})
    assert got == [{"type": "http.disconnect"}]


class _Told:
    """Stands in for the protocol: records what the connection tells it."""

    def __init__(self) -> None:
        self.events: list[object] = []

    async def handle(self, event: object) -> None:
        self.events.append(event)


async def _socket_pair(sndbuf: int) -> tuple[trio.SocketStream, trio.SocketStream]:
    ours, theirs = trio.socket.socketpair()
    ours.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, sndbuf)
    theirs.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, sndbuf)
    return trio.SocketStream(ours), trio.SocketStream(theirs)


async def _connection(
    runtime: Runtime, sndbuf: int
) -> tuple[Connection, _Told, trio.SocketStream, trio.SocketStream]:
    """A connection on our end of a socket pair, its protocol a :class:`_Told`; both ends."""
    ours, theirs = await _socket_pair(sndbuf)
    server = _server(runtime, ours)
    told = _Told()
    server.protocol = told  # type: ignore[assignment]
    return server, told, ours, theirs


async def test_a_response_larger_than_the_socket_takes_arrives_whole_and_in_order(
    runtime: Runtime,
) -> None:
    server, told, ours, theirs = await _connection(runtime, 4096)
    payload = bytes(range(256)) * 4096  # 1 MiB: the socket takes a part, the rest must wait
    received = bytearray()

    async def client() -> None:
        while len(received) < len(payload) + 3:
            chunk = await theirs.receive_some(8192)
            assert chunk
            received.extend(chunk)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(client)
        await server.protocol_send(RawData(payload))
        await server.protocol_send(RawData(b"end"))  # after it, not inside it
    assert bytes(received) == payload + b"end"
    assert told.events == []
    await ours.aclose()
    await theirs.aclose()


async def test_after_the_socket_is_closed_nothing_is_written_and_the_protocol_is_told(
    runtime: Runtime,
) -> None:
    server, told, ours, theirs = await _connection(runtime, 65536)
    await ours.aclose()
    # a new socket may now hold the closed one's descriptor number: it must get nothing
    other_ours, other_theirs = await _socket_pair(65536)
    await server.protocol_send(RawData(b"HTTP/1.1 200 OK\r\n\r\nsecret"))
    assert [type(e).__name__ for e in told.events] == ["Closed"]
    # nothing arrived on the other connection, either way: each end's first bytes are the
    # other end's marker
    await other_ours.send_all(b"mark")
    await other_theirs.send_all(b"MARK")
    assert await other_theirs.receive_some(100) == b"mark"
    assert await other_ours.receive_some(100) == b"MARK"
    for stream in (theirs, other_ours, other_theirs):
        await stream.aclose()


async def test_a_peer_that_went_away_closes_the_connection_without_an_error(
    runtime: Runtime,
) -> None:
    server, told, ours, theirs = await _connection(runtime, 65536)
    await theirs.aclose()
    for _ in range(3):  # (a TCP peer's close may let the first write through)
        await server.protocol_send(RawData(b"x" * 1000))
        if told.events:
            break
    assert [type(e).__name__ for e in told.events] == ["Closed"]
    await ours.aclose()


async def test_the_read_loop_hands_on_what_arrives_and_ends_when_the_peer_closes(
    runtime: Runtime,
) -> None:
    server, told, ours, theirs = await _connection(runtime, 65536)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(server._read_data)
        await trio.testing.wait_all_tasks_blocked()
        await theirs.send_all(b"GET / HTTP/1.1\r\n")
        await trio.testing.wait_all_tasks_blocked()
        await theirs.send_all(b"\r\n")
        await trio.testing.wait_all_tasks_blocked()
        await theirs.aclose()
    data = [e.data for e in told.events if isinstance(e, RawData)]
    assert data == [b"GET / HTTP/1.1\r\n", b"\r\n", b""]
    assert type(told.events[-1]).__name__ == "Closed"
    await ours.aclose()


async def test_a_read_waiting_when_the_socket_is_closed_reads_nothing_more(
    runtime: Runtime,
) -> None:
    server, told, ours, theirs = await _connection(runtime, 65536)
    with trio.fail_after(10):  # (a loop that kept waiting would hang here)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(server._read_data)
            await trio.testing.wait_all_tasks_blocked()
            await ours.aclose()  # the server closes it (shutdown, say) while it waits
            # a new connection may take the closed one's descriptor number
            other_ours, other_theirs = await _socket_pair(65536)
            await other_theirs.send_all(b"mark")
    assert [type(e).__name__ for e in told.events] == ["Closed"]
    assert await other_ours.receive_some(100) == b"mark"  # not read by the old loop
    for stream in (theirs, other_ours, other_theirs):
        await stream.aclose()
