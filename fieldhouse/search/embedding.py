"""Records' vectors follow the store: claim the oldest queued records, embed what the keyword
index holds of them, store the vectors. One such loop runs per server (in its embedding
process, :mod:`.embed_process`, or in the server process itself), whatever the number of
workers; several servers over one PostgreSQL share the queue, each record claimed by one.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import trio

from fieldhouse.model.search_doc import Doc
from fieldhouse.search.embedder import Embedder, Matrix
from fieldhouse.storage.store import Store
from fieldhouse.storage.vectors import Queued

log = logging.getLogger("fieldhouse.search")

#: records claimed and embedded at a time (a forward pass of up to 64 texts)
CHUNK = 64
#: seconds a claim holds: a loop that dies leaves its records to another after this
LEASE = 60.0
#: seconds between looks at an empty queue
IDLE_LOOK = 0.25
#: seconds before the store is tried again after it failed
RETRY = 1.0

#: runs the embedder's blocking call somewhere (a lower-priority thread)
Runner = Callable[[Callable[[Sequence[str]], list[Matrix]], Sequence[str]], Awaitable[list[Matrix]]]


@dataclass
class Progress:
    """What the loop has done, for tests and the process's log."""

    embedded: int = 0
    passes: int = 0
    changed: trio.Event = field(default_factory=trio.Event)

    def advance(self, records: int) -> None:
        self.embedded += records
        self.passes += 1
        self.changed.set()
        self.changed = trio.Event()


async def embed_once(store: Store, embedder: Embedder, run: Runner, most: int = CHUNK) -> int:
    """Claim up to ``most`` queued records, embed and store them; how many were claimed."""
    if not (await store.vector_backlog()).waiting:
        return 0  # (a read: a claim is a write, which would take the write lock each look)
    claimed = await store.claim_embedding(most, LEASE)
    if not claimed:
        return 0
    by_account: dict[str, list[Queued]] = {}
    for q in claimed:
        by_account.setdefault(q.account_id, []).append(q)
    for account_id, items in by_account.items():
        docs = await store.search_docs(account_id, [q.record_id for q in items])
        live = [q for q in items if docs.get(q.record_id, {}).get("stamp") == q.stamp]
        gone = [q for q in items if q not in live]
        if gone:  # deleted, or changed again (its new version is queued with its own stamp)
            await store.drop_queued(gone)
        if not live:
            continue
        texts = [_doc(q, docs[q.record_id]).embed_text for q in live]
        vecs = await run(embedder.embed_windows, texts)
        model = embedder.name
        await store.store_vectors(
            account_id,
            model,
            [
                (q.record_id, docs[q.record_id]["module"], q.stamp, _bytes(vec))
                for q, vec in zip(live, vecs, strict=True)
            ],
        )
    return len(claimed)


def _doc(q: Queued, stored: dict[str, str]) -> Doc:
    return Doc(
        q.record_id, stored["module"], stored["title"], stored["body"], stored["labels"], q.stamp
    )


def _bytes(vec: Matrix) -> bytes:
    return np.ascontiguousarray(vec, np.float32).tobytes()


async def embed_forever(
    store: Store,
    embedder: Embedder,
    run: Runner,
    progress: Progress | None = None,
    *,
    wake: Callable[[], Awaitable[None]] | None = None,
) -> None:
    """Keep the store's vectors current until cancelled. ``wake``: waits for a sign that
    records were queued (else the queue is looked at every IDLE_LOOK seconds)."""
    while True:
        try:
            done = await embed_once(store, embedder, run)
        except Exception:
            log.warning("search: embedding queued records failed; trying again", exc_info=True)
            await trio.sleep(RETRY)
            continue
        if progress is not None and done:
            progress.advance(done)
        if done:
            await trio.lowlevel.checkpoint()
            continue
        with trio.move_on_after(IDLE_LOOK):
            if wake is not None:
                await wake()
            else:
                await trio.sleep_forever()
