"""The search service a server process opens: what it asks the store for, and where its
queries' vectors come from (the server's embedding process, or a model in this process, which
then also keeps the store's vectors current)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial

import trio

from fieldhouse.config import Settings
from fieldhouse.search.background import LowPriorityThread
from fieldhouse.search.build import build_if_needed
from fieldhouse.search.embedder import make_embedder
from fieldhouse.search.embedding import Progress, embed_forever
from fieldhouse.search.query_embedder import (
    LocalQueryEmbedder,
    QueryEmbedder,
    RemoteQueryEmbedder,
)
from fieldhouse.search.service import SearchService
from fieldhouse.storage.store import Store


def vector_model(settings: Settings) -> str | None:
    """The model whose vectors records get (None: keyword search only)."""
    if not settings.search_enabled:
        return None
    embedder = make_embedder(settings.embedder)  # (nothing is loaded until it embeds)
    return embedder.name if embedder.dim else None


@asynccontextmanager
async def open_search_service(
    settings: Settings, store: Store, *, progress: Progress | None = None
) -> AsyncIterator[SearchService]:
    """The process's search service. With ``settings.embed_socket`` the server's embedding
    process embeds its queries; otherwise a model in this process does, and (in worker 0) a
    lower-priority thread keeps the store's vectors current."""
    embedder = make_embedder(settings.embedder)
    store.vector_model = embedder.name if embedder.dim else None
    if settings.worker_index == 0 and settings.embed_socket is None:
        await build_if_needed(store)
    queries: QueryEmbedder
    if settings.embed_socket is not None:
        queries = RemoteQueryEmbedder(settings.embed_socket, embedder.dim)
    else:
        queries = LocalQueryEmbedder(embedder)
    service = SearchService(store, queries, embedder.name)
    async with trio.open_nursery() as nursery:
        await nursery.start(service.run)
        thread: LowPriorityThread | None = None
        if settings.embed_socket is None and settings.worker_index == 0 and embedder.dim:
            thread = LowPriorityThread()
            nursery.start_soon(partial(embed_forever, store, embedder, thread.run, progress))
        try:
            yield service
        finally:
            nursery.cancel_scope.cancel()
            if thread is not None:
                thread.close()
