"""Accounts, meta, users, roles, keys, labels and rate windows, on both backends."""

from __future__ import annotations

from dataclasses import replace

import pytest

from fieldhouse.model.principal import Role
from fieldhouse.storage import ApiKeyRow, Store, UserRow, accounts
from fieldhouse.storage.base import ConflictError
from tests.storage.conftest import AT, A, B, sqlite_plan


async def test_accounts_users_and_keys(store: Store) -> None:
    with pytest.raises(ConflictError):
        await store.create_account("acct-c", "Again", "a", AT)  # the slug of A
    assert [a.account_id for a in await store.list_accounts()] == [A, B]
    assert await store.set_meta_if_absent("k", "first") == "first"
    assert await store.set_meta_if_absent("k", "second") == "first"
    assert await store.get_meta("k") == "first"
    user = UserRow("u1", A, "o@example.com", "Owner", "owner", False)
    key = ApiKeyRow("k1", A, "u1", "main", "hash", ("records:read",), False)
    async with store.write(A) as txn:
        await txn.insert_user(user, AT)
        await txn.insert_role(Role("owner", frozenset({"*"}), frozenset()), AT)
        await txn.insert_api_key(key, "fh_", AT)
        await txn.insert_label("l1", "Hot", None, AT)
        assert await txn.existing_ids("labels", ["l1", "l2"]) == {"l1"}
        assert await txn.bump_schema_version() == 1
    found = await store.lookup_key("hash")
    assert found is not None and found.key == key and found.user == user
    assert found.schema_version == 1
    assert await store.owner_user_id(A) == "u1" and await store.owner_user_id(B) is None
    assert (await store.get_role(A, "owner")) == Role("owner", frozenset({"*"}), frozenset())
    async with store.write(A) as txn:
        assert await txn.revoke_api_key("k1", AT)
        assert not await txn.revoke_api_key("k1", AT)
        assert await txn.delete_user("u1", AT)
    assert await store.find_key("k1") == replace(key, revoked=True)
    assert [label["name"] for label in await store.list_labels(A)] == ["Hot"]
    assert await store.list_labels(B) == []


async def test_rate_limits_are_counted_in_a_shared_store_only(store: Store) -> None:
    if not store.shared_between_processes:
        with pytest.raises(NotImplementedError):
            await store.hit_rate_limit("ip", 100)
        return
    assert [await store.hit_rate_limit("ip", 100) for _ in range(3)] == [1, 2, 3]
    assert await store.hit_rate_limit("ip", 160) == 1
    assert await store.hit_rate_limit("other", 160) == 1


def test_a_workspaces_keys_are_listed_without_reading_every_workspaces() -> None:
    plan = sqlite_plan(accounts.list_api_keys(A))
    assert "api_keys_by_account (account_id=?)" in plan
