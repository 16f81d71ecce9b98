"""The indexer: one trio task that keeps every workspace's index in step with the store.

Events arrive from the ActorSystem subscriber in an unbounded queue of changes (the subscriber
never blocks an actor, and no change is ever dropped, so a burst of writes never costs a re-read
of the whole workspace). The task drains the queue in batches, reads the changed records from
the store, embeds and indexes them in a worker thread, and records the highest sequence number
it has applied; a newly opened workspace is synced by comparing the index with the store.

When the store is shared between server processes, writes made through another process raise
no event here, so a poller follows each workspace's activity sequence in the store: every
POLL_SECONDS it reads the entries after the last one it saw (``Store.activity_since``) and
feeds them through the same channel, and it picks up workspaces created elsewhere. The index
saves the sequence it has applied, so a restart resumes from there. Local events remain the
fast path; an entry seen both ways is indexed once (a polled change whose record is already
indexed with the same stamp is skipped).
"""

from __future__ import annotations

import itertools
import logging
import math
import time
from collections.abc import AsyncIterator, Collection, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np
import trio

from fieldhouse.config import Settings
from fieldhouse.model.records import RecordRow
from fieldhouse.model.schema import ModuleSchema
from fieldhouse.search.background import BusyMeter
from fieldhouse.search.documents import Doc, record_doc
from fieldhouse.search.embedder import Matrix, make_embedder
from fieldhouse.search.engine import WorkspaceIndex
from fieldhouse.search.keyword import IndexCorrupt
from fieldhouse.search.process import EmbeddingProcess
from fieldhouse.search.service import ChangeEvent, SearchService, search_root
from fieldhouse.storage.store import Store

log = logging.getLogger("fieldhouse.search")

#: changes per batch: a burst is indexed in batches of this size, each searchable when done
MAX_BATCH_EVENTS = 256
BATCH_WINDOW = 0.05  # seconds the indexer waits for more changes when it has only a few
EMBED_CHUNK = 64  # texts per forward pass (and per call into the embedding thread)
#: seconds a backlog smaller than a chunk waits for more records (all workspaces together):
#: under a trickle one pass for several records costs less CPU per record than one each, and
#: a record still has its vector well within the 2 s freshness budget
GATHER = 0.1
PAGE = 500
#: vectors are saved at most every SAVE_SECONDS * rows / SAVE_EVERY_ROWS seconds (capped at
#: SAVE_SECONDS): each save rewrites the workspace's whole vector file, so the interval grows
#: with it and the bytes written stay near 1.5 KB * SAVE_EVERY_ROWS / SAVE_SECONDS (~1 MB/s)
#: whatever the size; a clean shutdown saves everything, a crash re-embeds only the tail
SAVE_EVERY_ROWS = 20_000
SAVE_SECONDS = 30.0
OPTIMIZE_AFTER = 5_000  # a sync that indexed this many merges the keyword segments
POLL_SECONDS = 0.5  # how often a shared store's activity is read for other processes' writes
POLL_PAGE = 500
#: ids per read of the changed records: a read of more took past the 2 ms a read may run on
#: the trio thread (sqlite.INLINE_READ_SECONDS), was thrown away and run again on a thread
READ_IDS = 100
#: seconds a claim to embed a record may stay without its vector before another process takes
#: it over (the claimer died, say): the bound on waiting for another process's vector
CLAIM_STALE = 10.0
HOLD = 0.2  # seconds before a record another process is embedding is looked up again
STORE_RETRY = 1.0  # seconds before embedding is tried again after the store failed
#: with the embedding in its own process (the server's default), a forward pass waits while
#: the machine's CPU is more than BUSY_SHARE busy at normal priority (requests), looking
#: again every BUSY_LOOK seconds, and runs anyway after YIELD_MOST: under sustained load the
#: vectors still come, a pass every YIELD_MOST seconds a worker, and words stay searchable at
#: once (an embedding process at idle priority slowed the workers by 12-25%: .background)
BUSY_SHARE = 0.5
BUSY_LOOK = 0.25
YIELD_MOST = 5.0


