"""The indexer's vectors over a bare store (both backends): one forward pass carries the
records of several workspaces, a trickle is gathered into one pass, and every record version
is embedded exactly once, by one process or by several sharing the store."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
import trio
from trio.testing import wait_all_tasks_blocked

from fieldhouse.model.records import RecordRow
from fieldhouse.search import indexer as indexer_module
from fieldhouse.search.background import BusyMeter
from fieldhouse.search.embedder import Matrix, MiniLMEmbedder
from fieldhouse.search.indexer import EMBED_CHUNK, GATHER, Indexer, _shares
from fieldhouse.search.service import SearchService
from fieldhouse.storage import Store
from tests.storage.conftest import A, B, record, store, url  # noqa: F401

WAIT = 30.0


class Recording(MiniLMEmbedder):
    """The real embedder, remembering the texts of each forward pass."""

    def __init__(self) -> None:
        super().__init__()
        self.passes: list[list[str]] = []

    def embed_windows(self, texts: Sequence[str]) -> list[Matrix]:
        self.passes.append(list(texts))
        return super().embed_windows(texts)


class Load(BusyMeter):
    """The machine's load as the test sets it (the real meter reads the CPU counters, seen in
    tests/search/test_background.py)."""

    def __init__(self, busy: bool) -> None:
        super().__init__()
        self.busy = busy

    def share(self) -> float:
        return 0.9 if self.busy else 0.1


def rows(account: str, first: int, n: int) -> list[RecordRow]:
    """Records whose embedded text is their name (the title field repeats it)."""
    names = [f"{account} chore {i}" for i in range(first, first + n)]
    return [record(account, f"{account}-{i:02d}", t, title=t) for i, t in enumerate(names, first)]


@asynccontextmanager
async def running(
    root: Path,
    db: Store,
    embedder: Recording,
    *,
    share: bool = False,
    meter: BusyMeter | None = None,
) -> AsyncIterator[tuple[SearchService, Indexer]]:
    """An indexer following the store (both workspaces' indexes built, empty)."""
    service = SearchService(root, db, embedder)
    indexer = Indexer(service, poll_seconds=None, share_vectors=share, meter=meter)
    try:
        async with trio.open_nursery() as nursery:
            await nursery.start(indexer.run)
            for account in (A, B):
                assert await service.wait_fresh(account, WAIT)
            yield service, indexer
            nursery.cancel_scope.cancel()
    finally:
        with trio.CancelScope(shield=True):
            await service.aclose()


def vectors_of(service: SearchService, account: str, records: Sequence[RecordRow]) -> set[str]:
    stamps = service.indexes[account].vectors.stamps_of([r.record_id for r in records])
    return {rid for rid, stamp in stamps.items() if stamp}


async def test_a_trickle_from_two_workspaces_waits_for_a_chunk_then_is_one_pass(
    store: Store,  # noqa: F811
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(indexer_module, "GATHER", WAIT * 10)  # only a full chunk ends the wait
    embedder = Recording()
    async with running(tmp_path, store, embedder) as (service, indexer):
        a, b = rows(A, 0, 3), rows(B, 0, 2)
        await indexer.index_rows(A, a, ())
        await wait_all_tasks_blocked()
        await indexer.index_rows(B, b, ())
        await wait_all_tasks_blocked()
        assert embedder.passes == []  # fewer than a chunk: it waits for more
        more = rows(B, 2, EMBED_CHUNK - 5)
        await indexer.index_rows(B, more, ())
        assert await service.wait_fresh(A, WAIT) and await service.wait_fresh(B, WAIT)
        # one pass, both workspaces, every record once
        assert len(embedder.passes) == 1
        assert sorted(embedder.passes[0]) == sorted(r.display_name for r in [*a, *b, *more])
        assert vectors_of(service, A, a) == {r.record_id for r in a}
        assert vectors_of(service, B, b + more) == {r.record_id for r in b + more}


async def test_a_lone_record_waits_the_gather_time_and_no_longer_than_the_budget(
    store: Store,  # noqa: F811
    tmp_path: Path,
) -> None:
    embedder = Recording()
    async with running(tmp_path, store, embedder) as (service, indexer):
        one = rows(A, 0, 1)
        await indexer.index_rows(A, one, ())
        queued = trio.current_time()
        assert await service.wait_fresh(A, WAIT)
        assert GATHER <= trio.current_time() - queued < 2.0
        assert embedder.passes == [[one[0].display_name]]


async def test_two_processes_sharing_the_store_embed_each_record_once(
    store: Store,  # noqa: F811
    tmp_path: Path,
) -> None:
    first, second = Recording(), Recording()
    a, b = rows(A, 0, 40), rows(B, 0, 40)
    async with (
        running(tmp_path / "one", store, first, share=True) as (one, indexer_one),
        running(tmp_path / "two", store, second, share=True) as (two, indexer_two),
    ):
        async with trio.open_nursery() as nursery:
            for indexer in (indexer_one, indexer_two):
                nursery.start_soon(indexer.index_rows, A, a, ())
                nursery.start_soon(indexer.index_rows, B, b, ())
        for service in (one, two):
            assert await service.wait_fresh(A, WAIT) and await service.wait_fresh(B, WAIT)
            assert vectors_of(service, A, a) == {r.record_id for r in a}
            assert vectors_of(service, B, b) == {r.record_id for r in b}
        embedded = [t for p in first.passes + second.passes for t in p]
        assert sorted(embedded) == sorted(r.display_name for r in a + b)  # each once, in all


async def test_a_long_records_window_vectors_reach_the_other_process_whole(
    store: Store,  # noqa: F811
    tmp_path: Path,
) -> None:
    first, second = Recording(), Recording()
    text = "Quarterly accounts and invoices. " * 40 + "The puppy chases tennis balls."
    long = [record(A, f"{A}-long", "Weekly notes", title=text)]
    async with (
        running(tmp_path / "one", store, first, share=True) as (one, indexer_one),
        running(tmp_path / "two", store, second, share=True) as (two, indexer_two),
    ):
        await indexer_one.index_rows(A, long, ())
        assert await one.wait_fresh(A, WAIT)
        await indexer_two.index_rows(A, long, ())
        assert await two.wait_fresh(A, WAIT)
        assert second.passes == []  # read from the store, not embedded again
        q = first.embed(["a puppy playing with a ball"])[0]
        hits = [s.indexes[A].vectors.search(q, None, 1, 0.0).ranked for s in (one, two)]
        assert hits[0] == hits[1] and hits[0][0][0] == f"{A}-long"
        assert first.embed_windows([text])[0].shape[0] > 1


def test_a_pass_is_shared_fairly_between_workspaces() -> None:
    # a small backlog takes what it has, the rest is split between the others
    assert _shares(["big", "small", "mid"], {"big": 1000, "small": 2, "mid": 10}) == {
        "small": 2,
        "mid": 10,
        "big": EMBED_CHUNK - 12,
    }
    assert _shares(["x", "y"], {"x": 500, "y": 500}) == {"x": 32, "y": 32}
    # more workspaces than a chunk: the first EMBED_CHUNK get one each (the caller rotates)
    many = [f"w{i}" for i in range(EMBED_CHUNK + 6)]
    quota = _shares(many, dict.fromkeys(many, 3))
    assert quota == dict.fromkeys(many[:EMBED_CHUNK], 1)


async def test_on_a_busy_machine_a_pass_waits_for_a_quiet_moment_or_the_longest_yield(
    store: Store,  # noqa: F811
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(indexer_module, "YIELD_MOST", 1.0)
    load = Load(busy=True)
    embedder = Recording()
    async with running(tmp_path, store, embedder, meter=load) as (service, indexer):
        first = rows(A, 0, 1)
        await indexer.index_rows(A, first, ())
        queued = trio.current_time()
        # searchable by its words at once; its vector waits for the machine
        assert service.caught_up(A, vectors=False) and not service.caught_up(A)
        assert await service.wait_fresh(A, WAIT)
        assert trio.current_time() - queued >= 1.0  # held back while busy, then run anyway
        load.busy = False
        second = rows(A, 1, 1)
        await indexer.index_rows(A, second, ())
        queued = trio.current_time()
        assert await service.wait_fresh(A, WAIT)
        assert trio.current_time() - queued < 1.0  # a quiet machine: no more than the gathering
        assert embedder.passes == [[first[0].display_name], [second[0].display_name]]
