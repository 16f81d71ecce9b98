"""What both keyword indexes share: the words a query looks for, and BM25's weight of a word."""

from __future__ import annotations

import math

import pytest

from fieldhouse.storage.fulltext import MAX_QUERY_WORDS, idf, query_words


def test_query_words_are_lower_case_once_each_without_stop_words() -> None:
    assert query_words("Paint THE fence, paint the GATE!") == ["paint", "fence", "gate"]
    assert query_words("a b c x-ray 3d") == ["ray", "3d"]  # one-letter words select nothing
    assert query_words("Café naïve Straße") == ["café", "naïve", "straße"]
    assert query_words("the and of") == []
    assert query_words("") == []
    many = " ".join(f"w{n}" for n in range(MAX_QUERY_WORDS + 10))
    assert query_words(many) == [f"w{n}" for n in range(MAX_QUERY_WORDS)]


@pytest.mark.parametrize(
    ("records", "holding"),
    [(10, 1), (10, 5), (10, 10), (3, 5), (1, 1000), (0, 0), (0, 4), (5, -1), (1_000_000, 0)],
)
def test_idf_is_positive_and_finite_whatever_the_counts(records: int, holding: int) -> None:
    """Statistics counted before deletes hold more holders than records: the logarithm's
    argument must not go negative ("math domain error")."""
    weight = idf(records, holding)
    assert math.isfinite(weight) and weight > 0


def test_a_rarer_word_weighs_more() -> None:
    weights = [idf(1000, n) for n in (1, 10, 100, 400, 1000)]
    assert weights == sorted(weights, reverse=True)
    assert weights[0] > 5 and weights[-1] < 1e-3
    assert idf(1000, 1) == pytest.approx(math.log(999.5 / 1.5))
    # more holders than records counts as every record holding it
    assert idf(3, 5) == idf(3, 3)
