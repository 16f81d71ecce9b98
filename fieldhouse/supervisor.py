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

Start-up overlaps: ``fieldhouse serve`` binds the socket and starts the first worker
(:func:`prestart`) before it imports the rest of the server and prepares the store, so the
worker's own imports (~1 s of CPU: the models, the routes) run beside them; the worker waits
for its settings on stdin, which the CLI writes once the store is ready (:func:`hand_off`), and
the supervisor the CLI then becomes adopts it (:class:`Adopted`) and starts the others.
"""

from __future__ import annotations

import contextlib
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
from typing import Any, NoReturn, Protocol

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
#: how many workers ``fieldhouse serve`` starts before it prepares the store (the others start
#: once the supervisor runs): one is enough to answer, and on two cores a second one importing
#: beside the CLI and the first delays that first answer (benchmarks/ready.sh, 6 runs each,
#: alternated, under other load: median 1.5 s with one, 1.76 s with two)
PRESTART = 1
#: the signals that stop a server
STOP_SIGNALS = {signal.SIGINT, signal.SIGTERM}
#: how the server starts a Python process of its own (``python -m MODULE`` follows): ``-P``
#: keeps the working directory off its ``sys.path``. Without it a worker started from a folder
#: holding a ``fieldhouse`` (another checkout) or a ``trio.py`` imported that, not the installed
#: server, while the CLI ran the installed one (seen: a checkout's older workers beside a newer
#: CLI wrote conflicting activity numbers, every create a 500)
PYTHON = (sys.executable, "-P")


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


class Prestarted:
    """A worker process the CLI started before preparing the store: its pid and the write end
    of its stdin pipe (its settings go there once the store is ready; then the pipe stays
    open, and the worker stops when it closes)."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        assert process.stdin is not None
        self.pid = process.pid
        self.stdin = process.stdin.fileno()
        self._process = process

    def abandon(self) -> None:
        """Stop the worker, not yet handed its settings (``serve`` failed, or was stopped,
        while preparing the store), and wait for it: SIGTERM ends it quietly (it set no
        handler yet), or it reads the end of its closed pipe."""
        assert self._process.stdin is not None
        self._process.stdin.close()
        self._process.terminate()
        self._process.wait()


def can_prestart() -> bool:
    """Whether a prestarted worker can be adopted after the exec (waiting on it needs a pidfd:
    Linux 5.3 and later)."""
    return hasattr(os, "pidfd_open")


def run_settings(settings: Settings) -> Settings:
    """``settings`` with the directories a supervised server shares among its processes:
    every worker writes its metrics in one (whichever answers /metrics adds them all up) and
    counts its open connections in the other (to accept only its share of them), where the
    embedding process also listens. :func:`supervise` removes them when it ends."""
    metrics_dir = tempfile.mkdtemp(prefix="fieldhouse-metrics-")
    run_dir = tempfile.mkdtemp(prefix="fieldhouse-run-")
    shares = os.path.join(run_dir, "connections")
    balance.create(shares, settings.workers)
    settings = replace(settings, metrics_dir=metrics_dir, connection_shares=shares)
    if embeds(settings):
        settings = replace(settings, embed_socket=os.path.join(run_dir, "embed.sock"))
    return settings


def remove_run_dirs(settings: Settings) -> None:
    """Remove what :func:`run_settings` made."""
    if settings.metrics_dir is not None:
        shutil.rmtree(settings.metrics_dir, ignore_errors=True)
    if settings.connection_shares is not None:
        shutil.rmtree(os.path.dirname(settings.connection_shares), ignore_errors=True)


def prestart(settings: Settings, sock: socket.socket, count: int) -> list[Prestarted]:
    """Start workers 0..count-1 on ``sock`` (``settings`` from :func:`run_settings`); each
    imports the server, then waits for :func:`hand_off`."""
    started: list[Prestarted] = []
    try:
        for _ in range(min(count, settings.workers)):
            process = subprocess.Popen(
                [*PYTHON, "-m", "fieldhouse.worker"],
                stdin=subprocess.PIPE,
                pass_fds=(sock.fileno(),),
                env=_worker_env(settings),
                process_group=0,  # (as _run_once's)
            )
            started.append(Prestarted(process))
    except BaseException:
        for worker in started:
            worker.abandon()
        raise
    return started


def hand_off(settings: Settings, sock: socket.socket, workers: list[Prestarted]) -> int:
    """Give each prestarted worker its settings: it starts serving. From here a Ctrl-C or
    SIGTERM waits for the supervisor this process becomes (:func:`become_supervisor`), which
    stops these workers for it: the returned pipe is where it finds a signal held meanwhile
    (:func:`hold_stop_signals`)."""
    held = hold_stop_signals()
    for index, worker in enumerate(workers):
        handoff = _handoff(replace(settings, worker_index=index), sock)
        # (a few KB: within the pipe's buffer); a worker that died starting is restarted
        # by the supervisor
        with contextlib.suppress(BrokenPipeError):
            os.write(worker.stdin, handoff)
    return held


