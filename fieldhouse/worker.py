"""One server process: the runtime and hypercorn, serving a listening socket it was handed.

``fieldhouse serve`` runs this in-process when it has one worker, and as ``python -m
fieldhouse.worker`` children (the socket inherited as a file descriptor, the settings read as
JSON from stdin) when it has several. SIGINT or SIGTERM stop it gracefully: the socket is
closed at once, requests in flight finish, open event streams end with an ``error`` event.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import sys

import trio

from fieldhouse.config import Settings
from fieldhouse.http.server import serve_app
from fieldhouse.logs import configure_logging
from fieldhouse.runtime import open_runtime

log = logging.getLogger("fieldhouse.worker")


async def until_signal() -> None:
    with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async for _ in signals:
            return


async def until_signal_or_orphaned() -> None:
    """A supervised worker also stops when its supervisor's end of the stdin pipe closes."""
    async with trio.open_nursery() as nursery:

        async def orphaned() -> None:
            stdin = trio.lowlevel.FdStream(os.dup(0))
            async with stdin:
                while await stdin.receive_some():
                    pass
            log.warning("the supervisor is gone; stopping")
            nursery.cancel_scope.cancel()

        async def signalled() -> None:
            await until_signal()
            nursery.cancel_scope.cancel()

        nursery.start_soon(orphaned)
        nursery.start_soon(signalled)


async def run_worker(
    settings: Settings,
    *,
    fd: int | None = None,
    task_status: trio.TaskStatus[list[str]] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Serve until SIGINT/SIGTERM: on ``fd`` (a listening socket inherited from the supervisor,
    which it also stops for when the supervisor goes) or on ``settings.host:settings.port``."""
    trigger = until_signal if fd is None else until_signal_or_orphaned
    async with open_runtime(settings) as runtime:
        await serve_app(runtime, shutdown_trigger=trigger, fd=fd, task_status=task_status)


def main() -> int:
    """Entry of a supervised worker process: ``{"settings": {...}, "fd": N}`` on stdin."""
    handoff = json.loads(sys.stdin.buffer.readline())
    settings = Settings.from_json(handoff["settings"])
    configure_logging(settings, worker=settings.worker_index)
    try:
        trio.run(lambda: run_worker(settings, fd=int(handoff["fd"])))
    except KeyboardInterrupt:  # a second Ctrl-C during the graceful stop
        return 130
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
