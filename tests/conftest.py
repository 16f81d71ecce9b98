"""Shared fixtures: a real store under tmp_path, the actors, the app, and workspaces."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from pathlib import Path

import httpx
import pytest

from fieldhouse.actors import admin_ops as ops
from fieldhouse.actors.bootstrap import init_workspace
from fieldhouse.config import Settings
from fieldhouse.http.server import Runtime, open_runtime


@dataclass(frozen=True)
class Workspace:
    account_id: str
    owner_id: str
    key: str
    key_id: str

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.key}"}


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path / "data", rate_limit=10_000, port=0)


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
    user_id = await runtime.actors.ask(ws.account_id, ops.CreateUser(email, role.title(), role))
    made = await runtime.actors.ask(ws.account_id, ops.CreateApiKey(user_id, scopes, role))
    return replace(ws, owner_id=user_id, key=made.api_key, key_id=made.api_key_id)
