"""The search service: per-workspace indexes, the query API, and freshness tracking.

Only the indexer task (``indexer.py``) writes an index; queries read through a thread limiter.
A workspace whose index is missing, damaged or being rebuilt is *unavailable*: callers then
answer with the SPEC's fallback (empty results, ``fallback: true``) or, for a module's list
``search``, the SQL substring match.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict, deque
from collections.abc import Collection, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Protocol

import trio

from fieldhouse.config import Settings
from fieldhouse.search.background import LowPriorityThread
from fieldhouse.search.documents import Doc
from fieldhouse.search.embedder import Embedder, Matrix
from fieldhouse.search.engine import Mode, SearchResult, WorkspaceIndex
from fieldhouse.search.process import EmbeddingProcess
from fieldhouse.search.vectors import one_blas_thread
from fieldhouse.storage.store import Store

log = logging.getLogger("fieldhouse.search")

QUERY_CACHE = 512
QUERIES_AT_ONCE = 4  # searches of a process in threads at a time


class ChangeEvent(Protocol):
    """What the indexer reads from an actor event (``fieldhouse.actors.context.Event``)."""

    @property
    def account_id(self) -> str: ...
    @property
    def seq(self) -> int | None: ...
    @property
    def record_id(self) -> str | None: ...


class SearchService:
    def __init__(self, root: Path, store: Store, embedder: Embedder) -> None:
        self.root = root
        self.store = store
        self.embedder = embedder
        self.indexes: dict[str, WorkspaceIndex] = {}
        #: accounts whose index is being (re)built: unavailable until done
        self.building: set[str] = set()
        #: accounts the indexer must compare with the store whole (a poller's first sight)
        self.dirty: set[str] = set()
        self.published: dict[str, int] = {}
        #: accounts whose trigram index a list search asked for (the indexer fills it)
        self.want_grams: set[str] = set()
        #: records indexed by their words and waiting for their vectors, per workspace (the
        #: latest version of each, in arrival order)
        self.to_embed: dict[str, dict[str, Doc]] = {}
        self.indexed: dict[str, int] = {}
        self.query_limiter = trio.CapacityLimiter(QUERIES_AT_ONCE)
        #: a hybrid query's vector half (with the query's embedding) runs here while its
        #: keyword half runs in the query's own thread (WorkspaceIndex.query)
        self.halves = ThreadPoolExecutor(QUERIES_AT_ONCE, thread_name_prefix="search-half")
        one_blas_thread()
        self.write_limiter = trio.CapacityLimiter(1)
        #: one step at a time per workspace index (a rebuild replaces the index under a step)
        self.steps: dict[str, trio.Lock] = {}
        #: the indexer's embedding runs here, below request handling in priority
        self.background = LowPriorityThread()
        #: or in a child process of its own (the server's default, :mod:`.process`)
        self.process: EmbeddingProcess | None = None
        #: changes not yet taken by the indexer. Unbounded on purpose: an entry is a few ids,
        #: and dropping one would cost a re-read of the whole workspace (the indexer takes
        #: them in batches, so a backlog costs fewer, larger batches, not more work)
        self.pending: deque[ChangeEvent] = deque()
        self._arrived = trio.Event()
        self._closed = False
        self._progress = trio.Event()
        self._qcache: OrderedDict[str, Matrix] = OrderedDict()
        self._qlock = threading.Lock()

    def path(self, account_id: str) -> Path:
        return self.root / account_id

    # --- freshness ---

    def notify(self, events: Sequence[ChangeEvent]) -> None:
        """ActorSystem subscriber: never blocks, never drops a change."""
        if self._closed:
            return  # shutting down; the next start catches up from the store
        for event in events:
            if event.seq is not None:
                seen = self.published.get(event.account_id, 0)
                self.published[event.account_id] = max(seen, event.seq)
        self.pending.extend(events)
        self._arrived.set()

    async def wait_pending(self) -> None:
        """Return once :attr:`pending` holds a change or a trigram index is asked for (at once
        when so already)."""
        while not self.pending and not self.want_grams:
            await self._arrived.wait()
            self._arrived = trio.Event()

    def take_pending(self, most: int) -> list[ChangeEvent]:
        """Up to ``most`` changes, oldest first."""
        taken: list[ChangeEvent] = []
        while self.pending and len(taken) < most:
            taken.append(self.pending.popleft())
        return taken

    def progressed(self) -> None:
        """Wake everyone waiting in :meth:`wait_fresh`."""
        self._progress.set()
        self._progress = trio.Event()

    def available(self, account_id: str) -> bool:
        return account_id in self.indexes and account_id not in self.building

    def caught_up(self, account_id: str, seq: int | None = None, *, vectors: bool = True) -> bool:
        """Every change published so far (or up to ``seq``) is searchable by its words and,
        with ``vectors``, has its vector too."""
        target = self.published.get(account_id, 0) if seq is None else seq
        return (
            self.available(account_id)
            and account_id not in self.dirty
            and self.indexed.get(account_id, 0) >= target
            and not (vectors and self.to_embed.get(account_id))
        )

    async def wait_fresh(
        self, account_id: str, within: float, seq: int | None = None, *, vectors: bool = True
    ) -> bool:
        """Wait until the index holds every change published so far (or ``seq``)."""
        target = self.published.get(account_id, 0) if seq is None else seq
        with trio.move_on_after(within):
            while not self.caught_up(account_id, target, vectors=vectors):
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
            return index.query(
                text,
                lambda: self._embed_query(text),
                module_ids,
                limit=limit,
                min_similarity=min_similarity,
                mode=mode,
                pool=self.halves,
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
        when the index cannot answer or narrow it down. The first such search of a workspace
        has the indexer fill its trigram index and waits for it within the same ``within``
        (a large workspace's is answered by SQL alone until it is filled)."""
        fresh = False
        with trio.move_on_after(within):
            fresh = await self.wait_fresh(account_id, within, vectors=False)
            while (
                fresh and self.available(account_id) and not self.indexes[account_id].grams_filled
            ):
                self.want_grams.add(account_id)
                self._arrived.set()
                await self._progress.wait()
        if not fresh or not self.available(account_id):
            return None  # (not fresh: the time ran out, maybe while waiting for freshness)
        index = self.indexes[account_id]
        if not index.grams_filled:
            return None
        try:
            ids: list[str] | None = await trio.to_thread.run_sync(
                index.filter_ids, text, module_id, limiter=self.query_limiter
            )
            return ids
        except Exception:
            log.exception("list search in workspace %s failed", account_id)
            return None

    async def embed_records(self, texts: Sequence[str]) -> list[Matrix]:
        """Each record's vectors (one per window), computed below request handling in
        priority."""
        if self.process is not None:
            return await self.process.embed_windows(texts)
        result: list[Matrix] = await self.background.run(self.embedder.embed_windows, texts)
        return result

    async def aclose(self) -> None:
        self._closed = True
        self.pending.clear()
        indexes, self.indexes = self.indexes, {}

        def close_all() -> None:
            for index in indexes.values():
                try:
                    index.save_vectors()
                finally:
                    index.close()

        self.background.close()
        if self.process is not None:
            await self.process.aclose()
        await trio.to_thread.run_sync(close_all)
        self.halves.shutdown(wait=False)


def search_root(settings: Settings) -> Path:
    """Indexes live under the data directory, whichever database holds the records; each worker
    process of a several-process server keeps its own (it follows the activity sequence)."""
    root = settings.data_dir / "search"
    return root if settings.worker_index == 0 else root / f"worker-{settings.worker_index}"
