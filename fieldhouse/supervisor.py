"""``fieldhouse serve``: prepare the store once, then serve from one or several processes.

With ``--workers N`` (default: the number of cores) the supervisor binds the listening socket
itself and starts N ``python -m fieldhouse.worker`` processes that inherit it, so the kernel
hands each new connection to whichever worker accepts it first. Every guarantee that holds
within one process holds across them because the database arbitrates: each write transaction
of a workspace takes the database's write lock (SQLite) or the workspace's advisory lock
(PostgreSQL), and counters are rows updated inside it.

The supervisor restarts a worker that dies (a crash or SIGKILL loses no acknowledged write:
a write is acknowledged only after its commit) and, on SIGINT or SIGTERM, closes its copy of
the socket, asks every worker to stop gracefully and exits 0 once they have.

Two servers on one SQLite data directory would each believe they own it; the supervisor holds
the backend's serve lock (:meth:`fieldhouse.storage.backend.Backend.serve_lock`: an exclusive
lock on ``<data dir>/serve.lock``) while it runs, and a second one refuses to start.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any, NoReturn

import trio

from fieldhouse.config import LISTEN_BACKLOG, Settings
from fieldhouse.http.wire import balance

log = logging.getLogger("fieldhouse.supervisor")

#: a worker that exits sooner than this after starting counts as failing to start
QUICK_EXIT_SECONDS = 2.0
#: that many quick exits in a row and the supervisor gives up
MAX_QUICK_EXITS = 5
#: how long workers get to finish in-flight requests before they are killed
STOP_SECONDS = 15.0
#: the embedding process starts once the workers answer, or after this long without an answer
EMBED_WAIT_SECONDS = 30.0
#: how often the workers' address is tried meanwhile
EMBED_POLL_SECONDS = 0.05


async def until_signal() -> None:
    """Return at SIGINT or SIGTERM."""
    with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async for _ in signals:
            return


async def until_signal_or_orphaned() -> None:
    """Return at SIGINT or SIGTERM, or when the supervisor's end of this process's stdin
    pipe closes (it stopped, or died, even by SIGKILL): how a supervised process (a worker, the
    embedding process) knows to stop."""
    async with trio.open_nursery() as nursery:

        async def orphaned() -> None:
            stdin = trio.lowlevel.FdStream(os.dup(0))
            async with stdin:
                while await stdin.receive_some():
                    pass
            logging.getLogger("fieldhouse").warning("the supervisor is gone; stopping")
            nursery.cancel_scope.cancel()

        async def signalled() -> None:
            await until_signal()
            nursery.cancel_scope.cancel()

        nursery.start_soon(orphaned)
        nursery.start_soon(signalled)


def become_supervisor(
    settings: Settings, sock: socket.socket, lock: int | None, announce: str | None = None
) -> NoReturn:
    """Replace this process (the CLI, which imported the whole server to prepare the store)
    by a fresh ``python -m fieldhouse.supervisor`` that imports only what supervising needs:
    its memory is the server's overhead beside the workers (91 -> ~40 MB). The listening
    socket and the data directory's lock pass through the exec as open descriptors."""
    # the settings (secrets among them) go through a pipe: a command line is any user's to read
    read, write = os.pipe()
    handoff = {
        "settings": settings.to_json(),
        "fd": sock.fileno(),
        "lock": lock,
        # printed once the server answers (fieldhouse.banner)
        "announce": announce,
    }
    os.write(write, json.dumps(handoff).encode())  # (a few KB: within the pipe's buffer)
    os.close(write)
    for fd in [read, sock.fileno()] + ([lock] if lock is not None else []):
        os.set_inheritable(fd, True)
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(sys.executable, [sys.executable, "-m", "fieldhouse.supervisor", str(read)])


