"""The `fieldhouse` command line. Admin commands print one JSON object on stdout."""

from __future__ import annotations

import argparse
import errno
import json
import logging
import re
import socket
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from functools import partial
from typing import Any

import trio

from fieldhouse.actors import admin_ops as ops
from fieldhouse.actors.bootstrap import create_workspace, init_workspace
from fieldhouse.actors.system import ActorSystem, open_actor_system
from fieldhouse.agents.run_writes import CreateAgent
from fieldhouse.backup import BackupError, backup, restore
from fieldhouse.banner import announce_when_ready, base_url
from fieldhouse.cli_args import build_parser, settings_from_args
from fieldhouse.config import Settings, SettingsError
from fieldhouse.demo import demo_banner
from fieldhouse.http.auth import issue_token, jwt_secret
from fieldhouse.logs import configure_logging
from fieldhouse.model.errors import ApiError, BadRequest, NotFound, StoreUnavailable
from fieldhouse.model.principal import SystemActor
from fieldhouse.model.templates import BUILTIN_TEMPLATES
from fieldhouse.storage import open_database
from fieldhouse.storage.backend import AlreadyServing, Backend, backend_for
from fieldhouse.storage.open import UnsupportedDatabase
from fieldhouse.supervisor import become_supervisor, listening_socket
from fieldhouse.transfer import export_records, import_records

log = logging.getLogger("fieldhouse.cli")
Command = Callable[[argparse.Namespace, ActorSystem], Awaitable[dict[str, Any]]]


async def _workspace(system: ActorSystem, account_id: str) -> str:
    if await system.store.get_account(account_id) is None:
        raise NotFound(f"Workspace {account_id} not found")
    return account_id


async def cmd_init(args: argparse.Namespace, system: ActorSystem) -> dict[str, Any]:
    workspace, key = await init_workspace(system, args.name, args.templates)
    return {
        "accountId": workspace.account_id,
        "userId": workspace.user_id,
        "apiKey": key.api_key,
        "apiKeyId": key.api_key_id,
    }


async def cmd_workspace(args: argparse.Namespace, system: ActorSystem) -> dict[str, Any]:
    if args.action == "list":
        accounts = await system.store.list_accounts()
        return {
            "workspaces": [
                {
                    "accountId": a.account_id,
                    "name": a.name,
                    "slug": a.slug,
                    "createdAt": a.created_at,
                }
                for a in accounts
            ]
        }
    workspace = await create_workspace(system, args.name)
    return {"accountId": workspace.account_id, "userId": workspace.user_id}


async def cmd_user(args: argparse.Namespace, system: ActorSystem) -> dict[str, Any]:
    account = await _workspace(system, args.workspace)
    if args.action == "list":
        return {"users": await system.store.list_users(account)}
    if args.action == "delete":
        await system.ask(ops.DeleteUser(args.user_id, by=SystemActor(account, "cli")))
        return {"userId": args.user_id, "deleted": True}
    user_id = await system.ask(
        ops.CreateUser(args.email, args.display_name, args.role, by=SystemActor(account, "cli"))
    )
    return {"userId": user_id}


async def cmd_role(args: argparse.Namespace, system: ActorSystem) -> dict[str, Any]:
    account = await _workspace(system, args.workspace)
    _, schemas = await system.store.load_schemas(account)
    # a module of the workspace, or of a built-in template it may install later
    modules = {schema.module.slug for schema in schemas.values()}
    modules |= {template.module_slug for template in BUILTIN_TEMPLATES}
    for option, slugs in (("--can-view", args.can_view), ("--can-edit", args.can_edit)):
        unknown = sorted(set(slugs) - modules)
        if unknown:
            raise BadRequest(
                f"{option}: no module {', '.join(map(repr, unknown))} in workspace {account} "
                f"or its templates; known: {', '.join(sorted(modules))}"
            )
    slug = await system.ask(
        ops.CreateRole(
            args.slug,
            frozenset(args.can_view),
            frozenset(args.can_edit),
            by=SystemActor(account, "cli"),
        )
    )
    return {"roleSlug": slug}