def hold_stop_signals() -> int:
    """Keep a Ctrl-C or SIGTERM that arrives from here until the exec'd supervisor listens
    (:func:`main`) for it; the read end of a pipe that holds the number of one that ran a
    handler meanwhile.

    Blocked in this (the main) thread, a signal stays pending across the exec. But the kernel
    hands a signal sent to the process to any thread that does not block it, and the CLI has
    others by then (trio's idle worker thread, left from preparing the store): Python's C
    handler runs there and the exec forgets it. A server Ctrl-C'd at that moment ran on (seen
    in CI: test_ctrl_c_stops_quietly, "still running 60 s after Ctrl-C"). That handler also
    writes the signal's number to the wakeup fd: here a pipe whose read end the supervisor
    inherits. The Python handlers do nothing meanwhile, so no KeyboardInterrupt breaks the
    handover half-way; their Python-level defaults come back with the exec."""
    read, write = os.pipe()
    os.set_blocking(write, False)
    signal.set_wakeup_fd(write, warn_on_full_buffer=False)
    for signum in STOP_SIGNALS:
        signal.signal(signum, _held)
    signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    return read


def _held(signum: int, frame: object) -> None:
    """(the handler while a stop signal is held: its number is in the wakeup pipe)"""


def held_stop_signal(held: int) -> bool:
    """Whether the pipe of :func:`hold_stop_signals` holds a stop signal (closing it)."""
    os.set_blocking(held, False)
    try:
        numbers = os.read(held, 256)
    except BlockingIOError:  # (the old image's write end: closed at the exec)
        numbers = b""
    finally:
        os.close(held)
    return any(number in STOP_SIGNALS for number in numbers)


def become_supervisor(
    settings: Settings,
    sock: socket.socket,
    lock: int | None,
    announce: str | None = None,
    workers: list[Prestarted] | None = None,
    held: int | None = None,
) -> NoReturn:
    """Replace this process (the CLI, which imported the whole server to prepare the store)
    by a fresh ``python -m fieldhouse.supervisor`` that imports only what supervising needs:
    its memory is the server's overhead beside the workers (91 -> ~40 MB). The listening
    socket, the data directory's lock and the pipes to the ``workers`` already started (its
    children still, after the exec) pass through the exec as open descriptors, as does
    ``held``, the pipe of :func:`hold_stop_signals` (which this calls when :func:`hand_off`
    did not)."""
    if held is None:
        held = hold_stop_signals()
    workers = workers or []
    # the settings (secrets among them) go through a pipe: a command line is any user's to read
    read, write = os.pipe()
    handoff = {
        "settings": settings.to_json(),
        "fd": sock.fileno(),
        "lock": lock,
        # printed once the server answers (fieldhouse.banner)
        "announce": announce,
        "workers": [{"pid": worker.pid, "stdin": worker.stdin} for worker in workers],
        "held": held,
    }
    os.write(write, json.dumps(handoff).encode())  # (a few KB: within the pipe's buffer)
    os.close(write)
    fds = [read, held, sock.fileno()] + ([lock] if lock is not None else [])
    for fd in fds + [worker.stdin for worker in workers]:
        os.set_inheritable(fd, True)
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(sys.executable, [*PYTHON, "-m", "fieldhouse.supervisor", str(read)])


def main() -> int:
    """``python -m fieldhouse.supervisor FD``: what :func:`become_supervisor` runs, its
    settings read from the pipe ``FD``."""
    from fieldhouse.logs import configure_logging

    with os.fdopen(int(sys.argv[1]), "rb") as pipe:
        handoff = json.loads(pipe.read())
    settings = Settings.from_json(handoff["settings"])
    configure_logging(settings)
    sock = socket.socket(fileno=int(handoff["fd"]))
    adopted = [(int(w["pid"]), int(w["stdin"])) for w in handoff.get("workers", [])]
    # until trio listens for them, SIGTERM stops this process as Ctrl-C does: one sent while
    # it started (blocked over the exec: become_supervisor) arrives at the unblocking
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        held = handoff.get("held")
        if held is not None and held_stop_signal(int(held)):
            raise KeyboardInterrupt  # (one that ran a handler in the old image's other thread)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)
        return trio.run(supervise, settings, sock, handoff.get("announce"), adopted)
    except KeyboardInterrupt:
        # stopped before supervising (or by a second Ctrl-C): the workers the CLI started
        # are this process's to stop, as supervise stops its own
        _stop_unreaped([pid for pid, _ in adopted])
        remove_run_dirs(settings)
        return 130


def _stop_unreaped(pids: list[int]) -> None:
    """SIGTERM each child of ``pids`` not reaped yet, and wait for it."""
    for pid in pids:
        try:
            exited, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            continue  # reaped already (its pid may be another process's now)
        if not exited:
            os.kill(pid, signal.SIGTERM)
            os.waitpid(pid, 0)


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


