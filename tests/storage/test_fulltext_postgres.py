"""The keyword index on PostgreSQL: search_docs's generated tsvector, a query's words counted
as it runs, and a ranking by each word's rarity in the workspace and the column it is in."""

from __future__ import annotations

import pytest

from fieldhouse.model.search_doc import Doc
from fieldhouse.storage import Store
from fieldhouse.storage import fulltext_postgres as pg
from fieldhouse.storage.fulltext import Stats
from tests.storage.conftest import AT, MOD, A, B

MOD_A = f"{MOD}-{A}"


@pytest.fixture
def backend() -> str:
    return "postgres"


async def test_words_are_counted_in_the_workspace_alone(store: Store) -> None:
    await store.reindex(
        A,
        [
            Doc("r1", MOD_A, "Painting fences", "", "", AT),
            Doc("r2", MOD_A, "Fence", "white paint", "", AT),
            Doc("r3", MOD_A, "Gate", "", "Urgent", AT),
        ],
        first=True,
    )
    await store.reindex(B, [Doc("x1", "m", "Fence", "", "", AT)], first=True)
    counts = await store._db.read(pg.word_counts(A, ["fences", "paint", "urgent", "the", "zzz"]))
    # stemmed as the index is; a stop word holds none (its query is empty)
    assert counts == {"fences": 2, "paint": 2, "urgent": 1, "the": 0, "zzz": 0}
    assert await store._db.read(pg.word_counts(B, ["fence"])) == {"fence": 1}


async def test_title_then_labels_then_body(store: Store) -> None:
    await store.reindex(
        A,
        [
            Doc("body", MOD_A, "One", "invoice", "", AT),
            Doc("labels", MOD_A, "Two", "", "invoice", AT),
            Doc("title", MOD_A, "Invoice", "", "", AT),
            Doc("other", MOD_A, "Three", "nothing", "", AT),
        ],
        first=True,
    )
    hits = await store.keyword_search(A, ["invoice"], await store.keyword_stats(A), None, 10)
    assert [rid for rid, _ in hits.ranked] == ["title", "labels", "body"]
    assert hits.total == 3
    scores = [score for _, score in hits.ranked]
    assert scores == sorted(scores, reverse=True) and scores[-1] > 0


async def test_stale_statistics_never_break_a_query(store: Store) -> None:
    """The records counted (kept for a while by the search service) may be fewer than those
    holding a word now: a word's weight stays positive."""
    docs = [Doc(f"r{n}", MOD_A, f"Fence {n}", "", "", AT) for n in range(5)]
    await store.reindex(A, docs, first=True)
    for records in (0, 1, 5):
        hits = await store.keyword_search(A, ["fence", "3"], Stats({}, 1.0, records), None, 10)
        assert hits.ranked[0][0] == "r3"
        assert len(hits.ranked) == 5 and all(score > 0 for _, score in hits.ranked)