def main() -> int:
    """``python -m fieldhouse.supervisor FD``: what :func:`become_supervisor` runs, its
    settings read from the pipe ``FD``."""
    from fieldhouse.logs import configure_logging

    with os.fdopen(int(sys.argv[1]), "rb") as pipe:
        handoff = json.loads(pipe.read())
    settings = Settings.from_json(handoff["settings"])
    configure_logging(settings)
    sock = socket.socket(fileno=int(handoff["fd"]))
    try:
        return trio.run(supervise, settings, sock, handoff.get("announce"))
    except KeyboardInterrupt:
        return 130


def listening_socket(settings: Settings) -> socket.socket:
    family = socket.AF_INET6 if ":" in settings.host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((settings.host, settings.port))
        sock.listen(LISTEN_BACKLOG)
    except OSError:
        sock.close()  # the port is taken (or the host unknown): the caller reports it
        raise
    sock.set_inheritable(True)
    return sock


async def supervise(settings: Settings, sock: socket.socket, announce: str | None = None) -> int:
    """Run ``settings.workers`` workers on ``sock`` until a signal; the exit code. The
    ``announce`` text is printed once the server answers."""
    stopping = trio.Event()
    failed: list[int] = []
    # every worker writes its metrics here; whichever answers /metrics adds them all up
    metrics_dir = tempfile.mkdtemp(prefix="fieldhouse-metrics-")
    # and counts its open connections here, to accept only its share of them
    run_dir = tempfile.mkdtemp(prefix="fieldhouse-run-")
    shares = os.path.join(run_dir, "connections")
    balance.create(shares, settings.workers)
    settings = replace(settings, metrics_dir=metrics_dir, connection_shares=shares)
    if embeds(settings):
        settings = replace(settings, embed_socket=os.path.join(run_dir, "embed.sock"))
    try:
        await _supervise(settings, sock, stopping, failed, announce)
    finally:
        shutil.rmtree(metrics_dir, ignore_errors=True)
        shutil.rmtree(run_dir, ignore_errors=True)
    return 1 if failed else 0


async def _supervise(
    settings: Settings,
    sock: socket.socket,
    stopping: trio.Event,
    failed: list[int],
    announce: str | None = None,
) -> None:
    with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async with trio.open_nursery() as outer:
            outer.start_soon(_watch_signals, signals, stopping)
            if announce is not None:
                from fieldhouse.banner import announce_when_ready, base_url

                host, port = sock.getsockname()[:2]
                outer.start_soon(announce_when_ready, base_url(host, port), announce)
            if settings.embed_socket is not None:
                outer.start_soon(_keep_embedding, settings, stopping, sock.getsockname())
            async with trio.open_nursery() as workers:
                for index in range(settings.workers):
                    worker = replace(settings, worker_index=index)
                    workers.start_soon(_keep_running, worker, sock, stopping, failed)
                await stopping.wait()
                sock.close()  # once every worker has closed its copy, connections are refused
            outer.cancel_scope.cancel()


def embeds(settings: Settings) -> bool:
    """Whether the server runs its one embedding process (search on, with a model)."""
    return settings.search_enabled and settings.embedding_process and settings.embedder != "none"


async def _keep_embedding(
    settings: Settings, stopping: trio.Event, address: tuple[Any, ...]
) -> None:
    """The server's one embedding process (:mod:`fieldhouse.search.embed_process`), started
    again when it dies; while it is away, searches run on their keyword half.

    It starts once a worker answers on ``address`` (at most EMBED_WAIT_SECONDS later): its
    imports and its model's load took the cores the starting workers needed (0.3-0.55 s of CPU
    before the first answer), and the server answers without it."""
    await _until_answering(address)
    while not stopping.is_set():
        started = trio.current_time()
        code = await _run_once(settings, None, stopping, "fieldhouse.search.embed_process")
        if stopping.is_set():
            return
        log.error("the embedding process exited with %s; restarting it", code)
        if trio.current_time() - started < QUICK_EXIT_SECONDS:
            await trio.sleep(QUICK_EXIT_SECONDS)  # back off a crash loop


