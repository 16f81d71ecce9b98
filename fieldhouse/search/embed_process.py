"""The server's one embedding process: ``python -m fieldhouse.search.embed_process``.

The supervisor starts it beside its workers and hands it the settings on stdin. It loads the
model once for the whole server and then (1) keeps the store's vectors current
(:func:`~fieldhouse.search.embedding.embed_forever`, in lower-priority threads), and (2)
embeds the workers' queries, at normal priority, on a Unix socket
(:mod:`~fieldhouse.search.query_embedder` has the wire). The workers load no model: a worker
costs the server little memory, and the first answer does not wait for the model (until it has
loaded, searches run on their keyword half and say so).

It stops on SIGTERM and when its stdin closes: the supervisor stopped, or died, even by
SIGKILL (the kernel closes the pipe's other end). Linux's parent-death signal would not do:
it follows the thread that started the process, and trio starts processes from worker
threads that end when idle.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import sys
from functools import partial

import trio

from fieldhouse.config import Settings
from fieldhouse.logs import configure_logging
from fieldhouse.search.background import (
    BusyMeter,
    LowPriorityThread,
    WorkersMeter,
    cores,
    run_split,
)
from fieldhouse.search.embedder import Embedder, make_embedder
from fieldhouse.search.embedding import embed_forever
from fieldhouse.search.query_embedder import frame, receive_frame
from fieldhouse.search.vectors import one_blas_thread
from fieldhouse.storage import open_database
from fieldhouse.storage.backend import backend_for
from fieldhouse.supervisor import until_signal_or_orphaned

log = logging.getLogger("fieldhouse.search")

#: a query's text is at most this long on the wire
MAX_QUERY_BYTES = 16_384


async def _answer(
    embedder: Embedder, loaded: trio.Event, limiter: trio.CapacityLimiter, stream: trio.SocketStream
) -> None:
    async with stream:
        try:
            text = await receive_frame(stream, MAX_QUERY_BYTES)
            vec = b""
            if loaded.is_set() and text:
                rows = await trio.to_thread.run_sync(
                    embedder.embed, [text.decode(errors="replace")], limiter=limiter
                )
                vec = rows[0].astype("float32").tobytes()
            await stream.send_all(frame(vec))
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass  # the worker gave up waiting


def meter_for(settings: Settings) -> BusyMeter | WorkersMeter:
    """What the embedding loop yields to: the workers' CPU where the database runs inside
    them (SQLite); the machine's where it has processes of its own (PostgreSQL), whose work
    for the requests the workers' CPU does not show."""
    return WorkersMeter() if backend_for(settings).database_in_process else BusyMeter()


async def open_listener(path: str) -> trio.SocketListener:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)  # left by an embedding process that was killed
    sock = trio.socket.socket(trio.socket.AF_UNIX, trio.socket.SOCK_STREAM)
    await sock.bind(path)
    sock.listen(128)
    return trio.SocketListener(sock)


async def serve(settings: Settings) -> None:
    """Embed queries and queued records until SIGTERM or the supervisor goes."""
    assert settings.embed_socket is not None
    one_blas_thread()
    embedder = make_embedder(settings.embedder, threads=1)
    loaded = trio.Event()
    limiter = trio.CapacityLimiter(2)
    listener = await open_listener(settings.embed_socket)
    async with open_database(
        settings.resolved_database_url, sqlite_synchronous=settings.sqlite_synchronous
    ) as store:
        store.vector_model = embedder.name
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_stop_when_told, nursery.cancel_scope)
            handler = partial(_answer, embedder, loaded, limiter)
            nursery.start_soon(partial(trio.serve_listeners, handler, [listener]))
            # loading takes seconds of CPU on every core it gets: at a lower priority, beside
            # workers that are starting (and serving) at the same time
            # one thread a core: a pass runs on every core while the workers are idle
            threads = [LowPriorityThread(f"fieldhouse-embed{k}", idle=True) for k in range(cores())]
            thread = threads[0]
            await thread.run(embedder.load)
            release = getattr(embedder, "release_build", None)
            if release is not None:
                await thread.run(release)
            loaded.set()
            log.info("embedding process: %s loaded", embedder.name)
            try:
                await embed_forever(
                    store,
                    embedder,
                    thread.run,
                    meter=meter_for(settings),
                    wide=partial(run_split, threads),
                )
            finally:
                for t in threads:
                    t.close()


async def _stop_when_told(scope: trio.CancelScope) -> None:
    await until_signal_or_orphaned()
    scope.cancel()


def main() -> int:
    handoff = json.loads(sys.stdin.buffer.readline())
    settings = Settings.from_json(handoff["settings"])
    configure_logging(settings)
    try:
        trio.run(serve, settings)
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
