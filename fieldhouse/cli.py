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
from pathlib import Path
from typing import Any

import trio

from fieldhouse import __version__
from fieldhouse.actors import admin_ops as ops
from fieldhouse.actors.bootstrap import create_workspace, init_workspace
from fieldhouse.actors.run_ops import CreateAgent
from fieldhouse.actors.system import ActorSystem, open_actor_system
from fieldhouse.backup import BackupError, backup, restore
from fieldhouse.banner import announce_when_ready, base_url
from fieldhouse.config import MAX_WORKERS, Settings, SettingsError, settings_from_env
from fieldhouse.coordination import open_coordination
from fieldhouse.demo import demo_banner
from fieldhouse.http.auth import issue_token, jwt_secret
from fieldhouse.logs import configure_logging
from fieldhouse.model.errors import ApiError, BadRequest, NotFound
from fieldhouse.model.templates import BUILTIN_TEMPLATES
from fieldhouse.storage import open_database
from fieldhouse.storage.open import UnsupportedDatabase
from fieldhouse.supervisor import (
    AlreadyServing,
    become_supervisor,
    data_dir_lock,
    listening_socket,
)
from fieldhouse.transfer import export_records, import_records

log = logging.getLogger("fieldhouse.cli")
Command = Callable[[argparse.Namespace, ActorSystem], Awaitable[dict[str, Any]]]