async def supervise(
    settings: Settings,
    sock: socket.socket,
    announce: str | None = None,
    adopted: list[tuple[int, int]] | None = None,
) -> int:
    """Run ``settings.workers`` workers on ``sock`` until a signal; the exit code. The
    ``announce`` text is printed once the server answers. ``adopted``: the (pid, stdin pipe)
    of workers already started and handed their settings (:func:`prestart`), which then come
    with the directories of :func:`run_settings`."""
    if settings.connection_shares is None:
        settings = run_settings(settings)
    stopping = trio.Event()
    failed: list[int] = []
    try:
        await _supervise(settings, sock, stopping, failed, announce, adopted or [])
    finally:
        remove_run_dirs(settings)
    return 1 if failed else 0


async def _supervise(
    settings: Settings,
    sock: socket.socket,
    stopping: trio.Event,
    failed: list[int],
    announce: str | None,
    adopted: list[tuple[int, int]],
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
                    first = Adopted(*adopted[index]) if index < len(adopted) else None
                    workers.start_soon(_keep_running, worker, sock, stopping, failed, first)
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
    settings: Settings,
    sock: socket.socket,
    stopping: trio.Event,
    failed: list[int],
    first: Adopted | None = None,
) -> None:
    """One worker slot: start the worker (or adopt ``first``, already started), restart it
    when it dies, stop it on request.

    The worker reads its settings from its stdin pipe and then watches the pipe: when the
    supervisor dies (even by SIGKILL) the pipe closes and the worker stops too.
    """
    quick_exits = 0
    while not stopping.is_set():
        started = trio.current_time()
        code = await _run_once(settings, sock, stopping, adopted=first)
        first = None
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


class _Child(Protocol):
    """What the supervisor does with a child: a trio.Process, or an :class:`Adopted` one."""

    @property
    def pid(self) -> int: ...

    @property
    def returncode(self) -> int | None: ...

    async def wait(self) -> int: ...

    def send_signal(self, sig: int) -> None: ...

    def kill(self) -> None: ...


class Adopted:
    """A worker the CLI started before it became this supervisor (:func:`prestart`): a child
    of this process, waited for through a pidfd (trio cannot adopt a process it did not
    start). Its pid stays its own until it is reaped here."""

    def __init__(self, pid: int, stdin: int) -> None:
        self.pid = pid
        self.stdin = trio.lowlevel.FdStream(stdin)
        self.returncode: int | None = None
        self._pidfd = os.pidfd_open(pid)

    async def wait(self) -> int:
        """Its exit code, once it exits. Several tasks may wait at once (the slot, and
        :func:`_stop`): each on its own copy of the pidfd, as trio lets one task wait per fd."""
        if self.returncode is None:
            pidfd = os.dup(self._pidfd)
            try:
                await trio.lowlevel.wait_readable(pidfd)  # readable: it has exited
            finally:
                os.close(pidfd)
        if self.returncode is None:
            _, status = os.waitpid(self.pid, os.WNOHANG)  # noqa: ASYNC222 (exited: no wait)
            self.returncode = os.waitstatus_to_exitcode(status)
            os.close(self._pidfd)
        return self.returncode

    def send_signal(self, sig: int) -> None:
        if self.returncode is None:
            os.kill(self.pid, sig)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


def _worker_env(settings: Settings) -> dict[str, str]:
    env = dict(os.environ)
    if settings.metrics_dir is not None:
        env["PROMETHEUS_MULTIPROC_DIR"] = settings.metrics_dir
    return env


def _handoff(settings: Settings, sock: socket.socket | None) -> bytes:
    """What a worker (or the embedding process) reads on its stdin: one line of JSON."""
    handoff = {"settings": settings.to_json(), "fd": None if sock is None else sock.fileno()}
    return json.dumps(handoff).encode() + b"\n"


async def _run_once(
    settings: Settings,
    sock: socket.socket | None,
    stopping: trio.Event,
    module: str = "fieldhouse.worker",
    adopted: Adopted | None = None,
) -> int:
    """Start one worker process (or the embedding process), or take over ``adopted``, and
    wait for it to exit (stopping it when asked to)."""
    process: _Child
    stdin: trio.abc.SendStream
    if adopted is not None:
        process, stdin = adopted, adopted.stdin
    else:
        started = await trio.lowlevel.open_process(
            [*PYTHON, "-m", module],
            stdin=subprocess.PIPE,
            pass_fds=() if sock is None else (sock.fileno(),),
            env=_worker_env(settings),
            # a process group of its own: a terminal's Ctrl-C (SIGINT to the foreground
            # group) reaches the supervisor alone, which stops each child with SIGTERM; a
            # child still starting Python would otherwise die of it with a traceback or a
            # fatal error
            process_group=0,
        )
        assert started.stdin is not None
        process, stdin = started, started.stdin
    async with stdin, trio.open_nursery() as nursery:
        if adopted is None:
            # a child gone before it read its settings (seen once: Ctrl-C just as a worker
            # started) closed the pipe: its exit code below says what became of it, where
            # the broken pipe was a traceback on the terminal
            with contextlib.suppress(trio.BrokenResourceError):
                await stdin.send_all(_handoff(settings, sock))

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


async def _stop(process: _Child) -> None:
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
