"""The vector index's contract: an upsert replaces, a delete keeps the rows contiguous, and a
search ranks by cosine within modules above a threshold."""

from __future__ import annotations

import numpy as np
import pytest

from fieldhouse.search.embedder import Matrix
from fieldhouse.search.vectors import VectorHits, VectorIndex


def unit(*xs: float) -> Matrix:
    v = np.array(xs, np.float32)
    return v / np.linalg.norm(v)


def rounded(hits: VectorHits) -> list[tuple[str, float]]:
    """Ranked ids with similarities to 5 places (float32 products are not exact)."""
    return [(rid, round(sim, 5)) for rid, sim in hits.ranked]


def vecs(*rows: Matrix) -> Matrix:
    return np.stack(rows)


X, Y, Z = unit(1, 0, 0), unit(0, 1, 0), unit(0, 0, 1)


def filled() -> VectorIndex:
    index = VectorIndex(3)
    index.upsert(
        ["a", "b", "c", "d"],
        ["m1", "m1", "m2", "m2"],
        vecs(X, unit(1, 1, 0), unit(1, 0, 1), Z),
    )
    return index


def test_search_ranks_by_similarity_within_modules() -> None:
    index = filled()
    hits = index.search(X, None, 10, 0.0)
    assert [rid for rid, _ in hits.ranked] == ["a", "b", "c", "d"]
    assert hits.ranked[0][1] == pytest.approx(1.0)
    assert hits.ranked[1][1] == pytest.approx(2**-0.5)
    assert hits.total == 4
    above = index.search(X, None, 1, 0.5)
    assert rounded(above) == [("a", 1.0)] and above.total == 3
    assert [r for r, _ in index.search(X, ["m2"], 10, 0.0).ranked] == ["c", "d"]
    assert index.search(X, ["unknown"], 10, -1.0) == index.search(X, None, 0, 0.0)
    assert index.search(X, None, 10, 1.01).ranked == []


def test_upsert_replaces_and_delete_keeps_the_rest() -> None:
    index = filled()
    index.upsert(["a"], ["m2"], vecs(Y))
    assert len(index) == 4
    assert index.has("a") and not index.has("zz")
    assert rounded(index.search(Y, ["m2"], 1, 0.9)) == [("a", 1.0)]
    index.delete(["b", "never-there"])  # the last row moves into b's place
    assert len(index) == 3
    assert [r for r in "abcd" if index.has(r)] == ["a", "c", "d"]
    assert [r for r, _ in index.search(Z, None, 10, 0.9).ranked] == ["d"]
    index.delete(["a", "c", "d"])
    assert len(index) == 0 and index.search(X, None, 5, -1.0).ranked == []


def test_growing_keeps_the_rows_already_there() -> None:
    """Rows added in several upserts, past the first allocation, each still find themselves."""
    rng = np.random.default_rng(7)
    rows = rng.normal(size=(300, 16)).astype(np.float32)
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    index = VectorIndex(16)
    for start in range(0, 300, 50):
        part = range(start, start + 50)
        index.upsert([f"r{i}" for i in part], ["m"] * 50, rows[start : start + 50])
    assert len(index) == 300
    for i in (0, 49, 50, 150, 299):
        assert rounded(index.search(rows[i], None, 1, 0.0)) == [(f"r{i}", 1.0)]


def test_a_record_of_several_windows_is_found_by_its_best_and_counted_once() -> None:
    index = VectorIndex(3)
    index.upsert(
        ["long", "short"],
        ["m", "m"],
        [vecs(X, unit(1, 1, 0), Z), unit(1, 0, 1)],
    )
    assert len(index) == 2
    assert rounded(index.search(Z, None, 10, 0.5)) == [("long", 1.0), ("short", 0.70711)]
    hits = index.search(X, None, 10, 0.5)
    assert rounded(hits) == [("long", 1.0), ("short", 0.70711)] and hits.total == 2
    assert rounded(index.search(X, None, 1, 0.5)) == [("long", 1.0)]
    # fewer windows now: the old ones go, and the rows that moved still answer for theirs
    index.upsert(["long"], ["m"], [vecs(Y)])
    assert len(index) == 2
    assert rounded(index.search(Z, None, 10, 0.5)) == [("short", 0.70711)]
    assert rounded(index.search(Y, None, 10, 0.5)) == [("long", 1.0)]
    index.delete(["long"])
    assert rounded(index.search(X, None, 10, 0.0)) == [("short", 0.70711)]


def test_windows_of_many_records_survive_moves() -> None:
    rng = np.random.default_rng(3)
    index = VectorIndex(8)
    kept: dict[str, Matrix] = {}
    for n in range(60):
        rows = rng.normal(size=(1 + n % 4, 8)).astype(np.float32)
        rows /= np.linalg.norm(rows, axis=1, keepdims=True)
        kept[f"r{n}"] = rows
        index.upsert([f"r{n}"], ["m"], [rows])
    index.delete([f"r{n}" for n in range(0, 60, 3)])  # holes all over, filled from the end
    for n in range(0, 60, 3):
        del kept[f"r{n}"]
    assert len(index) == len(kept)
    for rid, rows in kept.items():
        for row in rows:  # each window finds its own record first, at cosine 1
            best = index.search(row, None, 1, 0.999)
            assert [r for r, _ in best.ranked] == [rid]
    assert index.search(kept["r1"][0], None, 100, -1.0).total == len(kept)
