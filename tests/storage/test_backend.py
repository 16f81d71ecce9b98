"""One Backend per engine answers what differs outside the store; nothing else asks."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from fieldhouse.config import Settings
from fieldhouse.storage import open_database
from fieldhouse.storage.backend import (
    AlreadyServing,
    NoDatabaseFile,
    PostgresBackend,
    SQLiteBackend,
    backend_for,
)
from fieldhouse.storage.open import UnsupportedDatabase

PACKAGE = Path(__file__).resolve().parent.parent.parent / "fieldhouse"
#: the words code that branches on the engine is made of (docstrings and comments aside)
ENGINE_NAMES = {"is_postgres", "dialect"}
ENGINE_STRINGS = {"postgres", "postgresql", "sqlite", "sqlite:///", "postgresql://"}


def engine_branches(package: Path) -> list[str]:
    """``file:line`` of every use, outside ``storage/``, of what tells the engines apart: the
    URL's scheme compared with an engine's name, ``is_postgres``, a SQL dialect's name
    (docstrings, comments and the text of f-strings aside)."""
    found = []
    for path in sorted(package.rglob("*.py")):
        if path.relative_to(package).parts[0] != "storage":
            where = path.relative_to(package.parent)
            found += [f"{where}:{line}" for line in sorted(_engine_lines(path.read_text()))]
    return found


def _engine_lines(source: str) -> set[int]:
    tree = ast.parse(source)
    nodes = list(ast.walk(tree))
    # docstrings, and the pieces of f-strings (a message, the default URL)
    prose = {id(node.value) for node in nodes if isinstance(node, ast.Expr)}
    prose |= {id(part) for node in nodes if isinstance(node, ast.JoinedStr) for part in node.values}
    lines = set()
    for node in nodes:
        if isinstance(node, ast.Constant) and id(node) not in prose:
            word = node.value
        elif isinstance(node, ast.Name | ast.Attribute):
            word = node.id if isinstance(node, ast.Name) else node.attr
        else:
            continue
        if word in ENGINE_STRINGS | ENGINE_NAMES:
            lines.add(node.lineno)
    return lines


def test_no_code_outside_storage_branches_on_the_engine() -> None:
    assert engine_branches(PACKAGE) == [], (
        "ask the Backend (fieldhouse/storage/backend.py) instead of the engine's name"
    )


def test_the_check_sees_a_branch_on_the_scheme(tmp_path: Path) -> None:
    (tmp_path / "storage").mkdir()
    (tmp_path / "storage" / "open.py").write_text('OK = "postgresql"\n')
    (tmp_path / "auth.py").write_text(
        '"""Docstrings may say postgresql."""\n\n'
        "if urlparse(url).scheme in ('postgres', 'postgresql'):  # sqlite\n"
        "    pass\n"
        "if is_postgres(url):\n"
        "    pass\n"
    )
    assert engine_branches(tmp_path) == [
        f"{tmp_path.name}/auth.py:3",
        f"{tmp_path.name}/auth.py:5",
    ]


def test_the_settings_url_names_the_backend(tmp_path: Path) -> None:
    embedded = backend_for(Settings(data_dir=tmp_path))
    assert embedded == SQLiteBackend((tmp_path / "fieldhouse.sqlite3").resolve(), tmp_path)
    assert not embedded.distributed
    assert embedded.database_file() == (tmp_path / "fieldhouse.sqlite3").resolve()
    for url in ("postgresql://db/x", "postgres://db/x"):
        backend = backend_for(Settings(database_url=url, data_dir=tmp_path))
        assert backend == PostgresBackend(url) and backend.distributed
    with pytest.raises(UnsupportedDatabase, match="'mysql'"):
        backend_for(Settings(database_url="mysql://db/x", data_dir=tmp_path))


def test_a_second_server_on_one_data_directory_is_refused(tmp_path: Path) -> None:
    backend = backend_for(Settings(data_dir=tmp_path))
    with backend.serve_lock() as fd:
        assert fd is not None
        assert (tmp_path / "serve.lock").read_text().strip().isdigit()  # the holder's pid
        second = backend_for(Settings(data_dir=tmp_path))
        with pytest.raises(AlreadyServing, match=str(tmp_path.resolve())), second.serve_lock():
            pass
    with backend.serve_lock():  # released
        pass


def test_servers_over_postgresql_need_no_lock_and_no_file(tmp_path: Path) -> None:
    url = "postgresql://app:hunter2@db.internal:5432/fieldhouse"
    backend = backend_for(Settings(database_url=url, data_dir=tmp_path))
    with backend.serve_lock() as one, backend.serve_lock() as two:
        assert one is None and two is None
    with pytest.raises(NoDatabaseFile, match="pg_dump") as raised:
        backend.database_file()
    assert "hunter2" not in str(raised.value)
    assert not (tmp_path / "serve.lock").exists()


async def test_embedded_coordination_lives_beside_the_database(tmp_path: Path) -> None:
    backend = backend_for(Settings(data_dir=tmp_path))
    async with backend.open_coordination() as one, backend.open_coordination() as other:
        seen = other.epoch()
        await one.bump()
        assert other.epoch() != seen
        assert await one.reserve_rate_hits("key:a", 7, 2) == 2
        assert await other.reserve_rate_hits("key:a", 7, 3) == 5
    assert (tmp_path / "fieldhouse.sqlite3.epoch").exists()


async def test_each_backend_counts_rate_hits_for_every_process(settings: Settings) -> None:
    backend = backend_for(settings)
    async with (
        open_database(settings.resolved_database_url),  # (PostgreSQL: inside its loop)
        backend.open_coordination() as one,
        backend.open_coordination() as other,
    ):
        seen = one.epoch()
        await one.bump()
        assert one.epoch() != seen  # at once in the process that bumped
        assert await one.reserve_rate_hits("key:a", 7, 2) == 2
        assert await other.reserve_rate_hits("key:a", 7, 3) == 5
        assert await other.reserve_rate_hits("key:b", 7, 1) == 1
