"""Records' vectors follow the store: claim the oldest queued records, embed what the keyword
index holds of them, store the vectors. One such loop runs per server (in its embedding
process, :mod:`.embed_process`, or in the server process itself), whatever the number of
workers; several servers over one PostgreSQL share the queue, each record claimed by one.
"""

from __future__ import annotations

import ctypes
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Protocol, cast

import numpy as np
import trio

from fieldhouse.model.search_doc import Doc
from fieldhouse.search.contract import Embedder, Matrix
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
#: a pass that found fewer than CHUNK records waits this long before the next, so a trickle of
#: writes is embedded a few at a time (a forward pass per record costs several times more CPU
#: a record than one for a few dozen), well within the lag a new record's vector may have
GATHER = 0.2
#: with a meter (the embedding process), a pass waits while the busiest of the server's
#: workers is more than BUSY_SHARE busy (a client writing as fast as it can, even on one
#: connection; a create costs a worker 1.7 ms of CPU, so 200/s is at most 0.4 of a core even
#: on one worker), looking again every BUSY_LOOK seconds, and runs anyway after YIELD_MOST:
#: under a full write load the words stay searchable at once and the vectors follow at a pass
#: every few seconds (the backlog is reported), catching up after
BUSY_SHARE = 0.7
BUSY_LOOK = 0.25
YIELD_MOST = 5.0
#: below this busy share (no worker has more than half its core's work) a pass may run wide
#: (on every core, at idle priority), WIDE_CHUNK records at a time: at 200 creates/s a single
#: thread fell behind (``benchmarks.search_freshness --rate 200``, machine load 1.6-2.3: vector
#: lag p99 18.3 s wide only below 0.1, 14.4 s below 0.5)
IDLE_SHARE = 0.5
WIDE_CHUNK = 2 * CHUNK

#: runs the embedder's blocking call somewhere (a lower-priority thread)
Runner = Callable[[Callable[[Sequence[str]], list[Matrix]], Sequence[str]], Awaitable[list[Matrix]]]


@dataclass
class Progress:
    """What the loop has done, for tests and the process's log."""

    embedded: int = 0
    passes: int = 0
    #: times the loop found the queue empty after embedding (and gave memory back)
    drained: int = 0
    changed: trio.Event = field(default_factory=trio.Event)

    def advance(self, records: int) -> None:
        self.embedded += records
        self.passes += 1
        self._changed()

    def drain(self) -> None:
        self.drained += 1
        self._changed()

    def _changed(self) -> None:
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


class Meter(Protocol):
    def share(self) -> float:
        """The machine's busy share at normal priority since the last look."""
        ...


async def yield_to_requests(meter: Meter) -> float:
    """Wait while the server is busy with requests (at most YIELD_MOST seconds); the busy
    share last read."""
    share = meter.share()
    if share < BUSY_SHARE:
        return share
    with trio.move_on_after(YIELD_MOST):
        while True:
            await trio.sleep(BUSY_LOOK)
            share = meter.share()
            if share < BUSY_SHARE:
                return share
    return share


@cache
def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim``, or None off glibc."""
    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return cast(Callable[[int], int], trim)


def give_back_memory() -> bool:
    """Hand the heap's free pages back to the system (glibc's ``malloc_trim``): a forward
    pass's activations are freed after it, but glibc keeps the pages of each thread's arena,
    so the embedding process stayed at its busiest size once a backlog had drained. Whether
    it could (False off glibc)."""
    trim = _malloc_trim()
    if trim is None:
        return False
    trim(0)
    return True


async def embed_forever(
    store: Store,
    embedder: Embedder,
    run: Runner,
    progress: Progress | None = None,
    *,
    wake: Callable[[], Awaitable[None]] | None = None,
    meter: Meter | None = None,
    wide: Runner | None = None,
) -> None:
    """Keep the store's vectors current until cancelled. ``wake``: waits for a sign that
    records were queued (else the queue is looked at every IDLE_LOOK seconds); ``meter``:
    passes yield to a server busy with requests (:func:`yield_to_requests`); ``wide``: runs
    a pass on more cores, used for passes of up to WIDE_CHUNK records while the meter reads
    less than IDLE_SHARE (a backlog drains that much faster once the writes stop)."""
    embedded_since_idle = False
    while True:
        runner, most = run, CHUNK
        if meter is not None:
            share = await yield_to_requests(meter)
            if wide is not None and share < IDLE_SHARE:
                runner, most = wide, WIDE_CHUNK
        try:
            done = await embed_once(store, embedder, runner, most)
        except Exception:
            log.warning("search: embedding queued records failed; trying again", exc_info=True)
            await trio.sleep(RETRY)
            continue
        if progress is not None and done:
            progress.advance(done)
        embedded_since_idle = embedded_since_idle or bool(done)
        if not done and embedded_since_idle:
            give_back_memory()  # the queue is empty: the passes' freed buffers go back
            embedded_since_idle = False
            if progress is not None:
                progress.drain()
        if done:
            if done < most:
                await trio.sleep(GATHER)
            else:
                await trio.lowlevel.checkpoint()
            continue
        with trio.move_on_after(IDLE_LOOK):
            if wake is not None:
                await wake()
            else:
                await trio.sleep_forever()
