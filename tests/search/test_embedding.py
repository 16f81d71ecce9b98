"""The embedding loop over a real store: what it claims, embeds and stores."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from functools import partial

import numpy as np
import pytest
import trio
import trio.testing

from fieldhouse.runtime import Runtime
from fieldhouse.search.background import WorkersMeter
from fieldhouse.search.embedder import Matrix
from fieldhouse.search.embedding import (
    BUSY_LOOK,
    IDLE_SHARE,
    YIELD_MOST,
    Progress,
    Runner,
    embed_forever,
    embed_once,
    yield_to_requests,
)
from tests.conftest import make_workspace
from tests.search.test_background import burn_in_grandchildren
from tests.search.test_service import EMBEDDER, client_of, create, lagging  # noqa: F401


async def inline(fn: Callable[[Sequence[str]], list[Matrix]], texts: Sequence[str]) -> list[Matrix]:
    return fn(texts)


async def test_queued_records_get_their_vectors_once(lagging: Runtime) -> None:  # noqa: F811
    store = lagging.store
    ws = await make_workspace(lagging)
    async with client_of(lagging) as client:
        ids = [await create(client, ws, f"Company {i}") for i in range(3)]
    assert (await store.vector_backlog(ws.account_id)).waiting == 3
    assert await embed_once(store, EMBEDDER, inline) == 3
    assert (await store.vector_backlog(ws.account_id)).waiting == 0
    rows = await store.vectors_since(ws.account_id, EMBEDDER.name, 0, 100)
    assert sorted(r.record_id for r in rows) == sorted(ids)
    for r in rows:
        vec = np.frombuffer(r.vector, np.float32).reshape(-1, EMBEDDER.dim)
        assert np.allclose(np.linalg.norm(vec, axis=1), 1.0, atol=1e-3)
    assert await embed_once(store, EMBEDDER, inline) == 0  # nothing left to claim


async def test_a_record_changed_while_embedding_waits_for_its_new_vector(
    lagging: Runtime,  # noqa: F811
) -> None:
    store = lagging.store
    ws = await make_workspace(lagging)
    async with client_of(lagging) as client:
        rid = await create(client, ws, "Old name")
        seen: list[str] = []

        async def change_meanwhile(
            fn: Callable[[Sequence[str]], list[Matrix]], texts: Sequence[str]
        ) -> list[Matrix]:
            seen.extend(texts)
            resp = await client.patch(
                f"/v1/modules/companies/records/{rid}",
                json={"displayName": "New name", "fields": {"name": "New name"}},
                headers=ws.headers,
            )
            assert resp.status_code == 200, resp.text
            return fn(texts)

        await embed_once(store, EMBEDDER, change_meanwhile)
    assert seen and "Old name" in seen[0]
    # the old text's vector was not stored for the new version: the record still waits
    assert (await store.vector_backlog(ws.account_id)).waiting == 1
    assert await store.vectors_since(ws.account_id, EMBEDDER.name, 0, 10) == []
    await embed_once(store, EMBEDDER, inline)
    rows = await store.vectors_since(ws.account_id, EMBEDDER.name, 0, 10)
    assert [r.record_id for r in rows] == [rid]


class Shares:
    """A meter that reads out the shares it was given (then idle)."""

    def __init__(self, *shares: float) -> None:
        self.shares = list(shares)

    def share(self) -> float:
        return self.shares.pop(0) if self.shares else 0.0


async def test_passes_yield_to_a_busy_machine_for_a_bounded_time(
    autojump_clock: trio.testing.MockClock,
) -> None:
    start = trio.current_time()
    await yield_to_requests(Shares(0.1))
    assert trio.current_time() == start  # idle: at once
    await yield_to_requests(Shares(0.9, 0.9, 0.2))
    assert trio.current_time() - start == pytest.approx(2 * BUSY_LOOK)
    start = trio.current_time()
    await yield_to_requests(Shares(*[1.0] * 1000))
    assert trio.current_time() - start == pytest.approx(YIELD_MOST)  # busy for good: bounded


@pytest.mark.alone  # it keeps every core busy
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a process's children")
async def test_the_embedder_does_not_wait_for_other_programs_on_the_machine(
    lagging: Runtime,  # noqa: F811
) -> None:
    """The embedding process holds its passes back for the server's workers only: other
    programs keeping the machine busy are not requests to yield to."""
    ws = await make_workspace(lagging)
    async with client_of(lagging) as client:
        for i in range(3):
            await create(client, ws, f"Company {i}")
    await trio.to_thread.run_sync(EMBEDDER.load)
    meter = WorkersMeter(parent=os.getpid(), rescan=0)  # "workers": the burners' idle shells
    progress = Progress()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(burn_in_grandchildren, 3.0)  # every core busy for 3 s
        await trio.sleep(0.3)
        started = trio.current_time()
        async with trio.open_nursery() as embedding:
            embedding.start_soon(
                partial(embed_forever, lagging.store, EMBEDDER, inline, progress, meter=meter)
            )
            with trio.fail_after(YIELD_MOST):
                while progress.embedded < 3:
                    await progress.changed.wait()
            embedding.cancel_scope.cancel()
        assert trio.current_time() - started < 2.0  # the burners still burn: not held back


async def test_a_pass_runs_on_every_core_only_while_the_workers_are_idle(
    lagging: Runtime,  # noqa: F811
) -> None:
    ws = await make_workspace(lagging)
    used: list[tuple[str, int]] = []

    def runner(name: str) -> Runner:
        async def run(
            fn: Callable[[Sequence[str]], list[Matrix]], texts: Sequence[str]
        ) -> list[Matrix]:
            used.append((name, len(texts)))
            return fn(texts)

        return run

    progress = Progress()
    loop = partial(
        embed_forever,
        lagging.store,
        EMBEDDER,
        runner("one"),
        progress,
        meter=Shares(IDLE_SHARE + 0.1),  # busy a little, then idle
        wide=runner("wide"),
    )
    async with client_of(lagging) as client, trio.open_nursery() as nursery:
        for i in range(3):
            await create(client, ws, f"Company {i}")
        nursery.start_soon(loop)
        with trio.fail_after(30):
            await progress.changed.wait()
            for i in range(2):
                await create(client, ws, f"Firm {i}")
            while progress.embedded < 5:
                await progress.changed.wait()
        nursery.cancel_scope.cancel()
    assert used == [("one", 3), ("wide", 2)]


def _rss_mb() -> float:
    with open("/proc/self/status") as status:
        kb = next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))
    return kb / 1024


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc_trim")
async def test_the_embedding_loop_gives_freed_memory_back_once_the_queue_drains(
    lagging: Runtime,  # noqa: F811
) -> None:
    """A forward pass's buffers are freed after it, but glibc kept their pages: the embedding
    process stayed at its busiest size (283-364 MB against 175 idle, after 480 creates). The
    loop hands them back when it finds the queue empty."""
    kept: list[bytearray] = []

    def churn() -> float:
        chunks = [bytearray(60_000) for _ in range(2_000)]  # ~120 MB of heap, as a pass's
        kept.append(chunks[-1])  # the last one pins the heap's top: no trim on free
        del chunks
        return _rss_mb()

    await trio.to_thread.run_sync(EMBEDDER.load)  # the model's own memory is not in question
    before = await trio.to_thread.run_sync(churn)
    progress = Progress()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(partial(embed_forever, lagging.store, EMBEDDER, inline, progress))
        ws = await make_workspace(lagging)
        async with client_of(lagging) as client:
            await create(client, ws, "Company 1")
        with trio.fail_after(30):
            while progress.drained < 1:
                await progress.changed.wait()
        nursery.cancel_scope.cancel()
    assert progress.embedded == 1
    assert _rss_mb() < before - 60  # the ~120 MB freed went back (old code: all kept)
