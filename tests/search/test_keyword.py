"""The FTS5 keyword index: common words are scored for the best candidates only, exactly as
bm25() would have scored them."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from fieldhouse.search import keyword
from fieldhouse.search.documents import Doc
from fieldhouse.search.keyword import KeywordIndex

COLOURS = ["red", "green", "blue", "amber", "violet"]


def corpus() -> list[Doc]:
    docs = []
    for i in range(300):
        title = f"Order {i} of {COLOURS[i % 5]} widgets"  # "order", "widgets": in every record
        body = " ".join(["shipping"] * (1 + i % 4) + ["crate"] * (i % 7 == 0))
        docs.append(Doc(f"r{i:03d}", "m1" if i % 3 else "m2", title, body, "", "t"))
    return docs


def test_common_words_add_the_same_scores_as_bm25(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index = KeywordIndex.open(tmp_path, create=True)
    index.apply(corpus(), [])
    text = "violet shipping widgets crate"
    whole = index.search(text, None, 20)
    assert len(whole.ranked) == 20
    # "widgets" (every record) and "shipping" (most) are common now: only the best records
    # by the rarer words get them scored, by the same formula
    monkeypatch.setattr(keyword, "COMMON_MIN_DOCS", 100)
    monkeypatch.setattr(keyword, "COMMON_FRACTION", 0.0)
    monkeypatch.setattr(keyword, "RESCORE_POOL", 300)
    split = index.search(text, None, 20)
    assert [rid for rid, _ in split.ranked] == [rid for rid, _ in whole.ranked]
    for (_, a), (_, b) in zip(split.ranked, whole.ranked, strict=True):
        assert a == pytest.approx(b, rel=1e-6)
    # module visibility holds on that path too
    m2 = index.search(text, ["m2"], 50)
    assert m2.ranked and all(int(rid[1:]) % 3 == 0 for rid, _ in m2.ranked)
    index.close()


def test_only_common_words_rank_the_newest_matches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index = KeywordIndex.open(tmp_path, create=True)
    index.apply(corpus(), [])
    monkeypatch.setattr(keyword, "COMMON_MIN_DOCS", 10)
    monkeypatch.setattr(keyword, "COMMON_FRACTION", 0.0)
    monkeypatch.setattr(keyword, "SCORED_MATCHES", 100)
    monkeypatch.setattr(keyword, "NEWEST_POOL", 50)
    found = index.search("order widgets shipping", None, 10)
    assert len(found.ranked) == 10
    assert all(int(rid[1:]) >= 250 for rid, _ in found.ranked)  # among the newest 50
    assert found.total == 300
    index.close()


def test_a_search_does_not_wait_for_the_words_to_be_counted_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Counting every word's records reads the whole vocabulary (190 ms at 100,000 records):
    a search that finds the counts old answers with them while a thread counts again."""
    index = KeywordIndex.open(tmp_path, create=True)
    index.apply(corpus(), [])
    first = index.search("violet crate", None, 20)  # the first search counts, on its thread
    index.apply([Doc("r999", "m1", "violet crate", "violet crate", "", "t")], [])
    counting, go_on, counted = threading.Event(), threading.Event(), threading.Event()
    count, calls = index._count, []

    def held_count(c: sqlite3.Connection) -> object:
        calls.append(threading.current_thread().name)
        counting.set()
        assert go_on.wait(10), "the search waited for the counting"
        try:
            return count(c)
        finally:
            counted.set()

    monkeypatch.setattr(index, "_count", held_count)
    monkeypatch.setattr(keyword, "STATS_SECONDS", 0.0)  # every search finds the counts old
    again = index.search("violet crate", None, 20)  # returns while the counting is held
    assert counting.wait(10) and not go_on.is_set()
    assert again.ranked[0][0] == "r999" and len(again.ranked) == len(first.ranked)
    index.search("violet crate", None, 20)  # one counting at a time: this one starts none
    go_on.set()
    assert counted.wait(10)
    assert calls == ["keyword-stats"]
    index.close()


def test_a_closed_index_opens_no_file_again(tmp_path: Path) -> None:
    """A search (or a recount) still running when a rebuild closes the index and removes its
    file must not make an empty file there: the next open would take it for damaged."""
    index = KeywordIndex.open(tmp_path, create=True)
    index.apply(corpus(), [])
    index.close()
    (tmp_path / keyword.FILE).unlink()
    with pytest.raises(sqlite3.ProgrammingError, match="closed"):
        index.search("violet crate", None, 20)
    assert not (tmp_path / keyword.FILE).exists()


def test_stop_words_and_punctuation_match_nothing(tmp_path: Path) -> None:
    index = KeywordIndex.open(tmp_path, create=True)
    index.apply(corpus(), [])
    assert index.search('the "of" to AND OR NOT * ( )', None, 10).ranked == []
    crates = index.search("crates", ["m2"], 30).ranked  # stemmed: "crate" in the body
    assert len(crates) == 15 and all(int(rid[1:]) % 21 == 0 for rid, _ in crates)
    index.close()


def raw_doc(rid: str, raw: str, stamp: str = "t") -> Doc:
    return Doc(rid, "m1", raw, "", "", stamp, raw)


def test_the_trigram_index_is_filled_on_demand_and_kept_current(tmp_path: Path) -> None:
    index = KeywordIndex.open(tmp_path, create=True)
    index.apply([raw_doc("a", "Borealis Shipping"), raw_doc("b", "Sunny Bakery")], [])
    # a new index answers substring candidates only once filled (the caller uses SQL before)
    assert not index.grams_filled and index.filter_ids("realis", "m1") is None
    index.fill_grams()
    assert index.grams_filled and index.filter_ids("realis", "m1") == ["a"]
    # from then on it follows every change: a new record, a new version, a deletion
    index.apply([raw_doc("c", "Aurora Borealis"), raw_doc("b", "Sunny Realism", "t2")], ["a"])
    assert sorted(index.filter_ids("realis", "m1") or []) == ["b", "c"]
    index.close()
    # reopened, it still counts as filled
    index = KeywordIndex.open(tmp_path)
    assert index.grams_filled and sorted(index.filter_ids("realis", "m1") or []) == ["b", "c"]
    index.close()


def test_an_index_with_the_old_triggers_counts_as_filled(tmp_path: Path) -> None:
    index = KeywordIndex.open(tmp_path, create=True)
    index.close()
    conn = sqlite3.connect(tmp_path / keyword.FILE)
    conn.executescript(
        """DROP TRIGGER docs_added;
        CREATE TRIGGER docs_added AFTER INSERT ON docs BEGIN
            INSERT INTO words (rowid, title, body, labels)
                VALUES (new.n, new.title, new.body, new.labels);
            INSERT INTO grams (rowid, raw) VALUES (new.n, new.raw);
        END;"""
    )
    conn.close()
    index = KeywordIndex.open(tmp_path)
    assert index.grams_filled
    index.apply([raw_doc("a", "Borealis Shipping")], [])
    assert index.filter_ids("realis", "m1") == ["a"]
    index.close()
