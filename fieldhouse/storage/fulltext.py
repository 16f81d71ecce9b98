"""What both engines' keyword indexes share: the query's words, BM25's constants, the shapes
of statistics and hits. The statements are in :mod:`.fulltext_sqlite` (FTS5 tables in the
database file) and :mod:`.fulltext_postgres` (PostgreSQL's own full-text search)."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

#: the total of a keyword search counts at most this many matches
MAX_COUNTED = 10_000
MAX_QUERY_WORDS = 32
#: a word in more records than this share of the workspace (and at least COMMON_MIN_DOCS) only
#: adds to the scores of the best records that match a rarer query word: bm25() scores every
#: match, and a common word matches a large share of the index
COMMON_FRACTION = 0.02
COMMON_MIN_DOCS = 500
#: a query whose rarest word is in more records than this ranks only the newest NEWEST_POOL
SCORED_MATCHES = 5_000
NEWEST_POOL = 400
#: how many of the best candidates by rare words get their common words scored
RESCORE_POOL = 100
#: BM25's constants (FTS5's), and the column weights
K1, B = 1.2, 0.75
COLUMN_WEIGHTS = {"title": 2.0, "body": 1.0, "labels": 1.5}
_WORD = re.compile(r"\w+", re.UNICODE)
#: query words that select nothing
STOP_WORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "can",
        "for",
        "from",
        "have",
        "if",
        "in",
        "is",
        "it",
        "may",
        "not",
        "of",
        "on",
        "or",
        "tbd",
        "that",
        "the",
        "this",
        "to",
        "us",
        "we",
        "when",
        "will",
        "with",
        "yet",
        "you",
        "your",
    ]
)


@dataclass(frozen=True)
class Stats:
    """A workspace's word statistics: stem -> records holding it, tokens per record, records."""

    counts: dict[str, int]
    average: float
    records: int


@dataclass(frozen=True)
class KeywordHits:
    ranked: list[tuple[str, float]]  # record id, BM25 score (higher is better); best first
    total: int  # every match (up to MAX_COUNTED), not only the ranked window


@dataclass(frozen=True)
class WordPlan:
    """Which of a query's words find the candidates: a word held by a large share of the
    workspace (over COMMON_FRACTION of it, at least COMMON_MIN_DOCS records) only adds to the
    scores of the candidates rarer words find; a query of common words only keeps its rarest."""

    #: the words that find the candidates, rarest first
    rare: list[str]
    #: every query word finds candidates (none is common)
    every_word: bool
    #: the records matching, estimated from the word counts (at most the workspace's)
    estimate: int

    @classmethod
    def of(cls, words: Sequence[str], counts: Mapping[str, int], records: int) -> WordPlan:
        """``counts``: records holding each word; ``records``: the workspace's."""
        common_over = max(COMMON_MIN_DOCS, int(records * COMMON_FRACTION))
        by_count = sorted(words, key=lambda w: counts.get(w, 0))
        rare = [w for w in by_count if counts.get(w, 0) <= common_over] or by_count[:1]
        estimate = min(sum(counts.values()), records)
        return cls(rare, len(rare) == len(words), estimate)

    def hits(self, ranked: list[tuple[str, float]], limit: int) -> KeywordHits:
        """The ranked window with its total: exact when every word was matched and the window
        is not full, else the estimate."""
        total = len(ranked) if len(ranked) < limit and self.every_word else self.estimate
        return KeywordHits(ranked, max(total, len(ranked)))


def query_words(text: str) -> list[str]:
    """The words of ``text`` a keyword search looks for (stop words and 1-letter ones out)."""
    words = dict.fromkeys(
        w for w in (m.lower() for m in _WORD.findall(text)) if len(w) > 1 and w not in STOP_WORDS
    )
    return list(words)[:MAX_QUERY_WORDS]


def idf(records: int, holding: int) -> float:
    """BM25's inverse document frequency as FTS5 computes it, kept positive: a word in (nearly)
    every record weighs almost nothing, and statistics counted before deletes (more holders
    than records) never make the logarithm's argument negative."""
    records = max(records, 1)
    holding = min(max(holding, 0), records)
    return max(math.log((records - holding + 0.5) / (holding + 0.5)), 1e-6)
