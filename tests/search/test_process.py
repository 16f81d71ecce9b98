"""The embedding process: records' vectors computed in a child at idle priority equal the
server's own, a dead child is replaced, and closing stops it, mid-call too."""

from __future__ import annotations

import os
import signal
import sys

import numpy as np
import pytest
import trio

from fieldhouse.search.embedder import make_embedder
from fieldhouse.search.process import EmbedderGone, EmbeddingProcess

TEXTS = ["Acme renewal, stage won, 12,000 USD", "call the supplier about late invoices", ""]


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


async def test_the_child_embeds_what_the_server_would() -> None:
    process = EmbeddingProcess("minilm")
    try:
        pid = await process.load()
        assert pid != os.getpid()
        vectors = await process.embed(TEXTS)
        windows = await process.embed_windows([*TEXTS, "long " * 300])
    finally:
        await process.aclose()
    assert gone(pid)  # closing waited for the child to exit
    assert vectors.shape == (3, 384) and vectors.dtype == np.float32
    here = make_embedder("minilm")
    np.testing.assert_allclose(vectors, here.embed(TEXTS), atol=1e-6)
    expected = here.embed_windows([*TEXTS, "long " * 300])
    assert [w.shape for w in windows] == [w.shape for w in expected]
    assert windows[-1].shape[0] > 1
    for got, want in zip(windows, expected, strict=True):
        np.testing.assert_allclose(got, want, atol=1e-6)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="SCHED_IDLE is Linux's")
async def test_the_child_runs_only_on_idle_cpu() -> None:
    process = EmbeddingProcess("none")
    try:
        pid = await process.load()
        assert os.sched_getscheduler(pid) == os.SCHED_IDLE
        assert os.getpriority(os.PRIO_PROCESS, pid) == 19
        assert os.sched_getscheduler(0) != os.SCHED_IDLE  # the server's own is untouched
    finally:
        await process.aclose()


async def test_a_killed_child_fails_its_call_and_the_next_call_starts_another() -> None:
    process = EmbeddingProcess("none")
    try:
        first = await process.load()
        os.kill(first, signal.SIGKILL)
        with pytest.raises(EmbedderGone):
            await process.embed(["lost"])
        second = await process.load()
        assert second != first
        assert (await process.embed(["a", "b"])).shape == (2, 0)
    finally:
        await process.aclose()


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
async def test_closing_stops_a_child_in_the_middle_of_a_long_call() -> None:
    process = EmbeddingProcess("minilm")
    texts = [
        f"record {i} " + "a long body of words about invoices and renewals " * 12
        for i in range(4000)
    ]
    outcome: list[str] = []

    async def embed_all() -> None:
        try:
            await process.embed(texts)  # minutes of CPU at idle priority
            outcome.append("finished")
        except EmbedderGone:
            outcome.append("gone")

    pid = await process.load()
    started = cpu_seconds(pid)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(embed_all)
        # the child is at work on the call: another process's CPU time has no event to wait on
        with trio.fail_after(60):
            while cpu_seconds(pid) < started + 0.5:  # noqa: ASYNC110
                await trio.sleep(0.05)
        with trio.fail_after(10):
            await process.aclose()
    assert gone(pid)
    assert outcome == ["gone"]  # the caller hears of it, as of a crash