def _csv(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def _bounded(low: int, high: int | None = None) -> Callable[[str], int]:
    """An argparse type: an integer from ``low`` to ``high``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, not {text!r}") from None
        if value < low or (high is not None and value > high):
            bounds = f"from {low} to {high}" if high is not None else f"at least {low}"
            raise argparse.ArgumentTypeError(f"expected an integer {bounds}, not {text!r}")
        return value

    return parse


def _global_options(parser: argparse.ArgumentParser, *, default: Any) -> None:
    """--database-url and --data-dir: accepted before the subcommand and after it. After it
    their default is SUPPRESS, so a subcommand that does not repeat them keeps the value given
    before it (argparse would otherwise overwrite it with the subparser's default)."""
    parser.add_argument(
        "--database-url",
        default=default,
        help="postgresql://... or sqlite:///path (default: SQLite under --data-dir); "
        "env FIELDHOUSE_DATABASE_URL",
    )
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=default,
        help="embedded store folder (default ./fieldhouse-data); env FIELDHOUSE_DATA_DIR",
    )


def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    _global_options(common, default=argparse.SUPPRESS)
    parser = argparse.ArgumentParser(
        prog="fieldhouse",
        description="Fieldhouse workspace data server. Admin commands print one JSON object "
        "on stdout; errors print one line on stderr and exit non-zero.",
    )
    _global_options(parser, default=None)
    parser.add_argument("--version", action="version", version=f"fieldhouse {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def group(name: str, text: str) -> argparse._SubParsersAction[argparse.ArgumentParser]:
        p = sub.add_parser(name, parents=[common], help=text, description=text)
        return p.add_subparsers(dest="action", required=True, metavar="ACTION")

    def command(
        parent: argparse._SubParsersAction[argparse.ArgumentParser], name: str, text: str
    ) -> argparse.ArgumentParser:
        return parent.add_parser(name, parents=[common], help=text, description=text)

    def workspace_option(p: argparse.ArgumentParser, required: bool = True) -> None:
        p.add_argument(
            "--workspace", required=required, metavar="ACCOUNT_ID", help="the workspace's id"
        )

    p = command(sub, "init", "create a workspace with templates and print its first API key")
    p.add_argument("--name", default="My workspace", help="workspace name")
    p.add_argument(
        "--template",
        action="append",
        dest="templates",
        metavar="SLUG",
        help="template to install (repeatable; default: every built-in template)",
    )

    for verb, text in (("import", "records from"), ("export", "records to")):
        p = command(sub, verb, f"a module's {text} FILE.csv|.jsonl")
        workspace_option(p)
        p.add_argument("--module", required=True, metavar="SLUG", help="the module's slug")
        p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
        p.add_argument("file", type=Path, metavar="FILE", help="a .csv or .jsonl file")

    ws = group("workspace", "workspaces")
    p = command(ws, "create", "create an empty workspace and its owner")
    p.add_argument("--name", required=True, help="workspace name")
    command(ws, "list", "list workspaces")

    us = group("user", "users of a workspace")
    p = command(us, "create", "add a user to a workspace")
    workspace_option(p)
    p.add_argument("--email", required=True, help="the user's e-mail address")
    p.add_argument("--display-name", required=True, help="the user's display name")
    p.add_argument("--role", required=True, help="role slug (owner, admin, member, ...)")
    p = command(us, "delete", "soft-delete a user; their keys stop working")
    workspace_option(p)
    p.add_argument("user_id", metavar="USER", help="the user's id")
    p = command(us, "list", "list a workspace's users")
    workspace_option(p)

    rs = group("role", "custom roles")
    p = command(rs, "create", "create a role that may view and edit given modules")
    workspace_option(p)
    p.add_argument("--slug", required=True, help="role slug")
    p.add_argument(
        "--can-view", required=True, type=_csv, help="comma-separated module slugs it may see"
    )
    p.add_argument(
        "--can-edit", default=[], type=_csv, help="comma-separated module slugs it may change"
    )

    ks = group("key", "API keys")
    p = command(ks, "create", "create an API key and print its secret (shown once)")
    workspace_option(p)
    p.add_argument("--user", metavar="USER_ID", help="the key's user (default: the owner)")
    p.add_argument(
        "--scopes", type=_csv, help="comma-separated scopes (default: the user's role decides)"
    )
    p.add_argument("--name", help="a name to recognise the key by")
    p = command(ks, "revoke", "revoke an API key")
    p.add_argument("key_id", metavar="KEY_ID", help="the key's id")
    p = command(ks, "list", "list a workspace's API keys (never their secrets or hashes)")
    workspace_option(p)

    p = command(sub, "token", "issue a session JWT (HS256) for a user")
    workspace_option(p)
    p.add_argument("--user", required=True, metavar="USER_ID", help="the user's id")

    ts = group("template", "module templates")
    p = command(ts, "install", "install a built-in template into a workspace")
    workspace_option(p)
    p.add_argument("slug", metavar="SLUG", help="template slug (contacts, companies, ...)")

    ls = group("label", "record labels")
    p = command(ls, "create", "create a label")
    workspace_option(p)
    p.add_argument("--name", required=True, help="label name")
    p.add_argument("--color", help="label colour")

    ty = group("type", "record types")
    p = command(ty, "create", "create a record type")
    workspace_option(p)
    p.add_argument("--name", required=True, help="type name")
    p.add_argument("--module", metavar="SLUG", help="limit the type to one module")

    se = group("search", "search indexes")
    p = command(se, "rebuild", "rebuild search indexes from the store")
    workspace_option(p, required=False)

    ag = group("agent", "agents")
    p = command(ag, "create", "create a named agent with its own system prompt")
    workspace_option(p)
    p.add_argument("--name", required=True, help="agent name")
    p.add_argument("--prompt", required=True, help="its system prompt")

    p = command(sub, "backup", "copy the SQLite database into DIR (while serving too)")
    p.add_argument("dest", metavar="DIR", type=Path, help="the directory to write the copy in")
    p = command(sub, "restore", "replace the SQLite database with a backup file")
    p.add_argument("source", metavar="FILE", type=Path, help="a file `backup` wrote")

    p = command(sub, "serve", "serve the HTTP API")
    p.add_argument("--host", help="address to listen on (default 127.0.0.1); env FIELDHOUSE_HOST")
    p.add_argument(
        "--port",
        type=_bounded(0, 65535),
        help="port to listen on (default 8080); env FIELDHOUSE_PORT",
    )
    p.add_argument(
        "--rate-limit", type=_bounded(1), help="requests per key per minute (default 600)"
    )
    p.add_argument(
        "--workers",
        type=_bounded(1, MAX_WORKERS),
        help="server processes sharing the port (default: the number of cores); env "
        "FIELDHOUSE_WORKERS",
    )
    p.add_argument(
        "--demo",
        action="store_true",
        help="on an empty database, create a demo workspace and print its key once",
    )
    return parser


def settings_from_args(args: argparse.Namespace) -> Settings:
    return settings_from_env().with_overrides(
        database_url=getattr(args, "database_url", None),
        data_dir=getattr(args, "data_dir", None),
        host=getattr(args, "host", None),
        port=getattr(args, "port", None),
        rate_limit=getattr(args, "rate_limit", None),
        workers=getattr(args, "workers", None),
    )


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
        await system.ask(account, ops.DeleteUser(args.user_id))
        return {"userId": args.user_id, "deleted": True}
    user_id = await system.ask(account, ops.CreateUser(args.email, args.display_name, args.role))
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
        account, ops.CreateRole(args.slug, frozenset(args.can_view), frozenset(args.can_edit))
    )
    return {"roleSlug": slug}


async def cmd_key(args: argparse.Namespace, system: ActorSystem) -> dict[str, Any]:
    if args.action == "revoke":
        key = await system.store.find_key(args.key_id)
        if key is None:
            raise NotFound(f"API key {args.key_id} not found")
        await system.ask(key.account_id, ops.RevokeApiKey(args.key_id))
        return {"apiKeyId": args.key_id, "revoked": True}
    account = await _workspace(system, args.workspace)
    if args.action == "list":
        return {"apiKeys": await system.store.list_api_keys(account)}
    user_id = args.user or await system.store.owner_user_id(account)
    user = None if user_id is None else await system.store.get_user(account, user_id)
    if user_id is None or user is None or user.deleted:
        raise NotFound(f"User {args.user} not found in workspace {account}")
    scopes = None if args.scopes is None else tuple(args.scopes)
    made = await system.ask(account, ops.CreateApiKey(user_id, scopes, args.name))
    return {"apiKey": made.api_key, "apiKeyId": made.api_key_id}


async def cmd_token(args: argparse.Namespace, system: ActorSystem) -> dict[str, Any]:
    account = await _workspace(system, args.workspace)
    user = await system.store.get_user(account, args.user)
    if user is None or user.deleted:
        raise NotFound(f"User {args.user} not found in workspace {account}")
    secret = await jwt_secret(system.store, system.settings)
    return {"token": issue_token(secret, account, args.user, system.settings.jwt_ttl_seconds)}


async def cmd_template(args: argparse.Namespace, system: ActorSystem) -> dict[str, Any]:
    account = await _workspace(system, args.workspace)
    module = await system.ask(account, ops.InstallTemplate(args.slug))
    return {"moduleId": module.module_id, "moduleSlug": module.slug}


async def cmd_label(args: argparse.Namespace, system: ActorSystem) -> dict[str, Any]:
    account = await _workspace(system, args.workspace)
    made = await system.ask(account, ops.CreateLabel(args.name, args.color))
    return {"labelId": made["id"]}


async def cmd_type(args: argparse.Namespace, system: ActorSystem) -> dict[str, Any]:
    account = await _workspace(system, args.workspace)
    made = await system.ask(
        account, ops.CreateType(args.name, getattr(args, "color", None), args.module)
    )
    return {"typeId": made["id"]}


async def cmd_search(args: argparse.Namespace, system: ActorSystem) -> dict[str, Any]:
    from fieldhouse.search.build import rebuild

    accounts = [await _workspace(system, args.workspace)] if args.workspace else None
    return {"rebuilt": await rebuild(system.store, accounts)}


async def cmd_agent(args: argparse.Namespace, system: ActorSystem) -> dict[str, Any]:
    account = await _workspace(system, args.workspace)
    owner = await system.store.owner_user_id(account)
    agent_id = await system.ask(account, CreateAgent(args.name, args.prompt, actor_user_id=owner))
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
}


