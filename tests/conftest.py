"""Shared fixtures: a real store under tmp_path, the actors, the app, and workspaces."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import httpx
import hypothesis
import pytest

from fieldhouse.actors import admin_ops as ops
from fieldhouse.actors.bootstrap import init_workspace
from fieldhouse.config import Settings
from fieldhouse.model.principal import SystemActor
from fieldhouse.runtime import Runtime, open_runtime
from tests.pgtools import Template, fresh_database, template_database

# a per-example deadline measures the machine, not the code: CI shares its cores
hypothesis.settings.register_profile("fieldhouse", deadline=None)
hypothesis.settings.load_profile("fieldhouse")


@pytest.fixture(autouse=True)
def _logging_as_it_was() -> Iterator[None]:
    """Logging set up by a test (the CLI's configure_logging, a library's basicConfig) ends with
    it: a handler left on a closed capture stream, or a level left at INFO, would change what
    later tests' caplog sees."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    named = {
        n: lg.level
        for n, lg in logging.root.manager.loggerDict.items()
        if isinstance(lg, logging.Logger)
    }
    yield
    root.handlers[:] = handlers
    root.setLevel(level)
    for name, lg in logging.root.manager.loggerDict.items():
        if isinstance(lg, logging.Logger):
            lg.setLevel(named.get(name, logging.NOTSET))


@dataclass(frozen=True)
class Workspace:
    account_id: str
    owner_id: str
    key: str
    key_id: str

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.key}"}

    @property
    def system(self) -> SystemActor:
        """The server acting in this workspace, in nobody's name."""
        return SystemActor(self.account_id, "test")

    @property
    def as_owner(self) -> SystemActor:
        """The server acting in this workspace in its owner's name (the CLI's way)."""
        return SystemActor(self.account_id, "test", self.owner_id)


@pytest.fixture(scope="session")
def pg_template() -> Iterator[Template]:
    """A migrated template database; each PostgreSQL test gets an empty clone of it."""
    with template_database() as template:
        yield template


@pytest.fixture
def pg_url(pg_template: Template) -> Iterator[str]:
    """The URL of a fresh, migrated PostgreSQL database, dropped after the test."""
    with fresh_database(pg_template) as url:
        yield url


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest) -> str:
    """Every test that uses a store runs on both backends."""
    return str(request.param)


@pytest.fixture
def settings(tmp_path: Path, backend: str, request: pytest.FixtureRequest) -> Settings:
    # records embed in a thread here: a child process per test would cost seconds each
    # (tests/search/test_process.py and the multi-process server tests run the child)
    base = Settings(data_dir=tmp_path / "data", rate_limit=10_000, port=0, embedding_process=False)
    if backend == "postgres":
        return replace(base, database_url=str(request.getfixturevalue("pg_url")))
    return base


@pytest.fixture
async def runtime(settings: Settings) -> AsyncIterator[Runtime]:
    async with open_runtime(settings) as rt:
        yield rt


@pytest.fixture
async def client(runtime: Runtime) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=runtime.app)  # type: ignore[arg-type]
    async with httpx.AsyncClient(transport=transport, base_url="http://fieldhouse.test") as c:
        yield c


async def make_workspace(runtime: Runtime, name: str = "Acme") -> Workspace:
    made, key = await init_workspace(runtime.actors, name, None)
    return Workspace(made.account_id, made.user_id, key.api_key, key.api_key_id)


@pytest.fixture
async def ws(runtime: Runtime) -> Workspace:
    return await make_workspace(runtime, "Acme")


@pytest.fixture
async def other_ws(runtime: Runtime) -> Workspace:
    return await make_workspace(runtime, "Globex")


async def add_user(
    runtime: Runtime, ws: Workspace, role: str, scopes: tuple[str, ...] | None = None
) -> Workspace:
    """A user with the given role and a key for them (scopes None: inherit the role)."""
    email = f"{role}-{len(role)}-{id(scopes)}@example.com"
    user_id = await runtime.actors.ask(ops.CreateUser(email, role.title(), role, by=ws.system))
    made = await runtime.actors.ask(ops.CreateApiKey(user_id, scopes, role, by=ws.system))
    return replace(ws, owner_id=user_id, key=made.api_key, key_id=made.api_key_id)