async def _until_answering(address: tuple[Any, ...]) -> None:
    """Return once GET /readyz on ``address`` answers 200, or after EMBED_WAIT_SECONDS."""
    from fieldhouse.banner import answers, base_url

    base = base_url(address[0], address[1])
    with trio.move_on_after(EMBED_WAIT_SECONDS):
        while True:
            if await answers(base):
                return
            await trio.sleep(EMBED_POLL_SECONDS)


async def _watch_signals(signals: AsyncIterator[int], stopping: trio.Event) -> None:
    async for signum in signals:
        log.info("%s: stopping the workers", signal.Signals(signum).name)
        stopping.set()


async def _keep_running(
    settings: Settings, sock: socket.socket, stopping: trio.Event, failed: list[int]
) -> None:
    """One worker slot: start the worker, restart it when it dies, stop it on request.

    The worker reads its settings from its stdin pipe and then watches the pipe: when the
    supervisor dies (even by SIGKILL) the pipe closes and the worker stops too.
    """
    quick_exits = 0
    while not stopping.is_set():
        started = trio.current_time()
        code = await _run_once(settings, sock, stopping)
        if stopping.is_set():
            return
        log.error("worker %d exited with %s; restarting it", settings.worker_index, code)
        quick_exits = quick_exits + 1 if trio.current_time() - started < QUICK_EXIT_SECONDS else 0
        if quick_exits >= MAX_QUICK_EXITS:
            log.error("worker %d keeps failing to start; stopping", settings.worker_index)
            failed.append(settings.worker_index)
            stopping.set()
            return
        await trio.sleep(0.2 * quick_exits)  # back off a crash loop


async def _run_once(
    settings: Settings,
    sock: socket.socket | None,
    stopping: trio.Event,
    module: str = "fieldhouse.worker",
) -> int:
    """Start one worker process (or the embedding process) and wait for it to exit (stopping
    it when asked to)."""
    env = dict(os.environ)
    if settings.metrics_dir is not None:
        env["PROMETHEUS_MULTIPROC_DIR"] = settings.metrics_dir
    process = await trio.lowlevel.open_process(
        [sys.executable, "-m", module],
        stdin=subprocess.PIPE,
        pass_fds=() if sock is None else (sock.fileno(),),
        env=env,
        # a process group of its own: a terminal's Ctrl-C (SIGINT to the foreground group)
        # reaches the supervisor alone, which stops each child with SIGTERM; a child still
        # starting Python would otherwise die of it with a traceback or a fatal error
        process_group=0,
    )
    assert process.stdin is not None
    handoff = {"settings": settings.to_json(), "fd": None if sock is None else sock.fileno()}
    async with process.stdin, trio.open_nursery() as nursery:
        await process.stdin.send_all(json.dumps(handoff).encode() + b"\n")

        async def stop_on_request() -> None:
            await stopping.wait()
            await _stop(process)

        nursery.start_soon(stop_on_request)
        code = await process.wait()
        nursery.cancel_scope.cancel()
    if sock is None:
        return code
    if settings.metrics_dir is not None:
        from fieldhouse.metrics import worker_exited  # (prometheus-client: only when needed)

        worker_exited(settings.metrics_dir, process.pid)
    if settings.connection_shares is not None:
        balance.forget(settings.connection_shares, settings.worker_index)
    return code


async def _stop(process: trio.Process) -> None:
    """SIGTERM (graceful), then SIGKILL after STOP_SECONDS."""
    with trio.CancelScope(shield=True):
        if process.returncode is None:
            process.send_signal(signal.SIGTERM)
        with trio.move_on_after(STOP_SECONDS):
            await process.wait()
            return
        log.error("worker %d did not stop in %s s; killing it", process.pid, STOP_SECONDS)
        process.kill()
        await process.wait()


if __name__ == "__main__":
    raise SystemExit(main())
