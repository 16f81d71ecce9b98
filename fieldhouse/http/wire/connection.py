"""hypercorn's trio connection, with costs per request taken out.

hypercorn's ``TCPServer`` runs a connection's keep-alive timer as a task that it cancels when
a request arrives and starts anew (``nursery.start``) when the response has been sent: two
task switches and a new task per request, 5% of the CPU of a small request under load
(py-spy). Here one task per connection watches a cancel scope whose deadline moves instead:
keep-alive seconds ahead while the connection is idle, never while a request is in flight.

When the client closes its end the connection is closed at once (hypercorn held the socket
and its task until the keep-alive time ran out).

It also writes each response with a ``content-length`` in one ``send`` instead of two: the
head is held until the first body bytes (or the end of the message) follow, so a small JSON
answer is one system call, and one loopback segment, instead of two. A head without a length
(a chunked stream, Server-Sent Events) goes out at once, as does every chunk after it; an
empty write (the end of a sized message) costs nothing.

Trips through trio's scheduler (each about 20,000 instructions of the interpreter: the task is
rescheduled, the run loop turns once) are taken out where nobody has to wait: a request's
body reaches its app through an :class:`AppQueue` rather than a memory channel per request;
the send lock is taken at once when free; a response is written to the socket at once when
its buffer takes it all, and a read returns what the socket holds without a further trip
(trio's socket stream passes through the scheduler after every send and every read that
succeeded). A request still waits where it must: for its body, for the socket, for the
workspace's actor. ``benchmarks.instructions``: GET /v1/me 1.22 M -> 0.95 M instructions.

``fieldhouse.http.wire.server`` runs its own accept loop (hypercorn's trio ``worker_serve``, written
out) and builds every connection from this subclass.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Awaitable, Callable
from math import inf
from typing import Any

import trio
from hypercorn.config import Config
from hypercorn.events import Closed, Event, RawData
from hypercorn.trio.task_group import TaskGroup, _handle
from hypercorn.trio.tcp_server import MAX_RECV, TCPServer
from hypercorn.typing import AppWrapper, ASGIReceiveEvent, ASGISendEvent, ConnectionState, Scope
from hypercorn.utils import parse_socket_addr

from fieldhouse.http.wire.h1 import H1Protocol


class IdleTimer:
    """Stands in for hypercorn's ``TrioSingleTask`` as a connection's ``idle_task``: the same
    ``restart`` (the connection is idle: close it after keep-alive seconds, or at once on
    shutdown) and ``stop`` (a request is in flight: leave it open), by moving one scope's
    deadline."""

    def __init__(self, server: FieldhouseTCPServer) -> None:
        self._server = server
        self._scope: trio.CancelScope | None = None
        self._closing = False

    async def restart(self, task_group: Any, action: Any) -> None:
        deadline = self._idle_deadline()
        if self._scope is None:
            self._scope = trio.CancelScope(deadline=deadline)
            task_group._nursery.start_soon(self._watch, self._scope)
        else:
            self._scope.deadline = deadline

    async def stop(self) -> None:
        if self._scope is not None:
            self._scope.deadline = inf

    def _idle_deadline(self) -> float:
        if self._closing:
            return -inf
        return trio.current_time() + self._server.config.keep_alive_timeout

    def end(self) -> None:
        """The connection is over (the client closed it, or the server did after an answer
        sent while shutting down): the watch ends now, whatever the state; a watch left
        waiting for an idle that never comes held hypercorn's graceful exit for 10 s."""
        self._closing = True
        if self._scope is not None:
            self._scope.cancel()

    def close_when_idle(self) -> None:
        """Close now if idle, else once the answer in flight has been sent."""
        self._closing = True
        if self._scope is not None and self._scope.deadline != inf:
            self._scope.deadline = -inf

    async def _watch(self, scope: trio.CancelScope) -> None:
        with scope:
            await self._server.context.terminated.wait()
            self.close_when_idle()  # shutdown
            await trio.sleep_forever()
        with trio.CancelScope(shield=True):
            await self._server._initiate_server_close()


class AppQueue:
    """What the connection hands a request's app (its body, then ``http.disconnect``): a
    bounded queue like the memory channel hypercorn makes per request, without its two
    trips through trio's scheduler per message when nobody has to wait (a small request's body
    is all there when its app starts, and the app's ``receive`` finds it queued). ``put``
    waits while ``size`` messages are unread, so an app that does not read still holds back
    the connection's reading, as before."""

    def __init__(self, size: int) -> None:
        self._size = max(1, size)
        self._items: deque[ASGIReceiveEvent] = deque()
        self._arrived = trio.Event()
        self._taken = trio.Event()

    async def put(self, item: ASGIReceiveEvent) -> None:
        while len(self._items) >= self._size:
            self._taken = trio.Event()
            await self._taken.wait()
        self._items.append(item)
        self._arrived.set()

    async def get(self) -> ASGIReceiveEvent:
        while not self._items:
            self._arrived = trio.Event()
            await self._arrived.wait()
        self._taken.set()
        return self._items.popleft()


