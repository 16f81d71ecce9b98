"""The search service a server process opens: what it asks the store for, and where its
queries' vectors come from (the server's embedding process, or a model in this process, which
then also keeps the store's vectors current)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial
from typing import TYPE_CHECKING

import trio

from fieldhouse.config import Settings
from fieldhouse.search.build import build_if_needed
from fieldhouse.search.models import identity
from fieldhouse.search.query_embedder import (
    LocalQueryEmbedder,
    QueryEmbedder,
    RemoteQueryEmbedder,
)
from fieldhouse.search.service import SearchService
from fieldhouse.storage.store import Store

if TYPE_CHECKING:
    from fieldhouse.search.embedding import Progress


def vector_model(settings: Settings) -> str | None:
    """The model whose vectors records get (None: keyword search only)."""
    if not settings.search_enabled:
        return None
    name, dim = identity(settings.embedder)
    return name if dim else None


@asynccontextmanager
async def open_search_service(
    settings: Settings, store: Store, *, progress: Progress | None = None
) -> AsyncIterator[SearchService]:
    """The process's search service. With ``settings.embed_socket`` the server's embedding
    process embeds its queries; otherwise a model in this process does, and (in worker 0) a
    lower-priority thread keeps the store's vectors current."""
    name, dim = identity(settings.embedder)
    store.vector_model = name if dim else None
    if settings.worker_index == 0 and settings.embed_socket is None:
        await build_if_needed(store)
    queries: QueryEmbedder
    local = None
    if settings.embed_socket is not None:
        # the server's embedding process embeds: this process loads no model, nor numpy
        queries = RemoteQueryEmbedder(settings.embed_socket, dim)
    else:
        from fieldhouse.search.embedder import make_embedder

        local = make_embedder(settings.embedder)
        queries = LocalQueryEmbedder(local)
    service = SearchService(store, queries, name)
    async with trio.open_nursery() as nursery:
        await nursery.start(service.run)
        thread = None
        if local is not None and settings.worker_index == 0 and dim:
            from fieldhouse.search.background import LowPriorityThread
            from fieldhouse.search.embedding import embed_forever

            thread = LowPriorityThread()
            nursery.start_soon(partial(embed_forever, store, local, thread.run, progress))
        try:
            yield service
        finally:
            nursery.cancel_scope.cancel()
            if thread is not None:
                thread.close()