async def cmd_key(args: argparse.Namespace, system: ActorSystem) -> dict[str, Any]:
    if args.action == "revoke":
        key = await system.store.find_key(args.key_id)
        if key is None:
            raise NotFound(f"API key {args.key_id} not found")
        await system.ask(ops.RevokeApiKey(args.key_id, by=SystemActor(key.account_id, "cli")))
        return {"apiKeyId": args.key_id, "revoked": True}
    account = await _workspace(system, args.workspace)
    if args.action == "list":
        return {"apiKeys": await system.store.list_api_keys(account)}
    user_id = args.user or await system.store.owner_user_id(account)
    user = None if user_id is None else await system.store.get_user(account, user_id)
    if user_id is None or user is None or user.deleted:
        raise NotFound(f"User {args.user} not found in workspace {account}")
    scopes = None if args.scopes is None else tuple(args.scopes)
    made = await system.ask(
        ops.CreateApiKey(user_id, scopes, args.name, by=SystemActor(account, "cli"))
    )
    return {"apiKey": made.api_key, "apiKeyId": made.api_key_id}


async def cmd_token(args: argparse.Namespace, system: ActorSystem) -> dict[str, Any]:
    account = await _workspace(system, args.workspace)
    user = await system.store.get_user(account, args.user)
    if user is None or user.deleted:
        raise NotFound(f"User {args.user} not found in workspace {account}")
    # (the admin commands' one composition root is main(); the token alone needs the backend)
    secret = await jwt_secret(system.store, system.settings, backend_for(system.settings))
    return {"token": issue_token(secret, account, args.user, system.settings.jwt_ttl_seconds)}


async def cmd_template(args: argparse.Namespace, system: ActorSystem) -> dict[str, Any]:
    account = await _workspace(system, args.workspace)
    module = await system.ask(ops.InstallTemplate(args.slug, by=SystemActor(account, "cli")))
    return {"moduleId": module.module_id, "moduleSlug": module.slug}


async def cmd_label(args: argparse.Namespace, system: ActorSystem) -> dict[str, Any]:
    account = await _workspace(system, args.workspace)
    made = await system.ask(ops.CreateLabel(args.name, args.color, by=SystemActor(account, "cli")))
    return {"labelId": made["id"]}


async def cmd_type(args: argparse.Namespace, system: ActorSystem) -> dict[str, Any]:
    account = await _workspace(system, args.workspace)
    made = await system.ask(
        ops.CreateType(
            args.name, getattr(args, "color", None), args.module, by=SystemActor(account, "cli")
        )
    )
    return {"typeId": made["id"]}


async def cmd_search(args: argparse.Namespace, system: ActorSystem) -> dict[str, Any]:
    from fieldhouse.search.build import rebuild

    accounts = [await _workspace(system, args.workspace)] if args.workspace else None
    return {"rebuilt": await rebuild(system.store, accounts)}


async def cmd_agent(args: argparse.Namespace, system: ActorSystem) -> dict[str, Any]:
    account = await _workspace(system, args.workspace)
    owner = await system.store.owner_user_id(account)
    agent_id = await system.ask(
        CreateAgent(args.name, args.prompt, by=SystemActor(account, "cli", owner))
    )
    return {"agentId": agent_id}


async def cmd_import(args: argparse.Namespace, system: ActorSystem) -> dict[str, Any]:
    account = await _workspace(system, args.workspace)
    return await import_records(
        system, account, args.module, args.file, progress=not args.no_progress
    )


async def cmd_export(args: argparse.Namespace, system: ActorSystem) -> dict[str, Any]:
    account = await _workspace(system, args.workspace)
    return await export_records(
        system, account, args.module, args.file, progress=not args.no_progress
    )


async def cmd_module(args: argparse.Namespace, system: ActorSystem) -> dict[str, Any]:
    from fieldhouse.cli_modules import module_command  # (the request models: only here)

    return await module_command(args, system)


async def cmd_field(args: argparse.Namespace, system: ActorSystem) -> dict[str, Any]:
    from fieldhouse.cli_modules import field_command

    return await field_command(args, system)


COMMANDS: dict[str, Command] = {
    "init": cmd_init,
    "workspace": cmd_workspace,
    "user": cmd_user,
    "role": cmd_role,
    "key": cmd_key,
    "token": cmd_token,
    "template": cmd_template,
    "label": cmd_label,
    "type": cmd_type,
    "search": cmd_search,
    "agent": cmd_agent,
    "import": cmd_import,
    "export": cmd_export,
    "module": cmd_module,
    "field": cmd_field,
}


class CliError(Exception):
    """Wrong input the command cannot go on with: one line on stderr, exit status 2."""