class AppTasks(TaskGroup):
    """hypercorn's task group for a connection, whose apps read from an :class:`AppQueue`."""

    async def spawn_app(
        self,
        app: AppWrapper,
        config: Config,
        scope: Scope,
        send: Callable[[ASGISendEvent | None], Awaitable[None]],
    ) -> Callable[[ASGIReceiveEvent], Awaitable[None]]:
        queue = AppQueue(config.max_app_queue_size)
        assert self._nursery is not None
        self._nursery.start_soon(
            _handle,
            app,
            config,
            scope,
            queue.get,
            send,
            trio.to_thread.run_sync,
            trio.from_thread.run,
        )
        return queue.put


class FieldhouseTCPServer(TCPServer):
    """hypercorn's connection with the idle timer above, speaking HTTP/1.1 through
    :class:`fieldhouse.http.wire.h1.H1Protocol` (llhttp) rather than h11 (plain sockets only: the
    server has no TLS, so no ALPN and no HTTP/2)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.idle_timer = IdleTimer(self)
        self.idle_task = self.idle_timer  # type: ignore[assignment]
        #: the connection's socket (None for a stream that is not one: tests' memory streams)
        self._socket: trio.socket.SocketType | None = getattr(self.stream, "socket", None)

    async def run(self) -> None:
        try:
            socket = self.stream.socket  # type: ignore[attr-defined]
            client = parse_socket_addr(socket.family, socket.getpeername())
            server = parse_socket_addr(socket.family, socket.getsockname())
            async with AppTasks() as task_group:
                self._task_group = task_group
                self.protocol = H1Protocol(  # type: ignore[assignment]
                    self.app,
                    self.config,
                    self.context,
                    task_group,
                    ConnectionState(self.state),
                    False,
                    client,
                    server,
                    self.protocol_send,
                )
                await self.idle_task.restart(self._task_group, self._idle_timeout)
                await self._read_data()
        except OSError:
            pass
        finally:
            await self._close()

    async def protocol_send(self, event: Event) -> None:
        """hypercorn's, with two trips through trio's scheduler a response taken out: the send
        lock is taken without one when no one holds it, and the bytes are written to the
        socket at once when its buffer takes them all (:meth:`_write_now`); only the rest, if
        any, goes through trio's ``send_all`` (which waits for the socket to take more)."""
        lock = self.send_lock
        if not isinstance(event, RawData) or lock.locked() or self._socket is None:
            await super().protocol_send(event)
            return
        lock.acquire_nowait()
        try:
            try:
                rest = self._write_now(event.data)
                if rest:
                    with trio.CancelScope(shield=True):
                        await self.stream.send_all(rest)
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                await self.protocol.handle(Closed())
        finally:
            lock.release()

    async def _receive(self, most: int) -> bytes:
        """Up to ``most`` bytes from the socket, waiting for it to be readable only when it has
        nothing (trio's ``receive_some`` passes through the scheduler once more after a read
        that found data: a trip a request). As in :meth:`_write_now`, the descriptor is
        looked up right before each read, with no await between the two."""
        assert self._socket is not None
        while True:
            try:
                return os.read(self._descriptor(), most)
            except BlockingIOError:
                pass
            except OSError as error:  # reset by the peer, say
                raise trio.BrokenResourceError(str(error)) from error
            await trio.lowlevel.wait_readable(self._socket)

    def _descriptor(self) -> int:
        """The socket's descriptor now (call it right before the read or write, with no await
        between); ClosedResourceError once the socket is closed."""
        assert self._socket is not None
        fd: int = self._socket.fileno()
        if fd == -1:
            raise trio.ClosedResourceError("the connection is closed")
        return fd

    def _write_now(self, data: bytes) -> memoryview | bytes:
        """Write what the socket's buffer takes now, without waiting; return the rest. The
        descriptor is looked up on every call, with no await between the look-up and the
        write: once the socket is closed it is -1 (its number may already be another
        connection's), and nothing is written here."""
        assert self._socket is not None
        if self._socket.did_shutdown_SHUT_WR:
            raise trio.ClosedResourceError("the connection is closed for writing")
        try:
            sent = os.write(self._descriptor(), data)
        except BlockingIOError:
            return data
        except OSError as error:  # reset by the peer, say
            raise trio.BrokenResourceError(str(error)) from error
        return memoryview(data)[sent:] if sent < len(data) else b""

    async def _read_data(self) -> None:
        """hypercorn's read loop, without a ``fail_after`` around every read when there is no
        read timeout (the default): a generator context manager and a cancel scope a read."""
        timeout = self.config.read_timeout
        receive = self.stream.receive_some if self._socket is None else self._receive
        while True:
            try:
                if timeout is None:
                    data = await receive(MAX_RECV)
                else:
                    with trio.fail_after(timeout):
                        data = await receive(MAX_RECV)
            except (trio.ClosedResourceError, trio.BrokenResourceError, trio.TooSlowError):
                break
            await self.protocol.handle(RawData(bytes(data)))
            if data == b"":
                break
        await self.protocol.handle(Closed())
        # nothing more comes in (the client closed, or the connection was closed here):
        # hypercorn's timer kept the connection's task and socket for the rest of the
        # keep-alive time
        self.idle_timer.end()
