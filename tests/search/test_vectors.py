"""The vector store's contract: an upsert replaces, a delete keeps the rows contiguous, a
search ranks by cosine within modules above a threshold, and saving survives a reload."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from fieldhouse.search.embedder import Matrix
from fieldhouse.search.vectors import VectorHits, VectorIndex, VectorsCorrupt


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
        ["s-a", "s-b", "s-c", "s-d"],
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
    index.upsert(["a"], ["m2"], ["s-a2"], vecs(Y))
    assert len(index) == 4
    assert index.stamps_of(["a", "zz"]) == {"a": "s-a2"}
    assert rounded(index.search(Y, ["m2"], 1, 0.9)) == [("a", 1.0)]
    index.delete(["b", "never-there"])  # the last row moves into b's place
    assert len(index) == 3
    assert index.stamps() == {"a": "s-a2", "c": "s-c", "d": "s-d"}
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
        index.upsert([f"r{i}" for i in part], ["m"] * 50, ["s"] * 50, rows[start : start + 50])
    assert len(index) == 300
    for i in (0, 49, 50, 150, 299):
        assert rounded(index.search(rows[i], None, 1, 0.0)) == [(f"r{i}", 1.0)]


def test_save_and_load_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "vectors.npz"
    assert len(VectorIndex.load(path, 3)) == 0  # nothing saved yet
    index = filled()
    assert index.dirty
    index.save(path)
    assert not index.dirty and not path.with_name("vectors.npz.tmp").exists()
    loaded = VectorIndex.load(path, 3)
    assert not loaded.dirty
    assert loaded.stamps() == index.stamps()
    assert loaded.search(X, ["m2"], 10, 0.0) == index.search(X, ["m2"], 10, 0.0)


def test_unreadable_or_misshapen_vectors_are_corrupt(tmp_path: Path) -> None:
    path = tmp_path / "vectors.npz"
    path.write_bytes(b"not a zip file")
    with pytest.raises(VectorsCorrupt, match="vectors at"):
        VectorIndex.load(path, 3)
    filled().save(path)
    with pytest.raises(VectorsCorrupt, match="expected dim 4"):
        VectorIndex.load(path, 4)
