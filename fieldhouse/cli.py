"""The `fieldhouse` command line. Admin commands print one JSON object on stdout."""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections.abc import Awaitable, Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import trio

from fieldhouse.actors import admin_ops as ops
from fieldhouse.actors.bootstrap import create_workspace, init_workspace
from fieldhouse.actors.run_ops import CreateAgent
from fieldhouse.actors.system import ActorSystem, open_actor_system
from fieldhouse.backup import BackupError, backup, restore
from fieldhouse.config import Settings, SettingsError, settings_from_env
from fieldhouse.http.auth import issue_token, jwt_secret
from fieldhouse.logs import configure_logging
from fieldhouse.model.errors import ApiError, NotFound
from fieldhouse.storage import open_database
from fieldhouse.storage.open import UnsupportedDatabase
from fieldhouse.supervisor import AlreadyServing, data_dir_lock, listening_socket, supervise

Command = Callable[[argparse.Namespace, ActorSystem], Awaitable[dict[str, Any]]]


def _csv(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--database-url",
        help="postgresql://... or sqlite:///path (default: "
        "SQLite under --data-dir); env FIELDHOUSE_DATABASE_URL",
    )
    common.add_argument(
        "--data-dir",
        type=Path,
        help="embedded store folder (default ./fieldhouse-data); env FIELDHOUSE_DATA_DIR",
    )
    parser = argparse.ArgumentParser(
        prog="fieldhouse", parents=[common], description="Fieldhouse workspace data server"
    )
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("init", parents=[common], help="a workspace with templates and a key")
    p.add_argument("--name", default="My workspace")
    p.add_argument("--template", action="append", dest="templates", metavar="SLUG")

    ws = sub.add_parser("workspace", parents=[common]).add_subparsers(dest="action", required=True)
    p = ws.add_parser("create", parents=[common])
    p.add_argument("--name", required=True)

    us = sub.add_parser("user", parents=[common]).add_subparsers(dest="action", required=True)
    p = us.add_parser("create", parents=[common])
    p.add_argument("--workspace", required=True)
    p.add_argument("--email", required=True)
    p.add_argument("--display-name", required=True)
    p.add_argument("--role", required=True)
    p = us.add_parser("delete", parents=[common], help="soft-delete; their keys stop working")
    p.add_argument("--workspace", required=True)
    p.add_argument("user_id", metavar="USER")

    rs = sub.add_parser("role", parents=[common]).add_subparsers(dest="action", required=True)
    p = rs.add_parser("create", parents=[common])
    p.add_argument("--workspace", required=True)
    p.add_argument("--slug", required=True)
    p.add_argument("--can-view", required=True, type=_csv)
    p.add_argument("--can-edit", default=[], type=_csv)

    ks = sub.add_parser("key", parents=[common]).add_subparsers(dest="action", required=True)
    p = ks.add_parser("create", parents=[common])
    p.add_argument("--workspace", required=True)
    p.add_argument("--user")
    p.add_argument("--scopes", type=_csv)
    p.add_argument("--name")
    p = ks.add_parser("revoke", parents=[common])
    p.add_argument("key_id", metavar="KEY_ID")

    p = sub.add_parser("token", parents=[common], help="a session JWT (HS256)")
    p.add_argument("--workspace", required=True)
    p.add_argument("--user", required=True)

    ts = sub.add_parser("template", parents=[common]).add_subparsers(dest="action", required=True)
    p = ts.add_parser("install", parents=[common])
    p.add_argument("--workspace", required=True)
    p.add_argument("slug", metavar="SLUG")

    ls = sub.add_parser("label", parents=[common]).add_subparsers(dest="action", required=True)
    p = ls.add_parser("create", parents=[common])
    p.add_argument("--workspace", required=True)
    p.add_argument("--name", required=True)
    p.add_argument("--color")

    ty = sub.add_parser("type", parents=[common]).add_subparsers(dest="action", required=True)
    p = ty.add_parser("create", parents=[common])
    p.add_argument("--workspace", required=True)
    p.add_argument("--name", required=True)
    p.add_argument("--module")

    se = sub.add_parser("search", parents=[common]).add_subparsers(dest="action", required=True)
    p = se.add_parser("rebuild", parents=[common], help="rebuild search indexes from the store")
    p.add_argument("--workspace", help="one workspace (default: every workspace)")

    ag = sub.add_parser("agent", parents=[common]).add_subparsers(dest="action", required=True)
    p = ag.add_parser("create", parents=[common], help="a named agent with its own system prompt")
    p.add_argument("--workspace", required=True)
    p.add_argument("--name", required=True)
    p.add_argument("--prompt", required=True)

    p = sub.add_parser(
        "backup", parents=[common], help="copy the SQLite database into DIR (while serving too)"
    )
    p.add_argument("dest", metavar="DIR", type=Path)
    p = sub.add_parser(
        "restore", parents=[common], help="replace the SQLite database with a backup file"
    )
    p.add_argument("source", metavar="FILE", type=Path)

    p = sub.add_parser("serve", parents=[common], help="serve the HTTP API")
    p.add_argument("--host")
    p.add_argument("--port", type=int)
    p.add_argument("--rate-limit", type=int, help="requests per key per minute (default 600)")
    p.add_argument(
        "--workers",
        type=int,
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
        database_url=args.database_url,
        data_dir=args.data_dir,
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
    workspace = await create_workspace(system, args.name)
    return {"accountId": workspace.account_id, "userId": workspace.user_id}


async def cmd_user(args: argparse.Namespace, system: ActorSystem) -> dict[str, Any]:
    account = await _workspace(system, args.workspace)
    if args.action == "delete":
        await system.ask(account, ops.DeleteUser(args.user_id))
        return {"userId": args.user_id, "deleted": True}
    user_id = await system.ask(account, ops.CreateUser(args.email, args.display_name, args.role))
    return {"userId": user_id}


async def cmd_role(args: argparse.Namespace, system: ActorSystem) -> dict[str, Any]:
    account = await _workspace(system, args.workspace)
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
    # imported here only for start-up time: the embedder and whoosh take ~0.3 s to import,
    # which every other admin command would pay
    from fieldhouse.search.indexer import rebuild_indexes

    accounts = [await _workspace(system, args.workspace)] if args.workspace else None
    return {"rebuilt": await rebuild_indexes(system.settings, system.store, accounts)}


async def cmd_agent(args: argparse.Namespace, system: ActorSystem) -> dict[str, Any]:
    account = await _workspace(system, args.workspace)
    owner = await system.store.owner_user_id(account)
    agent_id = await system.ask(account, CreateAgent(args.name, args.prompt, actor_user_id=owner))
    return {"agentId": agent_id}


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
}