@asynccontextmanager
async def open_system(settings: Settings, backend: Backend) -> AsyncIterator[ActorSystem]:
    """The store and the actors; a database that cannot be opened is one CliError."""
    async with AsyncExitStack() as stack:
        try:
            store = await stack.enter_async_context(
                open_database(
                    settings.resolved_database_url, sqlite_synchronous=settings.sqlite_synchronous
                )
            )
        except StoreUnavailable as exc:  # (an ApiError for the API: the CLI names the database)
            where = _redact(settings.resolved_database_url)
            cause = exc.__cause__ or exc
            raise CliError(f"cannot open the database {where}: {_text(cause)}") from exc
        except (ApiError, UnsupportedDatabase):
            raise
        except Exception as exc:
            where = _redact(settings.resolved_database_url)
            raise CliError(
                f"cannot open the database {where} (--database-url or "
                f"FIELDHOUSE_DATABASE_URL): {_text(exc)}"
            ) from exc
        from fieldhouse.search.open import vector_model

        store.vector_model = vector_model(settings)  # records written here wait for theirs
        coordination = await stack.enter_async_context(backend.open_coordination())
        yield await stack.enter_async_context(
            open_actor_system(
                store,
                settings,
                on_change=coordination.bump,
                epoch=coordination.epoch if coordination.immediate else None,
            )
        )


async def run_admin(
    settings: Settings, backend: Backend, command: Command, args: argparse.Namespace
) -> dict[str, Any]:
    async with open_system(settings, backend) as system:
        return await command(args, system)


def run_server(settings: Settings, backend: Backend, demo: bool) -> int:
    """Prepare the store once (migrations, the demo workspace), then serve: in this process
    with one worker, else from supervised worker processes sharing one listening socket.
    What a newcomer needs (the address, a first command) is printed once the server
    answers (fieldhouse.banner)."""
    # imported here only for start-up time: the web stack and search take ~1 s to import,
    # which the admin commands need not pay
    with backend.serve_lock() as lock:
        ready = trio.run(_prepare, settings, backend, demo)
        if settings.workers <= 1:
            # a taken port is reported here, plainly: hypercorn's own bind failure inside
            # trio arrives as an exception group and leaks its unbound socket
            listening_socket(settings).close()
            trio.run(_serve_here, settings, ready)
            return 0
        sock = listening_socket(settings)
        host, port = sock.getsockname()[:2]
        logging.getLogger("fieldhouse.supervisor").info(
            "serving http://%s:%d with %d worker processes", host, port, settings.workers
        )
        become_supervisor(settings, sock, lock, announce=ready)


async def _serve_here(settings: Settings, ready: str) -> None:
    """One server process: this one, announcing itself once it answers."""
    from fieldhouse.worker import run_worker

    async with trio.open_nursery() as nursery:

        async def serve(task_status: trio.TaskStatus[list[str]]) -> None:
            await run_worker(settings, task_status=task_status)
            nursery.cancel_scope.cancel()  # stopped: the announcement need not wait

        binds = await nursery.start(serve)
        host, port = binds[0].removeprefix("http://").rsplit(":", 1)
        nursery.start_soon(announce_when_ready, base_url(host.strip("[]"), int(port)), ready)


async def _prepare(settings: Settings, backend: Backend, demo: bool) -> str:
    """Migrations, the JWT secret, the search index and (``--demo``) the demo workspace;
    what to print once the server answers."""
    async with open_system(settings, backend) as system:
        await jwt_secret(
            system.store, settings, backend
        )  # made (or moved out of the database) once
        if settings.search_enabled:
            from fieldhouse.search.build import build_if_needed

            await build_if_needed(system.store)  # once, before the workers start
        if demo:
            return await demo_banner(system, settings)
    return "Ready: {base}  (API docs: {base}/docs)"


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
        if args.command == "backup":
            result = backup(backend, args.dest)
        elif args.command == "restore":
            result = restore(settings, backend, args.source)
        else:
            result = trio.run(partial(run_admin, settings, backend, COMMANDS[args.command], args))
    except KeyboardInterrupt:
        return 130
    except Exception as raised:
        return _report(_leaf(raised), settings)
    print(json.dumps(result))
    return 0


def _report(exc: BaseException, settings: Settings) -> int:
    """One line on stderr for what went wrong, and the exit status."""
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
        return _fail("bad_request", _text(exc), 2)
    log.debug("failed", exc_info=exc)
    return _fail("internal_error", _text(exc), 1)


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
            f" {exc.strerror or _text(exc)}"
        ) from None


def _fail(code: str, message: str, status: int) -> int:
    print(json.dumps({"error": {"code": code, "message": message}}), file=sys.stderr)
    return status


def _leaf(exc: BaseException) -> BaseException:
    """The first real error inside (nested) exception groups, which trio's nurseries make."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def _text(exc: BaseException) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


def _redact(url: str) -> str:
    """The URL without its password."""
    return re.sub(r"(://[^:/@]+):[^@/]*@", r"\1:***@", url)