class CliError(Exception):
    """Wrong input the command cannot go on with: one line on stderr, exit status 2."""


@asynccontextmanager
async def open_system(settings: Settings) -> AsyncIterator[ActorSystem]:
    """The store and the actors; a database that cannot be opened is one CliError."""
    async with AsyncExitStack() as stack:
        try:
            store = await stack.enter_async_context(open_database(settings.resolved_database_url))
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
        coordination = await stack.enter_async_context(open_coordination(settings))
        yield await stack.enter_async_context(
            open_actor_system(store, settings, on_change=coordination.bump)
        )


async def run_admin(
    settings: Settings, command: Command, args: argparse.Namespace
) -> dict[str, Any]:
    async with open_system(settings) as system:
        return await command(args, system)


def run_server(settings: Settings, demo: bool) -> int:
    """Prepare the store once (migrations, the demo workspace), then serve: in this process
    with one worker, else from supervised worker processes sharing one listening socket.
    What a newcomer needs (the address, a first command) is printed once the server
    answers (fieldhouse.banner)."""
    # imported here only for start-up time: the web stack and search take ~1 s to import,
    # which the admin commands need not pay
    with data_dir_lock(settings) as lock:
        ready = trio.run(_prepare, settings, demo)
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


async def _prepare(settings: Settings, demo: bool) -> str:
    """Migrations, the JWT secret, the search index and (``--demo``) the demo workspace;
    what to print once the server answers."""
    async with open_system(settings) as system:
        await jwt_secret(system.store, settings)  # made (or moved out of the database) once
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
        if args.command == "serve":
            return run_server(settings, args.demo)
        if args.command == "backup":
            result = backup(settings, args.dest)
        elif args.command == "restore":
            result = restore(settings, args.source)
        else:
            result = trio.run(partial(run_admin, settings, COMMANDS[args.command], args))
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
