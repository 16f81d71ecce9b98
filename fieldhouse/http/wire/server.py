"""Serving the app with hypercorn's trio worker, around one Store and one ActorSystem.

Every answer the server makes itself carries the error envelope: the connection's refusals
(``fieldhouse.http.wire.rules``: 400, 408, 414, 431, 505) and, here, a 500 for an app that
fails before its answer began (hypercorn's own would be empty).

hypercorn's names used here (see ``fieldhouse.http.wire``): ``Config`` (``create_sockets``
and the fields set below), ``Lifespan``, ``WorkerContext`` (``terminate``, ``terminated``),
``ShutdownError``, ``raise_shutdown``, ``repr_socket_addr``, ``wrap_app``.

Shutdown (SIGINT/SIGTERM in ``fieldhouse serve``, or any ``shutdown_trigger``): the listening
sockets close at once, so new connections are refused; requests in flight finish (hypercorn
waits up to ``graceful_timeout``); idle keep-alive connections are closed; and open
Server-Sent Events streams are told to end (``Services.shutdown`` is set before the wait), so
they finish with an ``error`` event instead of being cut at the timeout.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, MutableMapping
from functools import partial
from typing import Any, Protocol

import orjson
import trio
from hypercorn.config import Config as HyperConfig
from hypercorn.trio.lifespan import Lifespan
from hypercorn.trio.worker_context import WorkerContext
from hypercorn.typing import ConnectionState
from hypercorn.utils import ShutdownError, raise_shutdown, repr_socket_addr, wrap_app

from fieldhouse.config import LISTEN_BACKLOG, Settings
from fieldhouse.http.wire.balance import BalancedListener, Shares
from fieldhouse.http.wire.connection import Connection
from fieldhouse.model.errors import InternalError

log = logging.getLogger("fieldhouse.server")


class Servable(Protocol):
    """What serving needs of a runtime (``fieldhouse.runtime.Runtime``)."""

    @property
    def settings(self) -> Settings: ...
    @property
    def app(self) -> Callable[..., Awaitable[None]]: ...
    @property
    def shutdown(self) -> trio.Event: ...


#: how long an idle keep-alive connection stays open
KEEP_ALIVE_SECONDS = 75.0


def hypercorn_config(
    settings: Settings, fd: int | None = None, keep_alive: float = KEEP_ALIVE_SECONDS
) -> HyperConfig:
    """hypercorn's settings; ``fd`` is a listening socket inherited from the supervisor."""
    config = HyperConfig()
    config.bind = [f"fd://{fd}" if fd is not None else f"{settings.host}:{settings.port}"]
    config.accesslog = None
    config.errorlog = logging.getLogger("hypercorn.error")
    config.graceful_timeout = 10.0
    config.backlog = LISTEN_BACKLOG
    config.keep_alive_timeout = keep_alive
    return config


