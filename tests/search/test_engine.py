"""WorkspaceIndex: keyword and vector halves, fusion, filters and persistence (no store)."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from fieldhouse.model.records import RecordRow
from fieldhouse.search.documents import Doc, record_doc, strip_html
from fieldhouse.search.embedder import Matrix, MiniLMEmbedder, NoEmbedder
from fieldhouse.search.engine import (
    CANDIDATES,
    KEYWORD_WEIGHT,
    SCORE_FLOOR,
    WorkspaceIndex,
    fuse,
    snippet,
)
from fieldhouse.search.keyword import IndexCorrupt

EMBEDDER = MiniLMEmbedder()

DOCS = [
    Doc("r1", "m-crm", "Acme Corp", "Supplier of anvils and rocket skates", "", "t1"),
    Doc("r2", "m-crm", "Globex", "Nuclear power plant operator", "Key account", "t1"),
    Doc("r3", "m-tasks", "Book flights to Berlin", "Hotel near the venue too", "", "t1"),
    Doc("r4", "m-tasks", "Renew printer lease", "Office equipment contract", "", "t1"),
    Doc("r5", "m-hr", "Acme payroll", "Salaries for the anvil team", "", "t1"),
]


def build(path: Path, docs: list[Doc] = DOCS) -> WorkspaceIndex:
    index = WorkspaceIndex.open(path, EMBEDDER, create=True)
    index.apply(docs, EMBEDDER.embed([d.embed_text for d in docs]), [])
    return index


def ask(index: WorkspaceIndex, text: str, **kw: object) -> list[str]:
    qvec = EMBEDDER.embed([text])[0]
    args: dict[str, object] = {"limit": 10, "min_similarity": 0.3, "module_ids": None, **kw}
    found = index.query(text, qvec, **args)  # type: ignore[arg-type]
    return [h.record_id for h in found.hits]


def test_keyword_hit(tmp_path: Path) -> None:
    index = build(tmp_path)
    # stemming: anvil ~ anvils; BM25 ranks the shorter body first
    assert ask(index, "anvils", mode="keyword") == ["r5", "r1"]
    assert ask(index, "key account", mode="keyword") == ["r2"]  # labels are indexed


def test_paraphrase_hit_via_vectors(tmp_path: Path) -> None:
    index = build(tmp_path)
    assert ask(index, "arrange a trip to Germany", mode="keyword") == []
    assert ask(index, "arrange a trip to Germany", mode="vector")[0] == "r3"
    assert ask(index, "arrange a trip to Germany")[0] == "r3"


def test_hybrid_order_and_scores(tmp_path: Path) -> None:
    index = build(tmp_path)
    text = "anvil supplier"
    qvec = EMBEDDER.embed([text])[0]
    found = index.query(text, qvec, None, limit=10, min_similarity=0.0, mode="hybrid")
    kw = index.keyword.search(text, None, CANDIDATES).ranked
    vec = index.vectors.search(qvec, None, CANDIDATES, 0.0).ranked
    expected = fuse(kw, vec)
    assert [h.record_id for h in found.hits] == sorted(expected, key=lambda r: (-expected[r], r))
    top = found.hits[0]
    assert top.record_id == "r1" and top.score == pytest.approx(1.0)  # first in both lists
    assert all(0 < h.score <= 1 for h in found.hits)
    assert found.total == len(found.hits)


def test_a_single_mode_scores_its_best_one(tmp_path: Path) -> None:
    index = build(tmp_path)
    hits = index.query("anvils", None, None, limit=10, min_similarity=0.3, mode="keyword").hits
    assert [h.record_id for h in hits] == ["r5", "r1"]
    assert hits[0].score == pytest.approx(1.0) and 0 < hits[1].score < 1


def test_halves_at_once_answer_as_one_after_the_other(tmp_path: Path) -> None:
    index = build(tmp_path)
    with ThreadPoolExecutor(2) as pool:
        for text, modules in [
            ("anvil supplier", None),
            ("arrange a trip to Germany", None),
            ("acme", ["m-hr", "m-tasks"]),
            ("zzz nothing", None),
        ]:
            qvec = EMBEDDER.embed([text])[0]
            alone = index.query(text, qvec, modules, limit=10, min_similarity=0.3)
            called: list[str] = []

            def make(text: str = text, called: list[str] = called) -> Matrix:
                called.append(threading.current_thread().name)
                vec: Matrix = EMBEDDER.embed([text])[0]
                return vec

            at_once = index.query(text, make, modules, limit=10, min_similarity=0.3, pool=pool)
            assert at_once == alone
            assert len(called) == 1 and called[0] != threading.current_thread().name
            found = index.query(
                text, make, modules, limit=10, min_similarity=0.3, pool=pool, mode="keyword"
            )
            assert len(called) == 1  # a keyword search never embeds its text
            assert found == index.query(
                text, None, modules, limit=10, min_similarity=0.3, mode="keyword"
            )


def test_the_vector_half_runs_while_the_keyword_half_does(tmp_path: Path) -> None:
    """The keyword half waits (at most 10 s) until the vector half has started: one after the
    other, it would wait in vain and fail."""
    index = build(tmp_path)
    started = threading.Event()
    search = index.keyword.search

    def keyword_after_the_vector_half(*args: Any) -> Any:
        assert started.wait(10), "the vector half did not start while the keyword half ran"
        return search(*args)

    index.keyword.search = keyword_after_the_vector_half  # type: ignore[method-assign,assignment]

    def qvec() -> Matrix:
        started.set()
        vec: Matrix = EMBEDDER.embed(["anvils"])[0]
        return vec

    with ThreadPoolExecutor(1) as pool:
        found = index.query("anvils", qvec, None, limit=10, min_similarity=0.3, pool=pool)
    assert found.hits[0].record_id in ("r1", "r5")


def test_a_failing_vector_half_fails_the_query(tmp_path: Path) -> None:
    index = build(tmp_path)

    def broken() -> Matrix:
        raise RuntimeError("embedder gone")

    with ThreadPoolExecutor(1) as pool, pytest.raises(RuntimeError, match="embedder gone"):
        index.query("anvils", broken, None, limit=10, min_similarity=0.3, pool=pool)


def test_found_high_by_both_halves_beats_found_by_one() -> None:
    kw = [("both", 9.0), ("words", 8.5), ("low", 1.0)]
    vec = [("meaning", 0.8), ("both", 0.75), ("low", 0.3)]
    fused = fuse(kw, vec)
    order = sorted(fused, key=lambda r: (-fused[r], r))
    assert order[0] == "both"
    # a record near the top of one list outranks one near the bottom of both
    assert fused["words"] > fused["low"] and fused["meaning"] > fused["low"]
    # the vector half weighs more: its best beats the keyword half's runner-up
    assert fused["meaning"] > fused["words"]
    assert all(0 < v <= 1 for v in fused.values())


def test_close_second_in_both_beats_first_and_last() -> None:
    # "b" is a hair behind the best in both lists; "a" and "c" each top one list and come last
    # in the other. Reciprocal ranks (K=60) put "a" first (1/61 + 1/63 > 2/62); the scores
    # keep the gaps, so "b" wins
    kw = [("a", 10.0), ("b", 9.9), ("c", 1.0)]
    vec = [("c", 0.9), ("b", 0.89), ("a", 0.3)]
    fused = fuse(kw, vec)
    assert max(fused, key=lambda r: fused[r]) == "b"


def test_fusion_of_one_half_or_none() -> None:
    assert fuse(None, None) == {}
    assert fuse([], []) == {}
    only = fuse([("a", 3.0), ("b", 1.0)], None)
    assert only["a"] == pytest.approx(1.0) and only["b"] == pytest.approx(SCORE_FLOOR)
    # the vector half ran and found nothing: a keyword-only record keeps the keyword weight
    ran = fuse([("a", 3.0)], [])
    assert ran["a"] == pytest.approx(SCORE_FLOOR + (1 - SCORE_FLOOR) * KEYWORD_WEIGHT)
    # equal scores in a list count as its best
    assert fuse(None, [("x", 0.5), ("y", 0.5)]) == {"x": 1.0, "y": 1.0}


def test_min_similarity_applies_to_the_semantic_part(tmp_path: Path) -> None:
    index = build(tmp_path)
    assert ask(index, "arrange a trip to Germany", min_similarity=0.99) == []
    # a keyword hit stays whatever the threshold
    assert ask(index, "printer", min_similarity=1.0) == ["r4"]


def test_permissions_by_module_ids(tmp_path: Path) -> None:
    index = build(tmp_path)
    assert ask(index, "acme anvils", module_ids={"m-crm"}) == ["r1"]
    assert ask(index, "acme anvils", module_ids={"m-hr"}) == ["r5"]
    assert ask(index, "acme anvils", module_ids=set()) == []


def test_deleted_records_are_gone(tmp_path: Path) -> None:
    index = build(tmp_path)
    index.apply([], None, ["r1"])
    assert "r1" not in ask(index, "anvils rocket skates", min_similarity=0.0)
    assert "r1" not in index.stamps()


def test_update_replaces(tmp_path: Path) -> None:
    index = build(tmp_path)
    new = Doc("r4", "m-tasks", "Cancel gym membership", "", "", "t2")
    index.apply([new], EMBEDDER.embed([new.embed_text]), [])
    assert ask(index, "printer", min_similarity=0.9) == []
    assert ask(index, "gym")[0] == "r4"
    assert index.stamps()["r4"] == "t2"
    assert len(index.vectors) == len(DOCS)


def test_workspaces_are_separate_folders(tmp_path: Path) -> None:
    a = build(tmp_path / "a")
    b = build(tmp_path / "b", [Doc("x1", "m", "Other anvils", "", "", "t")])
    assert ask(a, "anvils", mode="keyword") == ["r5", "r1"]
    assert ask(b, "anvils", mode="keyword") == ["x1"]


def test_persistence_across_reopen(tmp_path: Path) -> None:
    index = build(tmp_path)
    before = ask(index, "trip to Germany")
    index.save_vectors()
    index.close()
    again = WorkspaceIndex.open(tmp_path, EMBEDDER, create=False)
    assert len(again.vectors) == len(DOCS)
    assert ask(again, "trip to Germany") == before
    assert set(again.stamps()) == {d.record_id for d in DOCS}


def test_missing_or_corrupt_index_raises(tmp_path: Path) -> None:
    with pytest.raises(IndexCorrupt):
        WorkspaceIndex.open(tmp_path / "none", EMBEDDER, create=False)
    index = build(tmp_path)
    index.save_vectors()
    index.close()
    (tmp_path / "vectors.npz").write_bytes(b"not a zip")
    with pytest.raises(IndexCorrupt):
        WorkspaceIndex.open(tmp_path, EMBEDDER, create=False)


def test_other_model_drops_vectors(tmp_path: Path) -> None:
    index = build(tmp_path)
    index.save_vectors()
    index.close()
    again = WorkspaceIndex.open(tmp_path, NoEmbedder(), create=False)
    assert len(again.vectors) == 0
    assert ask(again, "anvils", mode="keyword") == ["r5", "r1"]


def test_snippet_marks_and_escapes() -> None:
    fields = {"body": "Use <b>bold</b> invoices; " + "filler " * 60 + "and more invoicing"}
    out = snippet(fields, ["invoices"])
    assert out is not None
    assert out.startswith("Use &lt;b&gt;bold&lt;/b&gt; <mark>invoices</mark>;")
    assert out.endswith("…")
    assert snippet({"body": ""}, ["x"]) is None


def test_record_doc_text() -> None:
    row = RecordRow(
        record_id="r",
        account_id="a",
        module_id="m",
        display_name="Name",
        fields={
            "note": "<p>Hi &amp; <i>bye</i></p>",
            "n": 3,
            "who": {"userId": "u", "displayName": "Ann"},
        },
        created_at="t",
        updated_at="t2",
        created_by=None,
        updated_by=None,
        label_ids=["l1", "gone"],
    )
    doc = record_doc(row, None, {"l1": "Urgent"})
    assert doc.body == "<p>Hi &amp; <i>bye</i></p> \n Ann" or "Ann" in doc.body
    assert doc.labels == "Urgent" and doc.stamp == "t2"
    assert strip_html("<p>Hi &amp; <i>bye</i></p>") == "Hi & bye"
    assert np.isfinite(EMBEDDER.embed([doc.embed_text])).all()


def test_a_long_record_is_found_by_its_best_window(tmp_path: Path) -> None:
    head = "Notes on invoices, tax filings and quarterly accounts. " * 14  # ~150 tokens
    tail = "Our puppy loves chasing tennis balls on the beach every morning."
    docs = [
        Doc("long", "m", "Weekly notes", head + tail * 3, "", "t1"),
        Doc("dog", "m", "Dog walking service", "Walks for dogs in the park", "", "t1"),
    ]
    index = WorkspaceIndex.open(tmp_path, EMBEDDER, create=True)
    index.apply(docs, EMBEDDER.embed_windows([d.embed_text for d in docs]), [])
    text = "my puppy chasing tennis balls on the beach"
    qvec = EMBEDDER.embed([text])[0]
    found = index.query(text, qvec, None, limit=10, min_similarity=0.3, mode="vector")
    assert [h.record_id for h in found.hits][:1] == ["long"]
    averaged = float(EMBEDDER.embed([docs[0].embed_text])[0] @ qvec)
    # ranked by the window about the puppy, not by the average with the accounts
    assert found.hits[0].similarity is not None
    assert found.hits[0].similarity > averaged + 0.1
