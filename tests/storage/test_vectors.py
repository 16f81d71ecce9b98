"""Stored sentence vectors: one process claims a record version, embeds it once, and every
process reads the same bytes; on both backends, through the Store itself."""

from __future__ import annotations

from fieldhouse.storage import Store
from tests.storage.conftest import A, B

MODEL = "test-model"


async def test_one_claim_wins_and_everyone_reads_the_stored_vector(store: Store) -> None:
    keys = [("r1", "v1"), ("r2", "v1")]
    assert await store.get_vectors(A, MODEL, keys) == {}
    first = await store.claim_vectors(A, MODEL, keys, now=100.0, stale=10.0)
    assert sorted(first) == ["r1", "r2"]
    # a second process claiming the same versions meanwhile gets nothing to embed
    assert await store.claim_vectors(A, MODEL, keys, now=101.0, stale=10.0) == []
    await store.put_vectors(A, MODEL, [("r1", "v1", b"\x01\x02"), ("r2", "v1", b"\x03")])
    assert await store.get_vectors(A, MODEL, keys) == {"r1": b"\x01\x02", "r2": b"\x03"}
    # another workspace and another model see none of it
    assert await store.get_vectors(B, MODEL, keys) == {}
    assert await store.get_vectors(A, "other-model", keys) == {}


async def test_a_stale_claim_is_taken_over_and_a_new_version_replaces_the_old(
    store: Store,
) -> None:
    assert await store.claim_vectors(A, MODEL, [("r1", "v1")], now=100.0, stale=10.0) == ["r1"]
    # the claimer died: before the bound nobody may take over, after it one process does
    assert await store.claim_vectors(A, MODEL, [("r1", "v1")], now=105.0, stale=10.0) == []
    assert await store.claim_vectors(A, MODEL, [("r1", "v1")], now=111.0, stale=10.0) == ["r1"]
    await store.put_vectors(A, MODEL, [("r1", "v1", b"old")])
    # the record changed: its new version is claimed and stored, the old one dropped
    assert await store.claim_vectors(A, MODEL, [("r1", "v2")], now=120.0, stale=10.0) == ["r1"]
    await store.put_vectors(A, MODEL, [("r1", "v2", b"new")])
    assert await store.get_vectors(A, MODEL, [("r1", "v2")]) == {"r1": b"new"}
    assert await store.get_vectors(A, MODEL, [("r1", "v1")]) == {}
    await store.delete_vectors(A, ["r1"])
    assert await store.get_vectors(A, MODEL, [("r1", "v2")]) == {}
