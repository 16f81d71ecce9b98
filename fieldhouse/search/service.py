"""The search service: per-workspace indexes, the query API, and freshness tracking.

Only the indexer task (``indexer.py``) writes an index; queries read through a thread limiter.
A workspace whose index is missing, damaged or being rebuilt is *unavailable*: callers then
answer with the SPEC's fallback (empty results, ``fallback: true``) or, for a module's list
``search``, the SQL substring match.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Protocol

import trio

from fieldhouse.config import Settings
from fieldhouse.search.background import LowPriorityThread
from fieldhouse.search.embedder import Embedder, Matrix
from fieldhouse.search.engine import Mode, SearchResult, WorkspaceIndex
from fieldhouse.storage.store import Store

log = logging.getLogger("fieldhouse.search")

QUERY_CACHE = 512


class ChangeEvent(Protocol):
    """What the indexer reads from an actor event (``fieldhouse.actors.context.Event``)."""

    @property
    def account_id(self) -> str: ...
    @property
    def seq(self) -> int | None: ...
    @property
    def record_id(self) -> str | None: ...


class SearchService:
    def __init__(
        self, root: Path, store: Store, embedder: Embedder, *, queue_size: int = 1024
    ) -> None:
        self.root = root
        self.store = store
        self.embedder = embedder
        self.indexes: dict[str, WorkspaceIndex] = {}
        #: accounts whose index is being (re)built: unavailable until done
        self.building: set[str] = set()
        #: accounts whose events were dropped (full queue): the indexer re-syncs them
        self.dirty: set[str] = set()
        self.published: dict[str, int] = {}
        self.indexed: dict[str, int] = {}
        self.query_limiter = trio.CapacityLimiter(4)
        self.write_limiter = trio.CapacityLimiter(1)
        #: the indexer's embedding runs here, below request handling in priority
        self.background = LowPriorityThread()
        self._send, self.receive = trio.open_memory_channel[Sequence[ChangeEvent]](queue_size)
        self._progress = trio.Event()
        self._qcache: OrderedDict[str, Matrix] = OrderedDict()
        self._qlock = threading.Lock()

    def path(self, account_id: str) -> Path:
        return self.root / account_id

    # --- freshness ---

    def notify(self, events: Sequence[ChangeEvent]) -> None:
        """ActorSystem subscriber: never blocks; a full queue marks the workspace dirty."""
        accounts: set[str] = set()
        for event in events:
            accounts.add(event.account_id)
            if event.seq is not None:
                seen = self.published.get(event.account_id, 0)
                self.published[event.account_id] = max(seen, event.seq)
        try:
            self._send.send_nowait(events)
        except trio.WouldBlock:
            self.dirty |= accounts
        except (trio.ClosedResourceError, trio.BrokenResourceError):
            pass  # shutting down; the next start re-syncs from the store

    def progressed(self) -> None:
        """Wake everyone waiting in :meth:`wait_fresh`."""
        self._progress.set()
        self._progress = trio.Event()

    def available(self, account_id: str) -> bool:
        return account_id in self.indexes and account_id not in self.building

    def caught_up(self, account_id: str, seq: int | None = None) -> bool:
        target = self.published.get(account_id, 0) if seq is None else seq
        return (
            self.available(account_id)
            and account_id not in self.dirty
            and self.indexed.get(account_id, 0) >= target
        )

    async def wait_fresh(self, account_id: str, within: float, seq: int | None = None) -> bool:
        """Wait until the index holds every change published so far (or ``seq``)."""
        target = self.published.get(account_id, 0) if seq is None else seq
        with trio.move_on_after(within):
            while not self.caught_up(account_id, target):
                await self._progress.wait()
            return True
        return False

    # --- queries ---

    def _embed_query(self, text: str) -> Matrix | None:
        if not self.embedder.dim:
            return None
        with self._qlock:
            cached = self._qcache.get(text)
            if cached is not None:
                self._qcache.move_to_end(text)
                return cached
        vec: Matrix = self.embedder.embed([text])[0]
        with self._qlock:
            self._qcache[text] = vec
            while len(self._qcache) > QUERY_CACHE:
                self._qcache.popitem(last=False)
        return vec

    async def search(
        self,
        account_id: str,
        text: str,
        module_ids: Collection[str] | None,
        *,
        limit: int,
        min_similarity: float,
        mode: Mode = "hybrid",
    ) -> SearchResult | None:
        """Hybrid search in one workspace; None when its index is unavailable."""
        if not self.available(account_id):
            return None
        index = self.indexes[account_id]

        def run() -> SearchResult:
            qvec = self._embed_query(text) if mode != "keyword" else None
            return index.query(
                text, qvec, module_ids, limit=limit, min_similarity=min_similarity, mode=mode
            )

        try:
            return await trio.to_thread.run_sync(run, limiter=self.query_limiter)
        except Exception:
            log.exception("search in workspace %s failed; answering with the fallback", account_id)
            return None

    async def filter_ids(
        self, account_id: str, module_id: str, text: str, *, within: float = 1.0
    ) -> list[str] | None:
        """Candidate record ids of a module for a substring search (a superset: the caller
        still checks each), read after the index caught up with the writes so far; None
        when the index cannot answer or narrow it down."""
        if not await self.wait_fresh(account_id, within):
            return None
        index = self.indexes[account_id]
        try:
            ids: list[str] | None = await trio.to_thread.run_sync(
                index.filter_ids, text, module_id, limiter=self.query_limiter
            )
            return ids
        except Exception:
            log.exception("list search in workspace %s failed", account_id)
            return None

    async def aclose(self) -> None:
        self._send.close()
        indexes, self.indexes = self.indexes, {}

        def close_all() -> None:
            for index in indexes.values():
                try:
                    index.save_vectors()
                finally:
                    index.close()

        self.background.close()
        await trio.to_thread.run_sync(close_all)


def search_root(settings: Settings) -> Path:
    """Indexes live under the data directory, whichever database holds the records; each worker
    process of a several-process server keeps its own (it follows the activity sequence)."""
    root = settings.data_dir / "search"
    return root if settings.worker_index == 0 else root / f"worker-{settings.worker_index}"
