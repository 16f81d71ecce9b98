"""Record embedding in a child process of its own, below the server in priority.

In a thread of the server process, a lower priority does not hold: the embedding thread takes
the GIL back after every forward pass, and CPython makes the thread that gives the GIL up wait
until the taker has it, so request handling waited for a thread the kernel was told to run
last (measured: creates at 16 connections with search on ran 30-45% slower than with the
embedder off; with the embedding in a child they do not). The child shares no GIL with the
server: it reads texts from a pipe, embeds them with the configured model and sends the
vectors back, with ``SCHED_IDLE`` scheduling (Linux: it runs on what CPU the server leaves
idle), else the highest nice value. A query's text is still embedded in the server process, at
request priority; both load the same model, so a record's vector and a query's compare.

A child that dies (killed, out of memory) is replaced on the next call; the call that was in
flight raises :class:`EmbedderGone` and the indexer tries its records again. Closing kills the
child, mid-call or not.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import TypeVar

import trio

from fieldhouse.search.background import wait_for
from fieldhouse.search.embedder import Embedder, Matrix, make_embedder

log = logging.getLogger("fieldhouse.search")

T = TypeVar("T")

#: the embedder of the child process (set by its initializer)
_model: Embedder | None = None


class EmbedderGone(Exception):
    """The embedding process died while it had the call."""


def _start_child(choice: str) -> None:
    global _model
    # last in line for the CPU: idle scheduling where Linux allows it, else the highest nice
    with contextlib.suppress(AttributeError, OSError):
        os.nice(19)
    with contextlib.suppress(AttributeError, OSError):
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    # every core: at idle priority the extra threads only take what requests leave unused
    _model = make_embedder(choice, threads=os.cpu_count() or 1)


def _load() -> int:
    assert _model is not None
    _model.load()
    return os.getpid()


def _embed(texts: Sequence[str]) -> Matrix:
    assert _model is not None
    return _model.embed(texts)


def _embed_windows(texts: Sequence[str]) -> list[Matrix]:
    assert _model is not None
    return _model.embed_windows(texts)


class EmbeddingProcess:
    """Embeds texts with the embedder named ``choice`` in one child process, a call at a time."""

    def __init__(self, choice: str) -> None:
        self.choice = choice
        #: the child's process id, once loaded
        self.pid: int | None = None
        self._pool: ProcessPoolExecutor | None = None

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            # spawn: the server process runs threads, which a fork would copy in mid-step
            self._pool = ProcessPoolExecutor(
                1,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_start_child,
                initargs=(self.choice,),
            )
        return self._pool

    async def _call(self, fn: Callable[..., T], *args: object) -> T:
        try:
            # a pool that already knows its child died refuses at once
            return await wait_for(self._executor().submit(fn, *args))
        except BrokenProcessPool as exc:
            log.warning("search: the embedding process died; a new one starts")
            pool, self._pool = self._pool, None
            if pool is not None:
                pool.shutdown(wait=False, cancel_futures=True)
            raise EmbedderGone(str(exc)) from exc

    async def load(self) -> int:
        """Start the child and read the model there; its process id."""
        pid: int = await self._call(_load)
        self.pid = pid
        return pid

    async def embed(self, texts: Sequence[str]) -> Matrix:
        """Unit vectors of ``texts``, computed in the child."""
        result: Matrix = await self._call(_embed, list(texts))
        return result

    async def embed_windows(self, texts: Sequence[str]) -> list[Matrix]:
        """Each text's window vectors (``Embedder.embed_windows``), computed in the child."""
        result: list[Matrix] = await self._call(_embed_windows, list(texts))
        return result

    async def aclose(self) -> None:
        """Stop the child and wait for it to exit. A call it is running is killed with it:
        its result would be dropped, and its records are embedded again after a restart
        (as after a crash); waiting for it held a worker's shutdown past the supervisor's
        15 s when a large batch ran at idle priority on a busy machine."""
        pool, self._pool = self._pool, None
        if pool is not None:
            # ProcessPoolExecutor has no public way to stop its children before 3.14
            for child in list((getattr(pool, "_processes", None) or {}).values()):
                with contextlib.suppress(OSError, ValueError):
                    child.kill()
            with trio.CancelScope(shield=True):
                await trio.to_thread.run_sync(lambda: pool.shutdown(True, cancel_futures=True))
