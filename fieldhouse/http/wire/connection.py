"""One HTTP/1.1 connection: hypercorn's trio ``TCPServer`` rewritten around its costs per
request, without its private names.

hypercorn's ``TCPServer`` runs a connection's keep-alive timer as a task that it cancels when
a request arrives and starts anew (``nursery.start``) when the response has been sent: two
task switches and a new task per request, 5% of the CPU of a small request under load
(py-spy). Here one task per connection watches a cancel scope whose deadline moves instead:
keep-alive seconds ahead while the connection is idle, never while a request is in flight,
and the header timeout after a request's first byte (a client trickling its head is answered
408 and closed, not held for the keep-alive time).

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

hypercorn's names used here (see ``fieldhouse.http.wire``): the task group protocol its
``HTTPStream`` calls (``spawn_app``), ``Config.max_app_queue_size``, ``read_timeout`` and
``keep_alive_timeout``, the worker context's ``terminated``, ``config.log.exception``, the
events of ``hypercorn.events``, ``hypercorn.utils.parse_socket_addr``, and the ASGI wrapper's
call (``app(scope, receive, send, sync_spawn, call_soon)``).

``fieldhouse.http.wire.server`` runs its own accept loop (hypercorn's trio ``worker_serve``,
written out) and builds every connection from :class:`Connection`.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager, suppress
from math import inf
from types import TracebackType
from typing import Any

import trio
from hypercorn.config import Config
from hypercorn.events import Closed, Event, RawData, Updated
from hypercorn.trio.worker_context import WorkerContext
from hypercorn.typing import AppWrapper, ASGIReceiveEvent, ASGISendEvent, ConnectionState, Scope
from hypercorn.utils import parse_socket_addr

from fieldhouse.http.wire.h1 import H1Protocol, HeadStarted

#: seconds a request's head may take once its first byte has come, unless the server says
#: (``Settings.header_timeout``)
HEADER_TIMEOUT = 10.0
#: the most a read takes from the socket (hypercorn's ``MAX_RECV``)
MAX_RECV = 2**16


class IdleTimer:
    """A connection's keep-alive and header timer (hypercorn's ``idle_task``): ``restart``
    (the connection is idle: close it after keep-alive seconds, or at once on shutdown) and
    ``stop`` (a request is in flight: leave it open), by moving one scope's deadline."""

    def __init__(self, server: Connection) -> None:
        self._server = server
        self._scope: trio.CancelScope | None = None
        self._closing = False
        #: when the head under way must be whole (its first byte plus the header timeout)
        self._head_deadline = inf

    def restart(self, nursery: trio.Nursery) -> None:
        deadline = self._idle_deadline()
        if self._scope is None:
            self._scope = trio.CancelScope(deadline=deadline)
            nursery.start_soon(self._watch, self._scope)
        else:
            self._scope.deadline = deadline

    def stop(self) -> None:
        if self._scope is not None:
            self._scope.deadline = inf

    def head_started(self) -> None:
        """A request's head has begun: it must be whole within the header timeout (a client
        trickling its headers is not held for the keep-alive time)."""
        self._head_deadline = trio.current_time() + self._server.header_timeout
        scope = self._scope
        if scope is not None and scope.deadline != inf:  # idle: a request in flight waits
            scope.deadline = min(scope.deadline, self._head_deadline)

    def _idle_deadline(self) -> float:
        if self._closing:
            return -inf
        deadline = trio.current_time() + self._server.config.keep_alive_timeout
        if self._server.protocol is not None and self._server.protocol.in_head:
            deadline = min(deadline, self._head_deadline)  # a pipelined head, part read
        return deadline

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
            h1 = self._server.protocol
            if h1 is not None and h1.in_head and trio.current_time() >= self._head_deadline:
                await h1.timed_out(self._server.header_timeout)  # 408
            await self._server.close_from_server()


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


class AppTasks:
    """A connection's request apps, in one nursery: the task group hypercorn's ``HTTPStream``
    spawns its app in, each app reading from an :class:`AppQueue`."""

    def __init__(self) -> None:
        self._manager: AbstractAsyncContextManager[trio.Nursery] = trio.open_nursery()
        self.nursery: trio.Nursery

    async def __aenter__(self) -> AppTasks:
        self.nursery = await self._manager.__aenter__()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool | None:
        return await self._manager.__aexit__(exc_type, exc, tb)

    async def spawn_app(
        self,
        app: AppWrapper,
        config: Config,
        scope: Scope,
        send: Callable[[ASGISendEvent | None], Awaitable[None]],
    ) -> Callable[[ASGIReceiveEvent], Awaitable[None]]:
        queue = AppQueue(config.max_app_queue_size)
        self.nursery.start_soon(_run_app, app, config, scope, queue.get, send)
        return queue.put

    def spawn(self, func: Callable[..., Awaitable[Any]], *args: Any) -> None:
        self.nursery.start_soon(func, *args)


