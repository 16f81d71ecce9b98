"""`fieldhouse init`'s workspace: its templates, an owner, and a key with every scope."""

from __future__ import annotations

import pytest

from fieldhouse.actors.bootstrap import create_workspace, init_workspace, slugify
from fieldhouse.model.errors import NotFound
from fieldhouse.runtime import Runtime


def test_slugs() -> None:
    assert slugify("Acme & Sons, Ltd.") == "acme-sons-ltd"
    assert slugify("!!!") == "workspace"
    assert len(slugify("x" * 100)) == 48


async def test_init_installs_every_builtin_template_by_default(runtime: Runtime) -> None:
    made, key = await init_workspace(runtime.actors, "Acme", None)
    schemas = await runtime.actors.schemas.get(made.account_id)
    assert {s for s in ("contacts", "companies", "deals", "tasks") if schemas.get(s)} == {
        "contacts",
        "companies",
        "deals",
        "tasks",
    }
    assert key.api_key.startswith("sk_live_")
    owner = await runtime.store.get_user(made.account_id, made.user_id)
    assert owner is not None and owner.role_slug == "owner"


async def test_init_installs_only_the_templates_named(runtime: Runtime) -> None:
    made, _ = await init_workspace(runtime.actors, "Acme", ["deals", "deals"])
    schemas = await runtime.actors.schemas.get(made.account_id)
    assert schemas.get("deals") is not None
    assert schemas.get("contacts") is None


async def test_an_unknown_template_is_refused_with_the_builtin_list(
    runtime: Runtime,
) -> None:
    with pytest.raises(NotFound, match="Unknown template\\(s\\): boats; built in: "):
        await init_workspace(runtime.actors, "Acme", ["deals", "boats"])


async def test_two_workspaces_of_one_name_get_distinct_slugs(runtime: Runtime) -> None:
    first = await create_workspace(runtime.actors, "Acme")
    second = await create_workspace(runtime.actors, "Acme")
    assert first.account_id != second.account_id
    emails = [(await runtime.store.list_users(ws.account_id))[0]["email"] for ws in (first, second)]
    assert emails[0] == "owner@acme.example"
    assert emails[1].startswith("owner@acme-") and emails[1] != emails[0]
