"""Who is asking: a role's modules and the scopes a key narrows it to."""

from __future__ import annotations

import pytest

from fieldhouse.model.errors import Forbidden, NotFound
from fieldhouse.model.principal import (
    SCOPES,
    Principal,
    Role,
    SystemActor,
    builtin_role,
    key_role,
)


def principal(role: Role, scopes: frozenset[str] | None = None) -> Principal:
    return Principal("acct", "user", "Ada", role, scopes, "api_key", "key-1", "key-1")


def test_builtin_roles() -> None:
    assert builtin_role("owner") == Role("owner", None, None)
    assert builtin_role("viewer") == Role("viewer", None, frozenset())
    assert builtin_role("guest") is None
    owner = principal(Role("owner", None, None))
    assert owner.is_admin and all(owner.has_scope(s) for s in SCOPES)
    assert not principal(Role("member", None, None)).is_admin


def test_a_viewer_reads_and_never_writes() -> None:
    viewer = principal(Role("viewer", None, frozenset()))
    assert viewer.has_scope("records:read")
    assert not viewer.has_scope("records:write")
    assert not viewer.has_scope("agents:write")
    assert viewer.can_view("contacts") and not viewer.can_edit("contacts")


def test_a_role_that_edits_nothing_may_still_run_agents() -> None:
    reader = principal(Role("reader", None, frozenset()))
    assert reader.has_scope("agents:write") and not reader.has_scope("records:write")


def test_a_key_narrows_the_role_and_never_widens_it() -> None:
    narrow = principal(Role("member", None, None), frozenset({"records:read"}))
    assert narrow.has_scope("records:read")
    assert not narrow.has_scope("records:write")
    viewer_key = principal(Role("viewer", None, frozenset()), frozenset(SCOPES))
    assert not viewer_key.has_scope("records:write")


def test_module_permissions() -> None:
    role = Role("sales", frozenset({"contacts", "deals"}), frozenset({"deals"}))
    sales = principal(role)
    assert sales.visible(["contacts", "deals", "tasks"]) == ["contacts", "deals"]
    assert sales.can_edit("deals") and not sales.can_edit("contacts")
    # editing needs seeing: an edit list naming a hidden module grants nothing
    odd = principal(Role("odd", frozenset({"contacts"}), frozenset({"tasks"})))
    assert not odd.can_edit("tasks")
    assert sales.role_slugs == ["sales"]


def test_a_key_acts_with_its_own_role_or_its_users_whichever_is_lower() -> None:
    admin, viewer = builtin_role("admin"), builtin_role("viewer")
    assert admin is not None and viewer is not None
    assert key_role(admin, None) == admin
    assert key_role(admin, "viewer") == viewer
    assert key_role(viewer, "owner") == viewer  # a user moved down takes their keys along
    sales = Role("sales", frozenset({"deals"}), frozenset({"deals"}))
    assert key_role(sales, "admin") == sales
    assert key_role(sales, "viewer") == Role("viewer", frozenset({"deals"}), frozenset())


def test_the_rights_checks_refuse_with_one_envelope_each() -> None:
    """What a route says before it reads a body is what the actor says as it writes."""
    sales = principal(Role("sales", frozenset({"deals", "contacts"}), frozenset({"contacts"})))
    sales.check_edit("contacts")
    with pytest.raises(Forbidden) as refused:
        sales.check_edit("deals")
    assert refused.value.to_json()["error"] == {
        "code": "forbidden",
        "message": "Your role may not change records of module 'deals'",
        "statusCode": 403,
    }
    with pytest.raises(NotFound, match="Module 'tasks' not found"):
        sales.check_edit("tasks")  # not even seen: as if absent
    reader = principal(Role("member", None, None), frozenset({"records:read"}))
    with pytest.raises(Forbidden) as lacking:
        reader.check_edit("contacts")
    assert lacking.value.data == {"requiredScope": "records:write"}
    with pytest.raises(Forbidden, match="Only workspace owners and admins may do this"):
        sales.check_admin()
    principal(Role("admin", None, None)).check_admin()


def test_the_server_acting_on_its_own_may_do_everything() -> None:
    cli = SystemActor("acct", "cli", "owner-1")
    cli.check_edit("anything")
    cli.check_admin()
    cli.check_scope("records:write")
    assert cli.user_id == "owner-1"


def test_a_key_is_granted_at_most_its_makers_rights() -> None:
    admin = principal(Role("admin", None, None), frozenset({"records:read", "workspace:read"}))
    admin.check_may_grant("member", ("records:read",))
    with pytest.raises(Forbidden, match="may not create a key with role 'owner'"):
        admin.check_may_grant("owner", ("records:read",))
    with pytest.raises(Forbidden) as lacking:
        admin.check_may_grant(None, ("records:read", "records:write"))
    assert lacking.value.data["lackingScopes"] == ["records:write"]
    with pytest.raises(Forbidden, match="may only create keys with scopes among those"):
        admin.check_may_grant(None, None)
    SystemActor("acct", "cli").check_may_grant("owner", None)