async def run_admin(
    settings: Settings, command: Command, args: argparse.Namespace
) -> dict[str, Any]:
    async with (
        open_database(settings.resolved_database_url) as store,
        open_actor_system(store, settings) as system,
    ):
        return await command(args, system)


def run_server(settings: Settings, demo: bool) -> int:
    """Prepare the store once (migrations, the demo workspace), then serve: in this process
    with one worker, else from supervised worker processes sharing one listening socket."""
    # imported here only for start-up time: the web stack and search take ~1 s to import,
    # which the admin commands need not pay
    from fieldhouse.worker import run_worker

    with data_dir_lock(settings):
        trio.run(_prepare, settings, demo)
        if settings.workers <= 1:
            trio.run(run_worker, settings)
            return 0
        sock = listening_socket(settings)
        host, port = sock.getsockname()[:2]
        logging.getLogger("fieldhouse.supervisor").info(
            "serving http://%s:%d with %d worker processes", host, port, settings.workers
        )
        return trio.run(supervise, settings, sock)


async def _prepare(settings: Settings, demo: bool) -> None:
    async with (
        open_database(settings.resolved_database_url) as store,
        open_actor_system(store, settings) as system,
    ):
        await jwt_secret(store, settings)  # made (or moved out of the database) once, here
        if demo:
            await _demo(system, settings)


async def _demo(system: ActorSystem, settings: Settings) -> None:
    accounts = await system.store.list_accounts()
    base = f"http://{settings.host}:{settings.port}"
    if accounts:
        first = accounts[0]
        print(
            f"Workspace {first.name!r} ({first.account_id}) exists; its API key was printed "
            f"when it was created. A new one: fieldhouse key create --workspace "
            f"{first.account_id}",
            flush=True,
        )
        return
    workspace, key = await init_workspace(system, "Demo workspace", None)
    print("Created the demo workspace with every built-in template.", flush=True)
    print(f"  accountId: {workspace.account_id}", flush=True)
    print(f"  API key (shown once, keep it): {key.api_key}", flush=True)
    print(f"  try: curl -H 'Authorization: Bearer {key.api_key}' {base}/v1/modules", flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        settings = settings_from_args(args)
    except SettingsError as exc:
        print(json.dumps({"error": {"code": "bad_request", "message": str(exc)}}), file=sys.stderr)
        return 2
    configure_logging(settings)
    try:
        if args.command == "serve":
            return run_server(settings, args.demo)
        if args.command == "backup":
            result = backup(settings, args.dest)
        elif args.command == "restore":
            result = restore(settings, args.source)
        else:
            result = trio.run(partial(run_admin, settings, COMMANDS[args.command], args))
    except ApiError as exc:
        print(json.dumps(exc.to_json()), file=sys.stderr)
        return 1
    except (UnsupportedDatabase, AlreadyServing, BackupError) as exc:
        print(json.dumps({"error": {"code": "bad_request", "message": str(exc)}}), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    print(json.dumps(result))
    return 0