@dataclass(frozen=True)
class PolledChange:
    """An activity entry read from the store (it may come from another process)."""

    account_id: str
    seq: int | None
    record_id: str | None


async def live_records(store: Store, account_id: str) -> AsyncIterator[list[RecordRow]]:
    """Every live record of a workspace, in pages (keyset on id)."""
    last = ""
    while True:
        rows = await store.records_after(account_id, last, PAGE)
        if not rows:
            return
        yield rows
        last = rows[-1].record_id


class Indexer:
    """Keeps the indexes in step with the store. With ``share_vectors`` (several processes on
    one database) a record's vector is read from the store when another process embedded it,
    and what this process embeds is stored for the others: each version embedded once."""

    def __init__(
        self,
        service: SearchService,
        *,
        poll_seconds: float | None = None,
        share_vectors: bool = False,
        meter: BusyMeter | None = None,
    ) -> None:
        self.service = service
        self.store = service.store
        self.share_vectors = share_vectors
        #: records another process is embedding, per workspace: id -> when to look again
        self._held: dict[str, dict[str, float]] = {}
        self._queued = trio.Event()
        #: trio time each workspace's embedding backlog last went from empty to not empty
        self._since: dict[str, float] = {}
        self._schemas: dict[str, tuple[int, dict[str, ModuleSchema]]] = {}
        self._saved_at: dict[str, float] = {}
        if poll_seconds is None and self.store.shared_between_processes:
            poll_seconds = POLL_SECONDS
        #: None: no other process writes this store, local events tell everything
        self.poll_seconds = poll_seconds
        self._syncing: set[str] = set()
        self._fetched: dict[str, int] = {}  # the poller's cursor per workspace
        #: per workspace, the activity entries of this process's own writes that its index
        #: took from their events: the poller skips them (the record was read after that
        #: commit) instead of reading each record again (only while polling)
        self._mine: dict[str, set[int]] = {}
        #: how busy the machine is: forward passes yield to a busy machine (None: never)
        self._meter = meter
        #: trio time the embedding began to wait for a busy machine (inf: not waiting)
        self._yielding_since = math.inf
        self._looked_at = -math.inf
        self._busy = False
        self._known: set[str] = set()

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """Open (or rebuild) every workspace's index, then follow the events (and, for a
        shared store, the store's activity) until cancelled."""
        task_status.started()
        for account in await self.store.list_accounts():
            self._known.add(account.account_id)
            await self._guarded(account.account_id, self.ensure, account.account_id)
            await self._drain()
        async with trio.open_nursery() as nursery:
            if self.poll_seconds is not None:
                nursery.start_soon(self._poll_forever, self.poll_seconds)
            nursery.start_soon(self._embed_forever)
            await self._drain(forever=True)
            nursery.cancel_scope.cancel()

    async def _poll_forever(self, seconds: float) -> None:
        while True:
            await trio.sleep(seconds)
            try:
                await self.poll()
            except Exception:  # the store is down, say: try again next time
                log.warning("search: reading the store's activity failed", exc_info=True)

    async def poll(self) -> None:
        """Queue the activity entries written since the last poll (by any process), and a
        first event for each workspace not seen before."""
        for row in await self.store.list_accounts():
            account = row.account_id
            if account not in self._known:
                self._known.add(account)
                if account not in self.service.indexes:
                    self.service.notify([PolledChange(account, None, None)])
                    continue
            index = self.service.indexes.get(account)
            if index is None or account in self._syncing or account in self.service.building:
                continue  # its (re)build reads the store whole
            cursor = max(self._fetched.get(account, 0), index.seq)
            mine = self._mine.get(account, set())
            while True:
                entries = await self.store.activity_since(account, cursor, POLL_PAGE)
                if not entries:
                    break
                seqs = [int(e["seq"]) for e in entries]
                events: list[ChangeEvent] = [
                    PolledChange(account, seq, e["recordId"])
                    for seq, e in zip(seqs, entries, strict=True)
                    if seq not in mine
                ]
                cursor = max(cursor, *seqs)
                if seqs[-1] in mine:  # the entries up to the page's last are all taken
                    events.append(PolledChange(account, seqs[-1], None))
                self.service.notify(events)
                if len(entries) < POLL_PAGE:
                    break
            self._fetched[account] = cursor
            if mine:
                self._mine[account] = {seq for seq in mine if seq > cursor}

    async def _drain(self, *, forever: bool = False) -> None:
        """Words only: each turn takes every waiting change and indexes it by its words
        (searchable at once); vectors follow in :meth:`_embed_forever`, which never holds
        this up."""
        while True:
            while self.service.dirty:
                account = self.service.dirty.pop()
                await self._guarded(account, self.sync, account)
            while self.service.want_grams:
                account = self.service.want_grams.pop()
                await self._guarded(account, self._fill_grams, account)
            if not self.service.pending:
                if not forever:
                    return
                await self.service.wait_pending()
                if not self.service.pending:
                    continue  # a trigram index asked for
                if len(self.service.pending) < EMBED_CHUNK:
                    # a moment for more changes to arrive: one commit for many records costs
                    # far less than one each (freshness waits this long)
                    await trio.sleep(BATCH_WINDOW)
            events = self.service.take_pending(len(self.service.pending))
            by_account: dict[str, list[ChangeEvent]] = {}
            for event in events:
                by_account.setdefault(event.account_id, []).append(event)
            for account, changes in by_account.items():
                await self._guarded(account, self._apply_events, account, changes)

    async def _embed_forever(self) -> None:
        """Vectors: each turn is one forward pass over queued records of every workspace
        that has some (a fair share of a chunk each), after at most GATHER seconds of waiting
        for a chunk to fill."""
        turn = 0
        retry: dict[str, float] = {}
        while True:
            self._queued = trio.Event()
            now = trio.current_time()
            ready = sorted(a for a in self.service.to_embed if retry.get(a, -math.inf) <= now)
            if not ready:
                wake = min((retry[a] for a in self.service.to_embed if a in retry), default=None)
                with trio.move_on_at(math.inf if wake is None else wake):
                    await self._queued.wait()
                continue
            if self._meter is not None and await self._yield_to_requests():
                continue  # the backlog may have moved meanwhile: look again
            sizes = {a: len(self.service.to_embed[a]) for a in ready}
            gather_until = min(self._since.get(a, now) for a in ready) + GATHER
            if sum(sizes.values()) < EMBED_CHUNK and now < gather_until:
                with trio.move_on_at(gather_until):
                    await self._queued.wait()
                continue  # look again: more records, or the time is up
            first = turn % len(ready)
            quota = _shares(ready[first:] + ready[:first], sizes)
            turn += 1
            try:
                later = await self.embed_batch(quota)
            except Exception:  # the store or the embedder failed: try again a little later
                log.warning("search: embedding for %s failed", sorted(quota), exc_info=True)
                later = dict.fromkeys(quota, trio.current_time() + STORE_RETRY)
            for account in quota:
                retry.pop(account, None)
                if account in later:
                    retry[account] = later[account]
                async with self.service.steps.setdefault(account, trio.Lock()):
                    await self._maybe_save(account)

    async def _yield_to_requests(self) -> bool:
        """Wait while the machine is busy (see BUSY_SHARE), for up to YIELD_MOST seconds from
        when the wait began; whether it waited. The next pass then runs whatever the load."""
        assert self._meter is not None
        now = trio.current_time()
        if now - self._looked_at >= BUSY_LOOK / 5:  # (a shorter look counts a tick or two)
            self._busy = self._meter.share() >= BUSY_SHARE
            self._looked_at = now
        if not self._busy or now - self._yielding_since >= YIELD_MOST:
            self._yielding_since = math.inf
            return False
        self._yielding_since = min(self._yielding_since, now)
        await trio.sleep(BUSY_LOOK)
        return True

    async def _guarded(self, account: str, fn: Any, *args: Any) -> None:
        """Run one workspace's step; a failure makes that workspace unavailable (search then
        answers with the fallback) until its next event retries, and never stops the task."""
        try:
            async with self.service.steps.setdefault(account, trio.Lock()):
                await fn(*args)
        except Exception:
            log.exception("search index of workspace %s failed; it is unavailable", account)
            index = self.service.indexes.pop(account, None)
            self.service.building.discard(account)
            self.service.to_embed.pop(account, None)
            if index is not None:
                with trio.CancelScope(shield=True):
                    await self._thread(index.close)
            self.service.progressed()

    async def _apply_events(self, account: str, events: Sequence[ChangeEvent]) -> None:
        if account not in self.service.indexes:
            await self.ensure(account)
        ids = list(dict.fromkeys(e.record_id for e in events if e.record_id))
        if account not in self.service.indexes:
            return
        index = self.service.indexes[account]
        if ids:
            rows = []
            for start in range(0, len(ids), READ_IDS):
                rows += await self.store.get_records(account, ids[start : start + READ_IDS])
            live = {r.record_id for r in rows}
            # a change may already be indexed at the version read here: a sync read it, or
            # (polled) this process made it, or an earlier batch held a later event of it;
            # such a record is not embedded again
            have: dict[str, str] = await self._thread(index.current, [r.record_id for r in rows])
            # indexed by its words, its vector to come (looked up per row: the backlog holds
            # thousands while the vectors lag, and walking it per batch cost 10% of a core)
            queued = self.service.to_embed.get(account, {})
            for row in rows:
                doc = queued.get(row.record_id)
                if doc is not None:
                    have.setdefault(row.record_id, doc.stamp)
            rows = [r for r in rows if have.get(r.record_id) != r.updated_at]
            await self.index_rows(account, rows, [i for i in ids if i not in live])
        polled_seqs = [e.seq for e in events if isinstance(e, PolledChange) and e.seq is not None]
        if polled_seqs:  # polled entries arrive in order, with none left out
            index.seq = max(index.seq, *polled_seqs)
        await self._maybe_save(account)
        seqs = [e.seq for e in events if e.seq is not None]
        if seqs:
            self.service.indexed[account] = max(self.service.indexed.get(account, 0), *seqs)
        if self.poll_seconds is not None:
            local = [e.seq for e in events if e.seq is not None and not isinstance(e, PolledChange)]
            if local:
                self._mine.setdefault(account, set()).update(local)
        self.service.progressed()

    async def _fill_grams(self, account: str) -> None:
        index = self.service.indexes.get(account)
        if index is not None:
            await self._thread(index.keyword.fill_grams)
        self.service.progressed()

    async def _thread(self, fn: Any, *args: Any) -> Any:
        return await trio.to_thread.run_sync(fn, *args, limiter=self.service.write_limiter)

    async def ensure(self, account: str) -> None:
        """Open the workspace's index; a missing or damaged one is rebuilt from the store."""
        path = self.service.path(account)
        try:
            index = await self._thread(
                lambda: WorkspaceIndex.open(path, self.service.embedder, create=False)
            )
        except IndexCorrupt as exc:
            if path.exists():
                log.warning("search index of %s unusable (%s); rebuilding", account, exc)
            else:
                log.info("search: building the index of workspace %s", account)
            await self._rebuild(account)
            return
        self.service.indexes[account] = index
        await self.sync(account)

    async def rebuild(self, account: str) -> int:
        """Throw the index away and index every live record again; unavailable meanwhile."""
        self.service.building.add(account)  # unavailable from now, not when its turn comes
        try:
            async with self.service.steps.setdefault(account, trio.Lock()):
                return await self._rebuild(account)
        finally:
            self.service.building.discard(account)

    async def _rebuild(self, account: str) -> int:
        self.service.building.add(account)
        try:
            old = self.service.indexes.pop(account, None)
            path = self.service.path(account)

            def fresh() -> WorkspaceIndex:
                if old is not None:
                    old.close()
                WorkspaceIndex.wipe(path)
                return WorkspaceIndex.open(path, self.service.embedder, create=True)

            self.service.indexes[account] = await self._thread(fresh)
            return await self.sync(account)
        finally:
            self.service.building.discard(account)
            self.service.progressed()

    async def sync(self, account: str) -> int:
        """Make the index equal to the store; return how many records were (re)indexed."""
        index = self.service.indexes.get(account)
        if index is None:
            await self.ensure(account)
            return 0
        self._syncing.add(account)
        try:
            return await self._sync(account, index)
        finally:
            self._syncing.discard(account)

    async def _sync(self, account: str, index: WorkspaceIndex) -> int:
        self.service.dirty.discard(account)
        target = self.service.published.get(account, 0)
        head = await self._head(account)  # what the records read below include at least
        have: dict[str, str] = await self._thread(index.stamps)
        seen: set[str] = set()
        todo: list[RecordRow] = []
        done = 0
        async for rows in live_records(self.store, account):
            for row in rows:
                seen.add(row.record_id)
                if have.get(row.record_id) != row.updated_at:
                    todo.append(row)
            if len(todo) >= PAGE:
                done += await self.index_rows(account, todo, ())
                todo = []
        gone = [rid for rid in have if rid not in seen]
        done += await self.index_rows(account, todo, gone)
        await self.embed_all(account)
        if done >= OPTIMIZE_AFTER:
            await self._thread(index.optimize)
        index.seq = max(index.seq, head)
        await self._maybe_save(account, force=True)
        self.service.indexed[account] = max(self.service.indexed.get(account, 0), target)
        self.service.progressed()
        if done or gone:
            log.info("search: synced %s (%d indexed, %d removed)", account, done, len(gone))
        return done

    async def _head(self, account: str) -> int:
        """The workspace's latest activity sequence number (0 without activity)."""
        latest = await self.store.list_activity(
            account, module_ids=None, record_id=None, types=(), limit=1
        )
        return int(latest[0]["seq"]) if latest else 0

    async def index_rows(
        self, account: str, rows: Sequence[RecordRow], deletes: Collection[str]
    ) -> int:
        """Index ``rows`` by their words (searchable at once) and queue them for embedding,
        drop ``deletes``; return the number of rows indexed. A record queued twice before its
        turn is embedded once, at its latest version."""
        index = self.service.indexes[account]
        backlog = self.service.to_embed.get(account, {})
        for rid in deletes:
            backlog.pop(rid, None)
        if deletes and self.share_vectors and self.service.embedder.dim:
            await self.store.delete_vectors(account, list(deletes))
        if not rows:
            if deletes:
                await self._thread(index.apply, [], None, list(deletes))
            return 0
        schemas = await self._module_schemas(account)
        named = await self.store.list_labels(account)
        labels = {str(x["id"]): str(x.get("name", "")) for x in named}
        docs = [record_doc(r, schemas.get(r.module_id), labels) for r in rows]
        for start in range(0, len(docs), EMBED_CHUNK * 8):
            part = docs[start : start + EMBED_CHUNK * 8]
            await self._thread(index.apply, part, None, list(deletes) if start == 0 else [])
        if self.service.embedder.dim:
            backlog = self.service.to_embed.setdefault(account, {})
            if not backlog:
                self._since[account] = trio.current_time()
            for doc in docs:
                backlog.pop(doc.record_id, None)  # to the end: the latest version
                backlog[doc.record_id] = doc
            self._queued.set()
        return len(docs)

    async def embed_some(
        self, account: str, most: int = EMBED_CHUNK, *, locked: bool = False
    ) -> float | None:
        """Give up to ``most`` of the workspace's queued records their vectors (see
        :meth:`embed_batch`); ``locked``: the caller holds the workspace's step lock."""
        return (await self.embed_batch({account: most}, locked=locked)).get(account)

    async def embed_batch(self, quota: dict[str, int], *, locked: bool = False) -> dict[str, float]:
        """Give up to ``quota[account]`` queued records of each workspace their vectors (read
        from the store, or embedded here, all in one forward pass). Return, per workspace
        that made no progress, the trio time from which to look again: another process is
        embedding its records."""
        now = trio.current_time()
        later: dict[str, float] = {}
        picked: dict[str, list[Doc]] = {}
        for account, most in quota.items():
            backlog = self.service.to_embed.get(account)
            if not backlog or account not in self.service.indexes:
                self._done(account)
                continue
            held = self._held.setdefault(account, {})
            # they stay queued until their vectors are in: the workspace is not fresh before
            docs = list(
                itertools.islice(
                    (d for rid, d in backlog.items() if held.get(rid, -math.inf) <= now), most
                )
            )
            if docs:
                picked[account] = docs
            else:
                later[account] = min(held[rid] for rid in backlog if rid in held)
        found: dict[str, dict[str, Matrix]] = {}
        mine: list[tuple[str, Doc]] = []
        for account, docs in picked.items():
            found[account], claimed = await self._claim(account, docs)
            mine.extend((account, d) for d in claimed)
        if mine:
            # below requests in priority; meanwhile the event loop runs requests
            windows = await self.service.embed_records([d.embed_text for _, d in mine])
            for (account, d), mat in zip(mine, windows, strict=True):
                found[account][d.record_id] = mat
        for account, vectors in found.items():
            embedded = [d for a, d in mine if a == account]
            if embedded:
                log.info("search: embedded %d records of workspace %s", len(embedded), account)
            await self._keep(account, picked[account], vectors, embedded, locked=locked)
            if not any(d.record_id in vectors for d in picked[account]):
                later[account] = now + HOLD
        self.service.progressed()
        return later

    def _done(self, account: str) -> None:
        self.service.to_embed.pop(account, None)
        self._held.pop(account, None)
        self._since.pop(account, None)

    async def _keep(
        self,
        account: str,
        docs: Sequence[Doc],
        vectors: dict[str, Matrix],
        embedded: Sequence[Doc],
        *,
        locked: bool,
    ) -> None:
        """Store the vectors ``embedded`` here for the other processes, add those of ``docs``
        to be had to the index and take them off the backlog; the rest wait HOLD seconds."""
        if self.share_vectors and embedded:
            items = [
                (d.record_id, d.stamp, np.asarray(vectors[d.record_id], dtype="<f4").tobytes())
                for d in embedded
            ]
            await self.store.put_vectors(account, self.service.embedder.name, items)
        ready = [d for d in docs if d.record_id in vectors]
        held = self._held.setdefault(account, {})
        for doc in docs:
            if doc.record_id not in vectors:
                held[doc.record_id] = trio.current_time() + HOLD
        if ready:
            mats = [vectors[d.record_id] for d in ready]
            if locked:
                await self._add_vectors(account, ready, mats)
            else:
                async with self.service.steps.setdefault(account, trio.Lock()):
                    await self._add_vectors(account, ready, mats)
        backlog = self.service.to_embed.get(account, {})
        for doc in ready:
            held.pop(doc.record_id, None)
            if backlog.get(doc.record_id) is doc:
                del backlog[doc.record_id]
        if not backlog:
            self._done(account)

    async def _add_vectors(self, account: str, docs: Sequence[Doc], mats: list[Matrix]) -> None:
        # a record changed or deleted meanwhile is skipped (a newer version is queued)
        index = self.service.indexes.get(account)
        if index is not None:
            await self._thread(index.add_vectors, docs, mats)

    async def _claim(
        self, account: str, docs: Sequence[Doc]
    ) -> tuple[dict[str, Matrix], list[Doc]]:
        """The vectors of ``docs`` another process stored already, and the ``docs`` this
        process is to embed: all of them, or with shared vectors those it claimed (those
        another process claimed and has not stored yet are in neither)."""
        embedder = self.service.embedder
        if not self.share_vectors:
            return {}, list(docs)
        keys = [(d.record_id, d.stamp) for d in docs]
        stored = await self.store.get_vectors(account, embedder.name, keys)
        # a record's window vectors, one after the other
        found = {
            rid: np.frombuffer(raw, dtype="<f4").astype(np.float32).reshape(-1, embedder.dim)
            for rid, raw in stored.items()
            if raw and len(raw) % (4 * embedder.dim) == 0
        }
        missing = [k for k in keys if k[0] not in found]
        claimed: set[str] = set()
        if missing:
            claimed = set(
                await self.store.claim_vectors(
                    account, embedder.name, missing, time.time(), CLAIM_STALE
                )
            )
        return found, [d for d in docs if d.record_id in claimed]

    async def embed_all(self, account: str) -> None:
        """Every queued record of the workspace gets its vector (the caller holds its lock)."""
        while self.service.to_embed.get(account):
            later = await self.embed_some(account, locked=True)
            if later is not None:
                await trio.sleep_until(later)

    async def _module_schemas(self, account: str) -> dict[str, ModuleSchema]:
        """Module id -> schema, reloaded when the workspace's schema version moves."""
        version = await self.store.schema_version(account)
        cached = self._schemas.get(account)
        if cached is None or cached[0] != version:
            version, by_slug = await self.store.load_schemas(account)
            cached = (version, {s.module.module_id: s for s in by_slug.values()})
            self._schemas[account] = cached
        return cached[1]

    async def _maybe_save(self, account: str, *, force: bool = False) -> None:
        index = self.service.indexes.get(account)
        if index is None or not index.unsaved:
            return
        now = trio.current_time()
        last = self._saved_at.get(account, -math.inf)
        if force or now - last >= save_interval(len(index.vectors)):
            await self._thread(index.save_vectors)
            self._saved_at[account] = now


