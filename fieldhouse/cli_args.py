"""The `fieldhouse` command line's arguments: the parser (every command, its options and
their help) and the Settings they make with the FIELDHOUSE_* variables."""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fieldhouse import __version__
from fieldhouse.config import MAX_WORKERS, Settings, settings_from_env


class CliError(Exception):
    """Wrong input the command cannot go on with: one line on stderr, exit status 2."""


def first_line(exc: BaseException) -> str:
    """An error's first line, for a one-line message."""
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


def redact(url: str) -> str:
    """The URL without its password."""
    return re.sub(r"(://[^:/@]+):[^@/]*@", r"\1:***@", url)


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

    add_module_parsers(group, command, workspace_option)

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


def add_module_parsers(group: Any, command: Any, workspace_option: Any) -> None:
    """The `module` and `field` command groups (cli_args.build_parser's helpers passed in)."""
    ms = group("module", "custom modules")
    p = command(ms, "create", "create a custom module and its fields from a JSON file")
    workspace_option(p)
    p.add_argument(
        "--file",
        required=True,
        type=Path,
        metavar="FILE",
        help="JSON: {slug, name, fields: [{label, dataType, slug?, config?, ...}]} as "
        "POST /api/modules takes it",
    )
    p = command(ms, "list", "list a workspace's modules, archived ones too")
    workspace_option(p)
    for verb, text in (
        ("archive", "archive a module (its data kept)"),
        ("unarchive", "bring an archived module back"),
    ):
        p = command(ms, verb, text)
        workspace_option(p)
        p.add_argument("slug", metavar="SLUG", help="the module's slug")

    fs = group("field", "fields of a module")
    p = command(fs, "add", "add a custom field to a module from a JSON file")
    workspace_option(p)
    p.add_argument("--module", required=True, metavar="SLUG", help="the module's slug")
    p.add_argument(
        "--file",
        required=True,
        type=Path,
        metavar="FILE",
        help="JSON: {label, dataType, slug?, config?, ...} as POST /api/modules/{moduleId}/"
        "fields takes it",
    )
    for verb, text in (
        ("archive", "archive a field (hidden, refused on writes, its values kept)"),
        ("unarchive", "bring an archived field back with its values"),
    ):
        p = command(fs, verb, text)
        workspace_option(p)
        p.add_argument("--module", required=True, metavar="SLUG", help="the module's slug")
        p.add_argument("slug", metavar="FIELD", help="the field's slug")


def settings_from_args(args: argparse.Namespace) -> Settings:
    return settings_from_env().with_overrides(
        database_url=getattr(args, "database_url", None),
        data_dir=getattr(args, "data_dir", None),
        host=getattr(args, "host", None),
        port=getattr(args, "port", None),
        rate_limit=getattr(args, "rate_limit", None),
        workers=getattr(args, "workers", None),
    )
