"""Serving the app with hypercorn's trio worker, around one Store and one ActorSystem.

Shutdown (SIGINT/SIGTERM in ``fieldhouse serve``, or any ``shutdown_trigger``): the listening
sockets close at once, so new connections are refused; requests in flight finish (hypercorn
waits up to ``graceful_timeout``); idle keep-alive connections are closed; and open
Server-Sent Events streams are told to end (``Runtime.shutdown`` is set before the wait), so
they finish with an ``error`` event instead of being cut at the timeout.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import trio
from hypercorn.config import Config as HyperConfig
from hypercorn.trio import serve as hypercorn_serve
from quart_trio import QuartTrio

from fieldhouse.actors.system import ActorSystem, open_actor_system
from fieldhouse.agents.scheduler import open_scheduler
from fieldhouse.config import Settings
from fieldhouse.http.app import create_app
from fieldhouse.http.auth import jwt_secret
from fieldhouse.http.sse import SHUTDOWN_KEY
from fieldhouse.search.service import SearchService, open_search_service
from fieldhouse.storage import Store, open_database

log = logging.getLogger("fieldhouse.server")


@dataclass(frozen=True)
class Runtime:
    settings: Settings
    store: Store
    actors: ActorSystem
    app: QuartTrio
    search: SearchService | None = None
    #: set when the server starts shutting down; open event streams watch it and end
    shutdown: trio.Event = field(default_factory=trio.Event)


@asynccontextmanager
async def open_runtime(settings: Settings) -> AsyncIterator[Runtime]:
    """The store, the search indexer, the actors and the app, closed in the right order on exit
    (the actors first, so their last events still reach the indexer)."""
    async with open_database(settings.resolved_database_url) as store:
        secret = await jwt_secret(store, settings.jwt_secret)
        async with AsyncExitStack() as stack:
            search: SearchService | None = None
            if settings.search_enabled:
                search = await stack.enter_async_context(open_search_service(settings, store))
            actors = await stack.enter_async_context(open_actor_system(store, settings))
            if search is not None:
                actors.subscribe(search.notify)
            await stack.enter_async_context(open_scheduler(store, actors, settings))
            app = create_app(settings, store, actors, secret, search=search)
            runtime = Runtime(settings, store, actors, app, search)
            app.extensions[SHUTDOWN_KEY] = runtime.shutdown
            yield runtime


def hypercorn_config(settings: Settings) -> HyperConfig:
    config = HyperConfig()
    config.bind = [f"{settings.host}:{settings.port}"]
    config.accesslog = None
    config.errorlog = logging.getLogger("hypercorn.error")
    config.graceful_timeout = 10.0
    config.keep_alive_timeout = 75.0
    return config


async def serve_app(
    runtime: Runtime,
    *,
    shutdown_trigger: Callable[[], Awaitable[None]] | None = None,
    task_status: trio.TaskStatus[list[str]] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Serve until the trigger fires (or forever); reports the bound addresses when ready."""
    config = hypercorn_config(runtime.settings)
    shutdown: trio.Event = runtime.app.extensions.setdefault(SHUTDOWN_KEY, runtime.shutdown)
    trigger: Callable[[], Awaitable[None]] | None = None
    if shutdown_trigger is not None:
        outer = shutdown_trigger

        async def trigger() -> None:
            await outer()
            log.info("shutting down: refusing new connections, finishing requests in flight")
            shutdown.set()  # before hypercorn's graceful wait: event streams end now

    await hypercorn_serve(
        _FinalSendShielded(runtime.app),  # type: ignore[arg-type]
        config,
        shutdown_trigger=trigger,
        task_status=task_status,
    )


Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]


class _FinalSendShielded:
    """Sends the last body message of each HTTP response shielded from cancellation.

    hypercorn handles that message by closing the stream, which tells the app
    ``http.disconnect``; quart-trio then cancels the request's nursery while hypercorn, still
    inside the same ``send``, starts the connection's keep-alive idle task, and that start is
    cancelled with it. Such a connection had no idle timer at all: it was never closed after
    ``keep_alive_timeout``, nor on shutdown, where it held the exit for the full
    ``graceful_timeout``. With the send shielded the idle task starts normally (the send
    itself is quick: hypercorn already shields its socket writes).
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

        async def shielded_send(message: Message) -> None:
            if message["type"] == "http.response.body" and not message.get("more_body", False):
                with trio.CancelScope(shield=True):
                    await send(message)
            else:
                await send(message)

        await self.app(scope, receive, shielded_send)
