"""The lookups every route shares: slug and uuid checks, and a module the caller may see."""

from __future__ import annotations

import pytest

from fieldhouse.http.exchange import Exchange, asgi_body, enter
from fieldhouse.http.routes.common import check_slug, check_uuid, visible_module
from fieldhouse.model.errors import Forbidden, NotFound, ValidationFailed
from fieldhouse.model.principal import Principal, Role
from fieldhouse.runtime import Runtime
from tests.conftest import Workspace


def test_slugs_are_1_to_64_characters() -> None:
    check_slug("x" * 64)
    with pytest.raises(ValidationFailed) as long:
        check_slug("x" * 65)
    assert [i.to_json() for i in long.value.issues] == [
        {
            "code": "too_big",
            "path": ["moduleSlug"],
            "message": "moduleSlug must be 1 to 64 characters",
            "maximum": 64,
            "inclusive": True,
            "type": "string",
        }
    ]
    with pytest.raises(ValidationFailed) as empty:
        check_slug("", "fieldSlug")
    assert empty.value.issues[0].code == "too_small"
    assert empty.value.issues[0].path == ("fieldSlug",)


def test_uuids() -> None:
    check_uuid("0b6a9f1e-3f1c-4c33-9d7a-1e2f3a4b5c6d", "recordId")
    with pytest.raises(ValidationFailed, match="recordId must be a uuid"):
        check_uuid("r1", "recordId")


async def test_a_hidden_module_is_absent_and_a_read_only_one_refuses_writes(
    runtime: Runtime, ws: Workspace
) -> None:
    role = Role("sales", frozenset({"deals", "contacts"}), frozenset({"deals"}))
    sales = Principal(ws.account_id, ws.owner_id, "Sal", role, None, "api_key", None, "k")

    async def no_body() -> dict[str, object]:
        return {"type": "http.request", "body": b""}

    # a request's exchange: the lookup reads the schema version its credential check saw
    scope = {"method": "GET", "path": "/v1/modules", "query_string": b"", "headers": []}
    enter(Exchange(scope, asgi_body(no_body), None))
    schema, _ = await visible_module(runtime.services, sales, "deals", write=True)
    assert schema.module.slug == "deals"
    with pytest.raises(NotFound, match="Module 'tasks' not found"):
        await visible_module(runtime.services, sales, "tasks")
    with pytest.raises(NotFound, match="Module 'boats' not found"):
        await visible_module(runtime.services, sales, "boats")
    await visible_module(runtime.services, sales, "contacts")
    with pytest.raises(Forbidden, match="may not change records of module 'contacts'"):
        await visible_module(runtime.services, sales, "contacts", write=True)