async def _run_app(
    app: AppWrapper,
    config: Config,
    scope: Scope,
    receive: Callable[[], Awaitable[ASGIReceiveEvent]],
    send: Callable[[ASGISendEvent | None], Awaitable[None]],
) -> None:
    """One request's app (hypercorn's ``_handle``): an error is logged; either way the stream
    is told the app has finished (``send(None)``: it answers 500 if nothing was sent)."""
    try:
        await app(scope, receive, send, trio.to_thread.run_sync, trio.from_thread.run)
    except trio.Cancelled:
        raise
    except BaseExceptionGroup as error:
        if error.split(trio.Cancelled)[1] is None:
            raise
        await config.log.exception("Error in ASGI Framework")
    except Exception:
        await config.log.exception("Error in ASGI Framework")
    finally:
        await send(None)


class Connection:
    """One client's connection, speaking HTTP/1.1 through
    :class:`fieldhouse.http.wire.h1.H1Protocol` (llhttp); plain sockets only (the server has no
    TLS, so no ALPN and no HTTP/2). Awaiting it serves the connection to its end."""

    def __init__(
        self,
        app: AppWrapper,
        config: Config,
        context: WorkerContext,
        state: ConnectionState,
        stream: trio.SocketStream,
        *,
        header_timeout: float = HEADER_TIMEOUT,
    ) -> None:
        self.app = app
        self.config = config
        self.context = context
        self.state = state
        self.stream = stream
        self.header_timeout = header_timeout
        self.send_lock = trio.Lock()
        self.protocol: H1Protocol | None = None
        self.idle_timer = IdleTimer(self)
        self._tasks: AppTasks | None = None
        #: the connection's socket (None for a stream that is not one: tests' memory streams)
        self._socket: trio.socket.SocketType | None = getattr(stream, "socket", None)

    def __await__(self) -> Any:
        return self.run().__await__()

    async def run(self) -> None:
        try:
            socket = self.stream.socket
            client = parse_socket_addr(socket.family, socket.getpeername())
            server = parse_socket_addr(socket.family, socket.getsockname())
            async with AppTasks() as tasks:
                self._tasks = tasks
                self.protocol = H1Protocol(
                    self.app,
                    self.config,
                    self.context,
                    tasks,  # type: ignore[arg-type]
                    ConnectionState(self.state),
                    False,
                    client,
                    server,
                    self.protocol_send,
                )
                self.idle_timer.restart(tasks.nursery)
                await self._read_data()
        except OSError:
            pass
        finally:
            await self.close()

    async def protocol_send(self, event: Event) -> None:
        """What the protocol asks of the connection: bytes written, the connection closed, a
        change between idle and busy, a head begun."""
        if isinstance(event, RawData):
            await self._send(event.data)
        elif isinstance(event, Closed):
            await self.close()
            await self._tell_closed()
        elif isinstance(event, Updated):
            if not event.idle:
                self.idle_timer.stop()
            elif self._tasks is not None:
                self.idle_timer.restart(self._tasks.nursery)
        elif isinstance(event, HeadStarted):
            self.idle_timer.head_started()

    async def _send(self, data: bytes) -> None:
        """``data`` to the client, shielded from cancellation; with two trips through trio's
        scheduler a response taken out: the send lock is taken without one when no one holds
        it, and the bytes are written to the socket at once when its buffer takes them all
        (:meth:`_write_now`); only the rest, if any, goes through trio's ``send_all`` (which
        waits for the socket to take more). A client gone closes the connection."""
        lock = self.send_lock
        if lock.locked() or self._socket is None:
            async with lock:
                try:
                    with trio.CancelScope(shield=True):
                        await self.stream.send_all(data)
                except (trio.BrokenResourceError, trio.ClosedResourceError):
                    await self._tell_closed()
            return
        lock.acquire_nowait()
        try:
            try:
                rest = self._write_now(data)
                if rest:
                    with trio.CancelScope(shield=True):
                        await self.stream.send_all(rest)
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                await self._tell_closed()
        finally:
            lock.release()

    async def _tell_closed(self) -> None:
        if self.protocol is not None:
            await self.protocol.handle(Closed())

    async def close(self) -> None:
        """Close the socket (after a FIN, when it still takes one)."""
        with suppress(trio.BrokenResourceError, trio.BusyResourceError, trio.ClosedResourceError):
            await self.stream.send_eof()
        await self.stream.aclose()

    async def close_from_server(self) -> None:
        """The server ends the connection (idle too long, shutting down)."""
        await self._tell_closed()
        await self.stream.aclose()

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
        """Hand what arrives to the protocol until the client closes (hypercorn's read loop,
        without a ``fail_after`` around every read when there is no read timeout, the
        default: a generator context manager and a cancel scope a read)."""
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
            assert self.protocol is not None
            await self.protocol.handle(RawData(bytes(data)))
            if data == b"":
                break
        await self._tell_closed()
        # nothing more comes in (the client closed, or the connection was closed here):
        # hypercorn's timer kept the connection's task and socket for the rest of the
        # keep-alive time
        self.idle_timer.end()
