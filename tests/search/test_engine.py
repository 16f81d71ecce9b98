"""The hybrid ranking, pure: fusing the keyword and vector halves' lists, the order of the
answer, names holding the query's words, snippets, and the searchable text of a record."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fieldhouse.model.records import RecordRow
from fieldhouse.model.search_doc import record_doc
from fieldhouse.search.engine import (
    KEYWORD_WEIGHT,
    SCORE_FLOOR,
    fuse,
    names_holding,
    order,
    snippet,
)


def best_first(fused: dict[str, float]) -> list[str]:
    return sorted(fused, key=lambda r: (-fused[r], r))


def test_found_high_by_both_halves_beats_found_by_one() -> None:
    kw = [("both", 9.0), ("words", 8.5), ("low", 1.0)]
    vec = [("meaning", 0.8), ("both", 0.75), ("low", 0.3)]
    fused = fuse(kw, vec)
    assert best_first(fused)[0] == "both"
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


def test_a_record_without_its_vector_yet_is_ranked_by_its_keyword_share() -> None:
    """ "new" is the best keyword match but not embedded yet: without ``unembedded`` the vector
    half's pick outranks it; with it, it counts its keyword share in both halves."""
    kw = [("new", 9.0), ("old", 5.0), ("low", 1.0)]
    vec = [("old", 0.9), ("other", 0.5)]
    assert best_first(fuse(kw, vec))[0] == "old"
    fused = fuse(kw, vec, unembedded={"new", "never-found"})
    assert best_first(fused)[0] == "new"
    assert fused["new"] == pytest.approx(1.0) == fuse(kw, None)["new"]
    assert "never-found" not in fused
    # the others are scored as before
    plain = fuse(kw, vec)
    assert {r: fused[r] for r in plain if r != "new"} == {r: plain[r] for r in plain if r != "new"}
    # only the vector half's absence counts: it did not run, or the keyword half found nothing
    assert fuse(kw, None, unembedded={"new"}) == fuse(kw, None)
    assert fuse([], vec, unembedded={"new"}) == fuse([], vec)


@given(
    kw=st.dictionaries(st.sampled_from("abcdefgh"), st.floats(0, 20), min_size=1),
    vec=st.dictionaries(st.sampled_from("efghijkl"), st.floats(0, 1)),
    lacking=st.sets(st.sampled_from("abcd")),
)
def test_a_keyword_hit_lacking_its_vector_is_never_below_the_keyword_halfs_order(
    kw: dict[str, float], vec: dict[str, float], lacking: set[str]
) -> None:
    """Among the records the vector half did not rank, one not embedded yet ranks where the
    keyword half alone puts it: never below one the keyword half puts under it."""
    kw_ranked = sorted(kw.items(), key=lambda x: -x[1])
    vec_ranked = sorted(vec.items(), key=lambda x: -x[1])
    fused = fuse(kw_ranked, vec_ranked, unembedded=lacking)
    alone = fuse(kw_ranked, None)
    for waiting in lacking & kw.keys():
        assert fused[waiting] == pytest.approx(alone[waiting])
        for other in kw.keys() - vec.keys():
            if kw[waiting] >= kw[other]:
                assert fused[waiting] >= fused[other] - 1e-12


def test_order_puts_records_named_by_the_query_first() -> None:
    fused = {"a": 0.9, "b": 0.5, "c": 0.7, "d": 0.5}
    assert order(fused, [], 10) == ["a", "c", "b", "d"]
    assert order(fused, ["d", "b", "gone"], 10) == ["b", "d", "a", "c"]
    assert order(fused, ["c"], 2) == ["c", "a"]
    assert order(fused, ["a"], 0) == []


def test_names_holding_every_query_word() -> None:
    titles = {"r1": "Fix the Roof", "r2": "Roofing", "r3": "Roof fix-up", "r4": ""}
    assert names_holding(titles, ["roof", "fix"]) == ["r1", "r3"]
    assert names_holding(titles, ["ROOF"]) == ["r1", "r3"]
    assert names_holding(titles, ["roofing"]) == ["r2"]
    assert names_holding(titles, []) == []


def test_snippet_marks_and_escapes() -> None:
    fields = {"body": "Use <b>bold</b> invoices; " + "filler " * 60 + "and more invoicing"}
    out = snippet(fields, ["invoices"])
    assert out is not None
    assert out.startswith("Use &lt;b&gt;bold&lt;/b&gt; <mark>invoices</mark>;")
    assert out.endswith("…")
    assert snippet({"body": ""}, ["x"]) is None


def test_a_snippet_starts_near_the_first_match_or_shows_the_labels() -> None:
    body = "filler " * 100 + "the roof leaks"
    out = snippet({"body": body}, ["roof"])
    assert out is not None and out.startswith("…") and "<mark>roof</mark> leaks" in out
    assert snippet({"body": "nothing here", "labels": "Roof"}, ["roof"]) == "<mark>Roof</mark>"
    assert snippet({"labels": "Urgent"}, []) == "Urgent"


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
            "again": "Name",
        },
        created_at="t",
        updated_at="t2",
        created_by=None,
        updated_by=None,
        label_ids=["l1", "gone"],
        description_html="<p>More &amp; <b>less</b></p>",
    )
    doc = record_doc(row, None, {"l1": "Urgent"})
    # without a schema every string counts, the title alone once; the description as text
    assert doc.body == "<p>Hi &amp; <i>bye</i></p> Ann More & less"
    assert (doc.title, doc.labels, doc.stamp, doc.module_id) == ("Name", "Urgent", "t2", "m")
    assert doc.embed_text == "Name. Urgent. " + doc.body
