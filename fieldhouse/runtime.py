"""The composition root: opens the store, search, actors and scheduler, builds one
:class:`~fieldhouse.services.Services` and the web application over it, and closes them in
the right order (the actors first, so their last writes are in before search closes)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass

import trio
from prometheus_client import Gauge

from fieldhouse.actors.system import ActorSystem, open_actor_system
from fieldhouse.config import Settings
from fieldhouse.http.app import create_app
from fieldhouse.http.auth import Authenticator, jwt_secret
from fieldhouse.http.dispatch import Dispatch
from fieldhouse.http.ratelimit import make_limiter
from fieldhouse.metrics import Metrics
from fieldhouse.search.open import open_search_service
from fieldhouse.search.service import SearchService, backlog_age
from fieldhouse.services import Services
from fieldhouse.storage import Store, open_database
from fieldhouse.storage.backend import Backend, backend_for
from fieldhouse.webhooks import open_dispatcher


@dataclass(frozen=True)
class Runtime:
    """A running Fieldhouse: its services and the application that serves them."""

    services: Services
    app: Dispatch
    #: what differs between the engines outside the store (coordination, the secret's place)
    backend: Backend

    @property
    def settings(self) -> Settings:
        return self.services.settings

    @property
    def store(self) -> Store:
        return self.services.store

    @property
    def actors(self) -> ActorSystem:
        return self.services.actors

    @property
    def search(self) -> SearchService | None:
        return self.services.search

    @property
    def shutdown(self) -> trio.Event:
        return self.services.shutdown


@asynccontextmanager
async def open_runtime(settings: Settings) -> AsyncIterator[Runtime]:
    backend = backend_for(settings)
    async with open_database(
        settings.resolved_database_url, sqlite_synchronous=settings.sqlite_synchronous
    ) as store:
        secret = await jwt_secret(store, settings, backend)
        async with AsyncExitStack() as stack:
            coordination = await stack.enter_async_context(backend.open_coordination())
            search: SearchService | None = None
            if settings.search_enabled:
                search = await stack.enter_async_context(open_search_service(settings, store))
            actors = await stack.enter_async_context(
                open_actor_system(
                    store,
                    settings,
                    on_change=coordination.bump,
                    epoch=coordination.epoch if coordination.immediate else None,
                )
            )
            if settings.worker_index == 0:  # one scheduler per server is enough
                # (imported here: the other workers never load the agents package for it)
                from fieldhouse.agents.scheduler import open_scheduler

                await stack.enter_async_context(open_scheduler(store, actors, settings))
                # and one webhook dispatcher (its outbox is in the store)
                await stack.enter_async_context(open_dispatcher(store, actors, settings))
            metrics = _metrics(settings, actors, search)
            services = Services(
                settings=settings,
                store=store,
                actors=actors,
                auth=Authenticator(store, secret, epoch=coordination.epoch),
                limiter=make_limiter(coordination, settings, backend),
                search=search,
                metrics=metrics,
            )
            yield Runtime(services, create_app(services), backend)


def _metrics(settings: Settings, actors: ActorSystem, search: SearchService | None) -> Metrics:
    """This process's metrics, fed by the actors' batches and sampled from their state."""
    metrics = Metrics(settings.metrics_dir)
    actors.observe_batches(metrics.observe_batch)

    # a gauge is set only when its value changed: the sampler runs after every batch, and
    # each set writes the worker's metrics file (most batches change none of the three)
    last: dict[Gauge, float] = {}

    def put(gauge: Gauge, value: float) -> None:
        if last.get(gauge) != value:
            last[gauge] = value
            gauge.set(value)

    def sample() -> None:
        put(metrics.mailbox_depth, actors.mailbox_depth())
        if search is not None:
            backlog = search.last_backlog
            put(metrics.vectors_waiting, backlog.waiting)
            put(metrics.vectors_oldest_seconds, backlog_age(backlog))

    metrics.add_sampler(sample)
    return metrics
