"""Schema snapshots: readers get frozen snapshots; a newer version replaces an older one."""

from __future__ import annotations

from fieldhouse.actors.admin_ops import InstallTemplate
from fieldhouse.actors.bootstrap import init_workspace
from fieldhouse.actors.schemas import SchemaRegistry
from fieldhouse.model.principal import SystemActor
from fieldhouse.runtime import Runtime
from tests.conftest import Workspace


async def test_a_snapshot_is_reused_until_a_newer_version_is_asked_for(runtime: Runtime) -> None:
    made, _ = await init_workspace(runtime.actors, "Deals only", ["deals"])
    account = made.account_id
    # a registry of its own stands for another process's: it learns of changes only through
    # the version its callers ask for
    registry = SchemaRegistry(runtime.store)
    first = await registry.get(account)
    assert await registry.get(account) is first
    assert await registry.get(account, at_least=first.version) is first
    await runtime.actors.ask(InstallTemplate("tasks", by=SystemActor(account, "test")))
    assert (await registry.get(account)).get("tasks") is None  # still the old snapshot
    fresh = await registry.get(account, at_least=first.version + 1)
    assert fresh.version > first.version
    assert fresh.get("tasks") is not None


async def test_publish_never_goes_back_to_an_older_version(runtime: Runtime, ws: Workspace) -> None:
    registry = SchemaRegistry(runtime.store)
    current = await registry.get(ws.account_id)
    registry.publish(ws.account_id, current.version - 1, {})
    assert await registry.get(ws.account_id) is current
    registry.publish(ws.account_id, current.version + 1, {})
    newer = await registry.get(ws.account_id)
    assert newer.version == current.version + 1 and not newer.modules