async def serve_app(
    runtime: Servable,
    *,
    shutdown_trigger: Callable[[], Awaitable[None]] | None = None,
    fd: int | None = None,
    keep_alive: float = KEEP_ALIVE_SECONDS,
    task_status: trio.TaskStatus[list[str]] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Serve until the trigger fires (or forever); reports the bound addresses when ready."""
    config = hypercorn_config(runtime.settings, fd, keep_alive)
    shutdown = runtime.shutdown
    trigger: Callable[[], Awaitable[None]] | None = None
    if shutdown_trigger is not None:
        outer = shutdown_trigger

        async def trigger() -> None:
            await outer()
            log.info("shutting down: refusing new connections, finishing requests in flight")
            shutdown.set()  # before hypercorn's graceful wait: event streams end now

    app = wrap_app(_Answered(runtime.app), config.wsgi_max_body_size, "asgi")  # type: ignore[arg-type]
    settings = runtime.settings
    connection = partial(Connection, header_timeout=settings.header_timeout)
    if fd is None or settings.connection_shares is None:
        await _serve(app, config, connection, None, trigger, task_status)
        return
    with Shares(settings.connection_shares, settings.worker_index) as shares:
        await _serve(app, config, connection, shares, trigger, task_status)


async def _serve(
    app: Any,
    config: HyperConfig,
    connection: Callable[..., Connection],
    shares: Shares | None,
    shutdown_trigger: Callable[[], Awaitable[None]] | None,
    task_status: trio.TaskStatus[list[str]],
) -> None:
    """hypercorn's trio ``worker_serve`` (0.18) for plain HTTP, with Fieldhouse's connection
    class (``fieldhouse.http.wire.connection``) and, on a socket shared with other workers
    (``shares``), only this worker's share of the connections (``fieldhouse.http.wire.balance``):
    the lifespan, then the accept loop until the trigger fires, then up to
    ``graceful_timeout`` for the requests in flight."""
    state: dict[str, Any] = {}
    lifespan = Lifespan(app, config, state)
    context = WorkerContext(None)
    async with trio.open_nursery() as lifespan_nursery:
        await lifespan_nursery.start(lifespan.handle_lifespan)
        await lifespan.wait_for_startup()
        async with trio.open_nursery() as server_nursery:
            handler: Callable[[trio.SocketStream], Awaitable[object]]
            handler = partial(connection, app, config, context, ConnectionState(state))
            listeners: list[trio.abc.Listener[trio.SocketStream]] = []
            binds = []
            for sock in config.create_sockets().insecure_sockets:
                sock.listen(config.backlog)
                wrapped = trio.socket.from_stdlib_socket(sock)
                if shares is None:
                    listeners.append(trio.SocketListener(wrapped))
                else:  # one inherited socket
                    balanced = BalancedListener(wrapped, shares)
                    handler = balanced.serving(handler)
                    listeners.append(balanced)
                binds.append(f"http://{repr_socket_addr(sock.family, sock.getsockname())}")
                log.info("listening on %s", binds[-1])
            task_status.started(binds)
            try:
                async with trio.open_nursery() as nursery:
                    if shutdown_trigger is not None:
                        nursery.start_soon(raise_shutdown, shutdown_trigger)
                    nursery.start_soon(raise_shutdown, context.terminate.wait)
                    nursery.start_soon(
                        partial(
                            trio.serve_listeners, handler, listeners, handler_nursery=server_nursery
                        )
                    )
            except BaseExceptionGroup as error:
                # the trigger fired, or a second Ctrl-C came during the graceful stop
                _, others = error.split((ShutdownError, KeyboardInterrupt))
                if others is not None:
                    raise others from None
            finally:
                await context.terminated.set()
                server_nursery.cancel_scope.deadline = trio.current_time() + config.graceful_timeout
        await lifespan.wait_for_shutdown()
        lifespan_nursery.cancel_scope.cancel()


Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]


class _Answered:
    """The app as the server runs it: every HTTP request gets an answer, and the last body
    message of each is sent shielded from cancellation.

    An app that raises before its answer began, or ends without one while its client is
    still there, is answered ``500`` in the envelope here (hypercorn's own answer has no
    body). An error after the answer began is hypercorn's to log; the client sees the
    connection close.

    The last message is shielded because hypercorn handles it by closing the stream, which
    tells the app ``http.disconnect`` and, inside the same ``send``, restarts the
    connection's keep-alive timer: a cancel landing there (an app that cancels its request on
    disconnect, a response timeout) left the connection with no idle timer at all, never
    closed after ``keep_alive_timeout`` nor on shutdown. The send itself is quick (the socket
    writes are shielded already).
    """

    def __init__(self, app: Callable[..., Awaitable[None]]) -> None:
        self.app = app

    async def __call__(
        self,
        scope: Scope,
        receive: Callable[[], Awaitable[Message]],
        send: Callable[[Message], Awaitable[None]],
    ) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = gone = False

        async def watched_receive() -> Message:
            nonlocal gone
            message = await receive()
            gone = gone or message["type"] == "http.disconnect"
            return message

        async def shielded_send(message: Message) -> None:
            nonlocal started
            kind = message["type"]
            if kind == "http.response.body" and not message.get("more_body", False):
                with trio.CancelScope(shield=True):
                    await send(message)
                return
            started = started or kind == "http.response.start"
            await send(message)

        try:
            await self.app(scope, watched_receive, shielded_send)
        except Exception:
            if started:
                raise
            log.exception("the app failed before answering %s %s", scope["method"], scope["path"])
            await _internal_error(send)
            return
        if not started and not gone:
            log.error("the app ended without answering %s %s", scope["method"], scope["path"])
            await _internal_error(send)


async def _internal_error(send: Callable[[Message], Awaitable[None]]) -> None:
    error = InternalError("Internal error: the server could not answer this request")
    body = orjson.dumps(error.to_json())
    headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(body))]
    await send({"type": "http.response.start", "status": error.status, "headers": headers})
    with trio.CancelScope(shield=True):
        await send({"type": "http.response.body", "body": body, "more_body": False})
