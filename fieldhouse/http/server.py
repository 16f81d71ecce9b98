"""Serving the app with hypercorn's trio worker, around one Store and one ActorSystem."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass

import trio
from hypercorn.config import Config as HyperConfig
from hypercorn.trio import serve as hypercorn_serve
from quart_trio import QuartTrio

from fieldhouse.actors.system import ActorSystem, open_actor_system
from fieldhouse.agents.scheduler import open_scheduler
from fieldhouse.config import Settings
from fieldhouse.http.app import create_app
from fieldhouse.http.auth import jwt_secret
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
            yield Runtime(settings, store, actors, app, search)


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
    await hypercorn_serve(
        runtime.app,  # type: ignore[arg-type]
        config,
        shutdown_trigger=shutdown_trigger,  # type: ignore[arg-type]
        task_status=task_status,
    )
