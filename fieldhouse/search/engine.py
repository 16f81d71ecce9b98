"""The hybrid ranking: how the keyword and the vector halves' lists become one answer.

Ranking (:func:`fuse`) mixes the two lists' scores: BM25F keyword hits and cosine vector hits at
or above ``min_similarity``, each min-max normalised over its CANDIDATES, weighted 0.4 and 0.6.
BM25 is unbounded and depends on the corpus, so it is only compared within its own list. On the
labelled sets of ``benchmarks/search_relevance.py`` this beats both halves on CISI, Cranfield
and CACM and matches the better one on the hand-made set, where the reciprocal-rank fusion used
before fell below it (``benchmarks/relevance.md``).
"""

from __future__ import annotations

import html
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Literal

Mode = Literal["hybrid", "keyword", "vector"]
CANDIDATES = 100  # per list, before fusion (fewer did not rank better on CISI)
#: the keyword list's weight in the fused score; the vector list has the rest (tuned on CISI)
KEYWORD_WEIGHT = 0.4
#: the fused score of a record last in one list and absent from the other (scores are > 0)
SCORE_FLOOR = 0.001
Ranked = Sequence[tuple[str, float]]
SNIPPET_CHARS = 200
_WORD = re.compile(r"\w+", re.UNICODE)


@dataclass(frozen=True)
class Hit:
    record_id: str
    module_id: str
    title: str
    snippet: str | None
    score: float
    similarity: float | None
    keyword_score: float | None


@dataclass(frozen=True)
class Coverage:
    """How complete the vector half was: records of the workspace still waiting for their
    vectors, and whether the vector half ran at all (the embedder may still be loading)."""

    pending: int
    records: int
    vectors: bool

    @property
    def share(self) -> float:
        """The share of the workspace's records whose current text has its vector."""
        if not self.vectors:
            return 0.0
        if self.records <= 0:
            return 1.0
        return round(max(0.0, 1.0 - self.pending / self.records), 4)


@dataclass(frozen=True)
class SearchResult:
    hits: list[Hit]
    total: int
    coverage: Coverage | None = None


def fuse(
    keyword: Ranked | None,
    vector: Ranked | None,
    *,
    unembedded: Collection[str] = (),
) -> dict[str, float]:
    """The hybrid score in (0, 1] of every record in the two lists (None: that half did not
    run).

    Each list's scores are min-max normalised over its candidates (its best counts 1, its last
    0) and mixed with weights KEYWORD_WEIGHT and 1 - KEYWORD_WEIGHT, over the weights of the
    halves that ran: a record first in both lists scores 1, one found by a single half at most
    its weight. Scores rather than ranks: a record far ahead in one list keeps its lead, where
    reciprocal ranks flatten it (measured in ``benchmarks/relevance.md``).

    ``unembedded``: records the vector half could not see (their vector is not made yet):
    such a record found by keyword is ranked by its keyword share in both halves, not pushed
    down for a vector it lacks, so while vectors lag the answer is never worse than the
    keyword half alone."""
    halves = [(KEYWORD_WEIGHT, keyword), (1.0 - KEYWORD_WEIGHT, vector)]
    ran = [(weight, ranked) for weight, ranked in halves if ranked is not None]
    total = sum(weight for weight, _ in ran)
    fused: dict[str, float] = {}
    keyword_shares: dict[str, float] = {}
    for weight, ranked in ran:
        shares = _min_max(ranked)
        if ranked is keyword:
            keyword_shares = shares
        for rid, share in shares.items():
            fused[rid] = fused.get(rid, 0.0) + weight * share
    if vector is not None:
        for rid in set(unembedded) & keyword_shares.keys():
            fused[rid] += (1.0 - KEYWORD_WEIGHT) * keyword_shares[rid]
    # counted down from 1, so a record first in both lists scores exactly 1.0
    return {rid: 1.0 - (1.0 - SCORE_FLOOR) * (1.0 - s / total) for rid, s in fused.items()}


def order(fused: dict[str, float], named: Collection[str], limit: int) -> list[str]:
    """The best ``limit`` records: those whose name holds every query word first (so a word
    found in one record's name finds that record first), each group by its fused score."""
    first = set(named)
    return sorted(fused, key=lambda rid: (rid not in first, -fused[rid], rid))[:limit]


def _min_max(ranked: Ranked) -> dict[str, float]:
    if not ranked:
        return {}
    values = [score for _, score in ranked]
    low, high = min(values), max(values)
    return {rid: (s - low) / (high - low) if high > low else 1.0 for rid, s in ranked}


def names_holding(titles: dict[str, str], words: Sequence[str]) -> list[str]:
    """Those records (id -> name) whose name holds every one of ``words`` as a word."""
    if not words:
        return []
    wanted = {w.lower() for w in words}
    return [
        rid for rid, title in titles.items() if wanted <= {w.lower() for w in _WORD.findall(title)}
    ]


def query_terms(text: str) -> list[str]:
    """Lower-cased query words; a word matches text words that start with its first 4+ chars."""
    words = {w.lower() for w in _WORD.findall(text) if len(w) > 1}
    return sorted(words, key=len, reverse=True)[:16]


def snippet(fields: dict[str, str], terms: Sequence[str]) -> str | None:
    """A short HTML-escaped excerpt with query words wrapped in <mark>; None without text."""
    body = fields.get("body") or ""
    labels = fields.get("labels") or ""
    source = body or labels
    if not source:
        return None
    pattern = _terms_pattern(terms)
    start = 0
    if pattern is not None:
        match = pattern.search(source)
        if match is None and labels and pattern.search(labels):
            source = labels
            match = pattern.search(source)
        if match is not None:
            start = max(0, match.start() - SNIPPET_CHARS // 4)
            while start > 0 and not source[start - 1].isspace():
                start -= 1
    piece = source[start : start + SNIPPET_CHARS]
    prefix = "…" if start > 0 else ""
    suffix = "…" if start + SNIPPET_CHARS < len(source) else ""
    if pattern is None:
        return prefix + html.escape(piece) + suffix
    out: list[str] = []
    pos = 0
    for m in pattern.finditer(piece):
        out.append(html.escape(piece[pos : m.start()]))
        out.append(f"<mark>{html.escape(m.group(0))}</mark>")
        pos = m.end()
    out.append(html.escape(piece[pos:]))
    return prefix + "".join(out) + suffix


def _terms_pattern(terms: Sequence[str]) -> re.Pattern[str] | None:
    if not terms:
        return None
    # stem-ish: "invoices" marks "invoice" and "invoicing"
    stems = [re.escape(t[: max(4, len(t) - 2)] if len(t) > 4 else t) for t in terms]
    return re.compile(r"\b(?:" + "|".join(stems) + r")\w*", re.IGNORECASE)