def save_interval(rows: int) -> float:
    """Seconds between two saves of a vector file of ``rows`` vectors (see SAVE_EVERY_ROWS)."""
    return SAVE_SECONDS * min(1.0, rows / SAVE_EVERY_ROWS)


def _shares(accounts: Sequence[str], sizes: dict[str, int]) -> dict[str, int]:
    """How many queued records of each workspace one forward pass takes: EMBED_CHUNK split
    evenly, a workspace with fewer leaving the rest to the others, at least one each; at most
    EMBED_CHUNK workspaces, the first ones of ``accounts`` (the caller rotates it)."""
    chosen = list(accounts[:EMBED_CHUNK])
    left = EMBED_CHUNK
    quota: dict[str, int] = {}
    for k, account in enumerate(sorted(chosen, key=lambda a: sizes[a])):
        quota[account] = max(1, min(sizes[account], left // (len(chosen) - k)))
        left -= quota[account]
    return quota


def shares_vectors(settings: Settings, store: Store) -> bool:
    """Whether vectors go through the store: when other processes may index the same records
    (several workers, or a database shared between servers)."""
    return settings.workers > 1 or store.shared_between_processes


async def rebuild_indexes(
    settings: Settings, store: Store, accounts: Sequence[str] | None = None
) -> int:
    """Rebuild the indexes of ``accounts`` (default: all) from the store; return how many
    records were indexed. Run it while no server uses the same data directory."""
    service = SearchService(search_root(settings), store, make_embedder(settings.embedder))
    indexer = Indexer(service, share_vectors=shares_vectors(settings, store))
    if accounts is None:
        accounts = [a.account_id for a in await store.list_accounts()]
    try:
        total = 0
        for account in accounts:
            total += await indexer.rebuild(account)
        return total
    finally:
        with trio.CancelScope(shield=True):
            await service.aclose()


@asynccontextmanager
async def open_search_service(settings: Settings, store: Store) -> AsyncIterator[SearchService]:
    """The service with its indexer running; indexes are saved and closed on exit."""
    service = SearchService(search_root(settings), store, make_embedder(settings.embedder))
    try:
        # the model's weights, graph and int8 calibration are read before the process serves,
        # not by the first writes' embedding while requests wait for the CPU (once per process,
        # and once in the embedding process, which reads its copy meanwhile)
        async with trio.open_nursery() as loading:
            if settings.embedding_process and service.embedder.dim:
                service.process = EmbeddingProcess(settings.embedder)
                loading.start_soon(service.process.load)
            await service.background.run(service.embedder.load)
        async with trio.open_nursery() as nursery:
            # worker processes of one server share the store: follow what the others write
            poll = POLL_SECONDS if settings.workers > 1 else None
            indexer = Indexer(
                service,
                poll_seconds=poll,
                share_vectors=shares_vectors(settings, store),
                # in its own process the embedding can wait for a quiet moment; in a thread of
                # the server it runs beside the requests whatever it does
                meter=BusyMeter() if service.process is not None else None,
            )
            await nursery.start(indexer.run)
            try:
                yield service
            finally:
                nursery.cancel_scope.cancel()
    finally:
        with trio.CancelScope(shield=True):
            await service.aclose()
