"""What the `fieldhouse` commands do once their arguments are read: the admin commands (each
on the store and the actors, printing one JSON object) and the preparation of the store before
serving.

Apart from :mod:`fieldhouse.cli` (which parses the arguments and reports errors) only because
it imports most of the server (the store, the actors, the models: ~0.35-0.6 s): ``fieldhouse
serve`` starts its worker processes first, so that their own imports overlap these.
"""

from __future__ import annotations

import argparse
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any

import trio

from fieldhouse.actors import admin_ops as ops
from fieldhouse.actors.bootstrap import create_workspace, init_workspace
from fieldhouse.actors.system import ActorSystem, open_actor_system
from fieldhouse.agents.run_writes import CreateAgent
from fieldhouse.banner import announce_when_ready, base_url
from fieldhouse.cli_args import CliError, first_line, redact
from fieldhouse.config import Settings
from fieldhouse.demo import demo_banner
from fieldhouse.http.auth import issue_token, jwt_secret
from fieldhouse.model.errors import ApiError, BadRequest, NotFound, StoreUnavailable
from fieldhouse.model.principal import SystemActor
from fieldhouse.model.templates import BUILTIN_TEMPLATES
from fieldhouse.storage import open_database
from fieldhouse.storage.backend import Backend, backend_for
from fieldhouse.storage.open import UnsupportedDatabase
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
            where = redact(settings.resolved_database_url)
            cause = exc.__cause__ or exc
            raise CliError(f"cannot open the database {where}: {first_line(cause)}") from exc
        except (ApiError, UnsupportedDatabase):
            raise
        except Exception as exc:
            where = redact(settings.resolved_database_url)
            raise CliError(
                f"cannot open the database {where} (--database-url or "
                f"FIELDHOUSE_DATABASE_URL): {first_line(exc)}"
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


async def serve_here(settings: Settings, ready: str) -> None:
    """One server process: this one, announcing itself once it answers."""
    from fieldhouse.worker import run_worker

    async with trio.open_nursery() as nursery:

        async def serve(task_status: trio.TaskStatus[list[str]]) -> None:
            await run_worker(settings, task_status=task_status)
            nursery.cancel_scope.cancel()  # stopped: the announcement need not wait

        binds = await nursery.start(serve)
        host, port = binds[0].removeprefix("http://").rsplit(":", 1)
        nursery.start_soon(announce_when_ready, base_url(host.strip("[]"), int(port)), ready)


async def prepare_store(settings: Settings, backend: Backend, demo: bool) -> str:
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
