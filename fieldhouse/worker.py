"""One server process: the runtime and hypercorn, serving a listening socket it was handed.

``fieldhouse serve`` runs this in-process when it has one worker, and as ``python -m
fieldhouse.worker`` children (the socket inherited as a file descriptor, the settings read as
JSON from stdin) when it has several. SIGINT or SIGTERM stop it gracefully: the socket is
closed at once, requests in flight finish, open event streams end with an ``error`` event.
"""

from __future__ import annotations

import gc
import json
import logging
import sys
from functools import partial

import trio

from fieldhouse.config import Settings
from fieldhouse.http.wire.server import serve_app
from fieldhouse.logs import configure_logging
from fieldhouse.runtime import open_runtime
from fieldhouse.supervisor import until_signal, until_signal_or_orphaned

log = logging.getLogger("fieldhouse.worker")

#: the cycle collector's first threshold once serving (CPython's default: 700)
GC_THRESHOLD = 20_000


async def run_worker(
    settings: Settings,
    *,
    fd: int | None = None,
    task_status: trio.TaskStatus[list[str]] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Serve until SIGINT/SIGTERM: on ``fd`` (a listening socket inherited from the supervisor,
    which it also stops for when the supervisor goes) or on ``settings.host:settings.port``."""
    trigger = until_signal if fd is None else until_signal_or_orphaned
    async with open_runtime(settings) as runtime, trio.open_nursery() as nursery:
        binds = await nursery.start(partial(serve_app, runtime, shutdown_trigger=trigger, fd=fd))
        settle_heap()
        task_status.started(binds)


def settle_heap() -> None:
    """Once serving: what start-up built (modules, the app, the schemas, the embedder's model)
    is moved out of the cycle collector's sight, and the collector runs less often.

    Under create load a worker spent about 8% of its time in the collector (0.8 s of 10 s,
    ``gc.callbacks``), seven or eight full collections of ~85 ms each walking the start-up
    heap, and found almost nothing: a request's objects are freed by their reference counts.
    Frozen, a full collection walks only what was made since (0.09 s of 10 s); with the
    first threshold at GC_THRESHOLD net new container objects the collector runs when the
    heap grows, not every few requests (0.02 s of 10 s). Garbage in cycles is still
    collected."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(GC_THRESHOLD, *gc.get_threshold()[1:])


def main() -> int:
    """Entry of a supervised worker process: ``{"settings": {...}, "fd": N}`` on stdin, read
    once the server is imported. A pipe closed before that line is ``fieldhouse serve`` gone
    (it failed to prepare the store, or was stopped) before handing this worker its settings
    (:func:`fieldhouse.supervisor.prestart`): nothing to serve, nothing to report."""
    line = sys.stdin.buffer.readline()
    if not line:
        return 0
    handoff = json.loads(line)
    settings = Settings.from_json(handoff["settings"])
    configure_logging(settings, worker=settings.worker_index)
    try:
        trio.run(lambda: run_worker(settings, fd=int(handoff["fd"])))
    except KeyboardInterrupt:  # a second Ctrl-C during the graceful stop
        return 130
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
