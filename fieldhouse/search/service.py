"""The search service: the one owner of search state in a server process.

The index itself is data of the store (``fieldhouse.storage.search_index``): each record's
words are written by its own write transaction, and its vectors by the server's embedding loop
(:mod:`.embedding`). What a process keeps here is only what makes queries fast, none of it
needed for an answer to be right:

- each workspace's word statistics (which query words are common; counted again in the
  background once older than STATS_SECONDS),
- each workspace's vectors as one matrix (:class:`~fieldhouse.search.vectors.VectorIndex`),
  brought up to date from the store before each query by reading the rows stored since,
- the query embedder: the server's embedding process, or a model in this process.

A hybrid query runs its keyword half and its vector half at once. Records whose vector is not
made yet are ranked by their keyword score in both halves (never below the keyword half
alone), and the answer says how complete the vector half was.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import trio

from fieldhouse.search.engine import (
    CANDIDATES,
    Coverage,
    Hit,
    Mode,
    Ranked,
    SearchResult,
    fuse,
    names_holding,
    order,
    query_terms,
    snippet,
)
from fieldhouse.search.query_embedder import QueryEmbedder
from fieldhouse.storage.fulltext import Stats, query_words
from fieldhouse.storage.store import Store
from fieldhouse.storage.vectors import Backlog

if TYPE_CHECKING:
    from fieldhouse.search.vectors import VectorHits, VectorIndex

log = logging.getLogger("fieldhouse.search")

#: seconds a workspace's word statistics serve before a search has them counted again (in the
#: background: the search goes on with the old ones, which only steer how words are scored)
STATS_SECONDS = 60.0
#: vector rows read from the store at a time when a workspace's matrix catches up
VECTOR_PAGE = 5000
#: searches of a process that compute at once (the vector products run in threads)
QUERIES_AT_ONCE = 4
#: seconds between looks at a workspace's vector backlog while waiting for it to empty
WAIT_LOOK = 0.02


@dataclass
class _Vectors:
    index: VectorIndex
    after: int = 0  # the highest stored row number read
    lock: trio.Lock = field(default_factory=trio.Lock)


class SearchService:
    def __init__(self, store: Store, embedder: QueryEmbedder | None, model: str | None) -> None:
        self.store = store
        self.embedder = embedder
        #: the model whose vectors the store holds (None: keyword search only)
        self.model = model if embedder is not None and embedder.dim else None
        self._stats: dict[str, Stats] = {}
        self._stats_at: dict[str, float] = {}
        self._counting: set[str] = set()
        self._vectors: dict[str, _Vectors] = {}
        self._limiter = trio.CapacityLimiter(QUERIES_AT_ONCE)
        self._nursery: trio.Nursery | None = None
        #: the vector backlog as last read (what /metrics reports)
        self.last_backlog = Backlog(0, None)

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """Hold the nursery the statistics are counted again in, until cancelled."""
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            task_status.started()
            await trio.sleep_forever()

    # --- the halves ---

    async def _statistics(self, account_id: str) -> Stats:
        stats = self._stats.get(account_id)
        if stats is None:
            stats = await self._count(account_id)
        elif (
            time.monotonic() - self._stats_at[account_id] > STATS_SECONDS
            and account_id not in self._counting
            and self._nursery is not None
        ):
            self._counting.add(account_id)
            self._nursery.start_soon(self._recount, account_id)
        return stats

    async def _count(self, account_id: str) -> Stats:
        stats = await self.store.keyword_stats(account_id)
        self._stats[account_id] = stats
        self._stats_at[account_id] = time.monotonic()
        return stats

    async def _recount(self, account_id: str) -> None:
        try:
            await self._count(account_id)
        except Exception:
            log.warning("search: counting the words of %s failed", account_id, exc_info=True)
        finally:
            self._counting.discard(account_id)

    async def _keyword(
        self, account_id: str, text: str, module_ids: Collection[str] | None
    ) -> tuple[Ranked, int]:
        words = query_words(text)
        if not words:
            return [], 0
        stats = await self._statistics(account_id)
        hits = await self.store.keyword_search(account_id, words, stats, module_ids, CANDIDATES)
        return hits.ranked, hits.total

    async def vectors_of(self, account_id: str) -> VectorIndex | None:
        """The workspace's vectors, brought up to date with the store (None: no model)."""
        if self.model is None or self.embedder is None:
            return None
        held = self._vectors.get(account_id)
        if held is None:
            # numpy is loaded with the first workspace's vectors, not with the worker: 0.12 s
            # of every worker's start (the first 200 waits for it), for a search that may come
            from fieldhouse.search.vectors import VectorIndex, one_blas_thread

            one_blas_thread()
            held = self._vectors[account_id] = _Vectors(VectorIndex(self.embedder.dim))
        async with held.lock:
            while True:
                rows = await self.store.vectors_since(
                    account_id, self.model, held.after, VECTOR_PAGE
                )
                if not rows:
                    break
                dim = held.index.dim
                gone = [r.record_id for r in rows if not r.vector]
                kept = [r for r in rows if r.vector and len(r.vector) % (4 * dim) == 0]
                held.index.delete(gone)
                if kept:
                    import numpy as np  # (loaded with the VectorIndex above)

                    held.index.upsert(
                        [r.record_id for r in kept],
                        [r.module_id for r in kept],
                        [np.frombuffer(r.vector, np.float32).reshape(-1, dim) for r in kept],
                    )
                held.after = rows[-1].n
                if len(rows) < VECTOR_PAGE:
                    break
        return held.index

    async def _vector(
        self,
        account_id: str,
        text: str,
        module_ids: Collection[str] | None,
        min_similarity: float,
    ) -> tuple[VectorHits | None, VectorIndex | None]:
        if self.embedder is None or self.model is None:
            return None, None
        qvec = await self.embedder.embed(text)
        if qvec is None:
            return None, None
        index = await self.vectors_of(account_id)
        if index is None:
            return None, None
        hits = await trio.to_thread.run_sync(
            index.search, qvec, module_ids, CANDIDATES, min_similarity, limiter=self._limiter
        )
        return hits, index

    # --- the query ---

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
        """Hybrid search in one workspace; None when the store cannot answer it."""
        if module_ids is not None and not module_ids:
            return SearchResult([], 0, await self.coverage(account_id))
        keyword: tuple[Ranked, int] | None = None
        vector: tuple[VectorHits | None, VectorIndex | None] = (None, None)

        async def keyword_half() -> None:
            nonlocal keyword
            keyword = await self._keyword(account_id, text, module_ids)

        async def vector_half() -> None:
            nonlocal vector
            try:
                vector = await self._vector(account_id, text, module_ids, min_similarity)
            except Exception:  # the keyword half still answers
                log.warning("search: the vector half failed", exc_info=True)

        try:
            async with trio.open_nursery() as nursery:
                if mode != "vector":
                    nursery.start_soon(keyword_half)
                if mode != "keyword":
                    nursery.start_soon(vector_half)
            coverage = await self.coverage(account_id, vectors=vector[0] is not None)
        except Exception:
            log.exception("search in workspace %s failed; answering with the fallback", account_id)
            return None
        return await self._answer(account_id, text, keyword, vector, coverage, limit)

    async def _answer(
        self,
        account_id: str,
        text: str,
        keyword: tuple[Ranked, int] | None,
        vector: tuple[VectorHits | None, VectorIndex | None],
        coverage: Coverage,
        limit: int,
    ) -> SearchResult:
        vec_hits, index = vector
        kw_ranked = keyword[0] if keyword is not None else None
        vec_ranked = vec_hits.ranked if vec_hits is not None else None
        unembedded = (
            [rid for rid, _ in kw_ranked if not index.has(rid)]
            if kw_ranked and index is not None
            else []
        )
        fused = fuse(kw_ranked, vec_ranked, unembedded=unembedded)
        extra = 0
        if keyword is not None:
            extra += keyword[1] - len(keyword[0])
        if vec_hits is not None:
            extra += vec_hits.total - len(vec_hits.ranked)
        candidates = sorted(fused, key=lambda rid: (-fused[rid], rid))[: max(limit, CANDIDATES)]
        stored = await self.store.search_docs(account_id, candidates)
        titles = {rid: f["title"] for rid, f in stored.items()}
        named = names_holding(titles, query_words(text))
        terms = query_terms(text)
        kw_scores = dict(kw_ranked or [])
        sims = dict(vec_ranked or [])
        hits: list[Hit] = []
        for rid in order({r: fused[r] for r in stored}, named, limit):
            fields = stored[rid]
            hits.append(
                Hit(
                    record_id=rid,
                    module_id=fields["module"],
                    title=fields["title"],
                    snippet=snippet(fields, terms),
                    score=round(fused[rid], 6),
                    similarity=round(sims[rid], 6) if rid in sims else None,
                    keyword_score=round(kw_scores[rid], 6) if rid in kw_scores else None,
                )
            )
        gone = len(candidates) - len(stored)  # deleted since their vectors were read
        return SearchResult(hits, max(len(fused) - gone + max(extra, 0), len(hits)), coverage)

    async def coverage(self, account_id: str, *, vectors: bool = True) -> Coverage:
        if self.model is None:
            return Coverage(0, 0, False)
        backlog = await self.store.vector_backlog(account_id)
        stats = self._stats.get(account_id)
        records = stats.records if stats is not None else backlog.waiting
        return Coverage(backlog.waiting, max(records, backlog.waiting), vectors)

    async def backlog(self) -> Backlog:
        """Records of every workspace waiting for their vectors."""
        if self.model is None:
            return Backlog(0, None)
        self.last_backlog = await self.store.vector_backlog()
        return self.last_backlog

    async def wait_fresh(self, account_id: str, within: float) -> bool:
        """Wait until every record of the workspace queued so far has its vector (tests)."""
        with trio.move_on_after(within):
            while True:
                if not (await self.store.vector_backlog(account_id)).waiting:
                    await self.vectors_of(account_id)
                    return True
                await trio.sleep(WAIT_LOOK)
        return False


def backlog_age(backlog: Backlog) -> float:
    """Seconds the oldest waiting record has waited (0 when none waits)."""
    if backlog.oldest is None:
        return 0.0
    return max(0.0, time.time() - backlog.oldest)
