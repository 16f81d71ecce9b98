"""The `fieldhouse` command line. Admin commands print one JSON object on stdout."""

from __future__ import annotations

import errno
import json
import logging
import signal
import socket
import sys
from collections.abc import Sequence
from functools import partial

import trio

from fieldhouse import supervisor
from fieldhouse.cli_args import CliError, build_parser, first_line, settings_from_args
from fieldhouse.config import Settings, SettingsError
from fieldhouse.logs import configure_logging
from fieldhouse.storage.backend import AlreadyServing, Backend, backend_for
from fieldhouse.storage.urls import UnsupportedDatabase

__all__ = ["build_parser", "main"]

log = logging.getLogger("fieldhouse.cli")


def run_server(settings: Settings, backend: Backend, demo: bool) -> int:
    """Prepare the store once (migrations, the demo workspace), then serve: in this process
    with one worker, else from supervised worker processes sharing one listening socket.
    What a newcomer needs (the address, a first command) is printed once the server
    answers (fieldhouse.banner).

    With several workers the socket is bound and the first worker started before the store
    is prepared (before this process even imports the rest of the server: fieldhouse.commands),
    so that worker's imports run beside the preparation (fieldhouse.supervisor.prestart)."""
    with backend.serve_lock() as lock:
        if settings.workers <= 1:
            from fieldhouse.commands import prepare_store, serve_here

            ready = trio.run(prepare_store, settings, backend, demo)
            # a taken port is reported here, plainly: hypercorn's own bind failure inside
            # trio arrives as an exception group and leaks its unbound socket
            supervisor.listening_socket(settings).close()
            trio.run(serve_here, settings, ready)
            return 0
        sock = supervisor.listening_socket(settings)
        run = supervisor.run_settings(settings)  # (the directories its processes share)
        workers: list[supervisor.Prestarted] = []
        try:
            if supervisor.can_prestart():
                workers = supervisor.prestart(run, sock, supervisor.PRESTART)
            from fieldhouse.commands import prepare_store

            ready = trio.run(prepare_store, settings, backend, demo)
            held = supervisor.hand_off(run, sock, workers)
        except BaseException:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, supervisor.STOP_SIGNALS)
            for worker in workers:
                worker.abandon()
            supervisor.remove_run_dirs(run)
            sock.close()
            raise
        host, port = sock.getsockname()[:2]
        logging.getLogger("fieldhouse.supervisor").info(
            "serving http://%s:%d with %d worker processes", host, port, settings.workers
        )
        supervisor.become_supervisor(run, sock, lock, announce=ready, workers=workers, held=held)


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        settings = settings_from_args(args)
    except SettingsError as exc:
        return _fail("bad_request", str(exc), 2)
    configure_logging(settings)
    try:
        if args.command not in ("backup", "restore") and not settings.database_url:
            _check_data_dir(settings)
        backend = backend_for(settings)
        if args.command == "serve":
            return run_server(settings, backend, args.demo)
        if args.command in ("backup", "restore"):
            from fieldhouse.backup import backup, restore

            if args.command == "backup":
                result = backup(backend, args.dest)
            else:
                result = restore(settings, backend, args.source)
        else:
            from fieldhouse.commands import COMMANDS, run_admin

            command = COMMANDS[args.command]
            result = trio.run(partial(run_admin, settings, backend, command, args))
    except KeyboardInterrupt:
        return 130
    except Exception as raised:
        return _report(_leaf(raised), settings)
    print(json.dumps(result))
    return 0


def _report(exc: BaseException, settings: Settings) -> int:
    """One line on stderr for what went wrong, and the exit status."""
    from fieldhouse.backup import BackupError
    from fieldhouse.model.errors import ApiError

    if isinstance(exc, ApiError):
        print(json.dumps(exc.to_json()), file=sys.stderr)
        return 1
    if isinstance(exc, UnsupportedDatabase):
        return _fail("bad_request", f"{DATABASE_URL}: {exc}", 2)
    if isinstance(exc, (AlreadyServing, CliError, BackupError)):
        return _fail("bad_request", str(exc), 2)
    where = f"{settings.host}:{settings.port}"
    if isinstance(exc, OSError) and exc.errno == errno.EADDRINUSE:
        return _fail("bad_request", f"cannot listen on {where}: the address is in use", 2)
    if isinstance(exc, socket.gaierror):
        message = f"cannot listen on {where} (--host or FIELDHOUSE_HOST): {exc.strerror}"
        return _fail("bad_request", message, 2)
    if isinstance(exc, OSError):
        return _fail("bad_request", first_line(exc), 2)
    log.debug("failed", exc_info=exc)
    return _fail("internal_error", first_line(exc), 1)


#: where the database URL comes from, for messages about it
DATABASE_URL = "the database URL (--database-url or FIELDHOUSE_DATABASE_URL)"


def _check_data_dir(settings: Settings) -> None:
    """The data directory (the embedded store's, or the server's scratch) can be made and
    written in; otherwise a CliError naming where it was set."""
    where = settings.data_dir
    try:
        where.mkdir(parents=True, exist_ok=True)
        probe = where / ".fieldhouse-write-check"
        probe.touch()
        probe.unlink()
    except OSError as exc:
        raise CliError(
            f"cannot use the data directory {str(where)!r} (--data-dir or FIELDHOUSE_DATA_DIR):"
            f" {exc.strerror or first_line(exc)}"
        ) from None


def _fail(code: str, message: str, status: int) -> int:
    print(json.dumps({"error": {"code": code, "message": message}}), file=sys.stderr)
    return status


def _leaf(exc: BaseException) -> BaseException:
    """The first real error inside (nested) exception groups, which trio's nurseries make."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc
