"""Scoring a labelled set's runs, and the fusion rules ``search_relevance --sweep`` tries."""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from benchmarks.relevance_sets import RelevanceSet
from fieldhouse.search.engine import CANDIDATES, fuse, names_holding, order
from fieldhouse.storage.fulltext import query_words

MIN_SIMILARITY = 0.3  # the API's default minSimilarity
K = 10
Ranked = list[tuple[str, float]]
Rule = Callable[[Ranked, Ranked], dict[str, float]]
#: per query: the keyword half's and the vector half's candidates
Lists = dict[str, tuple[Ranked, Ranked]]


@dataclass(frozen=True)
class Scores:
    ndcg: float
    recall: float


def ndcg_at(ranked: Sequence[str], grades: dict[str, int], k: int = K) -> float:
    """nDCG@k with linear gains (trec_eval's ndcg_cut): graded sets count their grades."""
    dcg = sum(grades.get(rid, 0) / math.log2(i + 2) for i, rid in enumerate(ranked[:k]))
    ideal = sorted(grades.values(), reverse=True)[:k]
    best = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / best if best else 0.0


def recall_at(ranked: Sequence[str], grades: dict[str, int], k: int = K) -> float:
    relevant = {rid for rid, g in grades.items() if g > 0}
    return len(relevant & set(ranked[:k])) / len(relevant) if relevant else 0.0


def mean_scores(runs: dict[str, list[str]], s: RelevanceSet) -> Scores:
    qids = [q for q in runs if s.qrels.get(q)]
    return Scores(
        statistics.mean(ndcg_at(runs[q], s.qrels[q]) for q in qids),
        statistics.mean(recall_at(runs[q], s.qrels[q]) for q in qids),
    )


def apply_rule(
    rule: Rule, lists: Lists, named: dict[str, set[str]] | None = None
) -> dict[str, list[str]]:
    """Each query's top K by ``rule``; with ``named`` (query -> records whose name holds
    every query word), those of the best CANDIDATES first, as the service orders them."""
    out = {}
    for qid, (kw, vec) in lists.items():
        fused = rule(kw, vec)
        ranked = sorted(fused, key=lambda rid: (-fused[rid], rid))
        if named is None:
            out[qid] = ranked[:K]
        else:
            out[qid] = order({rid: fused[rid] for rid in ranked[:CANDIDATES]}, named[qid], K)
    return out


def names_of(s: RelevanceSet, lists: Lists) -> dict[str, set[str]]:
    """Per query, the candidates whose name holds every one of its words."""
    titles = {d.record_id: d.title for d in s.docs}
    out = {}
    for qid, (kw, vec) in lists.items():
        found = {rid: titles[rid] for rid, _ in (*kw, *vec)}
        out[qid] = set(names_holding(found, query_words(s.queries[qid])))
    return out


#: each mode's score alone, from the candidate lists (what the service ranks by)
PLAIN: dict[str, Rule] = {
    "keyword": lambda kw, vec: dict(kw),
    "vector": lambda kw, vec: dict(vec),
    "hybrid": lambda kw, vec: fuse(kw, vec),
}


def rrf(k: int, weight: float = 0.5, depth: int = CANDIDATES) -> Rule:
    """Reciprocal-rank fusion; ``weight`` is the keyword list's share (0.5: equal)."""

    def rule(kw: Ranked, vec: Ranked) -> dict[str, float]:
        out: dict[str, float] = {}
        for w, ranked in ((weight, kw), (1 - weight, vec)):
            for rank, (rid, _) in enumerate(ranked[:depth]):
                out[rid] = out.get(rid, 0.0) + w / (k + rank + 1)
        return out

    return rule


def convex(alpha: float, norm: str, depth: int = CANDIDATES) -> Rule:
    """``alpha`` * keyword + (1 - alpha) * vector of scores normalised within each list."""

    def scale(ranked: Ranked) -> dict[str, float]:
        if not ranked:
            return {}
        vals = np.array([v for _, v in ranked])
        if norm == "minmax":
            lo, span = float(vals.min()), float(vals.max() - vals.min())
            return {rid: (v - lo) / span if span else 1.0 for rid, v in ranked}
        if norm == "max":
            return {rid: v / float(vals.max()) for rid, v in ranked}
        if norm == "tmm":  # theoretical minimum: 0 for BM25, minSimilarity for a cosine
            lo = MIN_SIMILARITY if float(vals.max()) <= 1.0 else 0.0
            span = float(vals.max()) - lo
            return {rid: (v - lo) / span if span > 0 else 1.0 for rid, v in ranked}
        mu, sd = float(vals.mean()), float(vals.std()) or 1.0
        return {rid: (v - mu) / sd for rid, v in ranked}

    def rule(kw: Ranked, vec: Ranked) -> dict[str, float]:
        a, b = scale(kw[:depth]), scale(vec[:depth])
        floor_a = min(a.values(), default=0.0) if norm == "z" else 0.0
        floor_b = min(b.values(), default=0.0) if norm == "z" else 0.0
        return {
            rid: alpha * a.get(rid, floor_a) + (1 - alpha) * b.get(rid, floor_b)
            for rid in a.keys() | b.keys()
        }

    return rule


def sweep_rules() -> dict[str, Rule]:
    rules: dict[str, Rule] = {}
    for k in (10, 20, 60):
        for w in (0.3, 0.4, 0.5, 0.6, 0.7):
            rules[f"rrf k={k} wkw={w}"] = rrf(k, w)
    for depth in (20, 50):
        rules[f"rrf k=60 depth={depth}"] = rrf(60, 0.5, depth)
    for norm in ("minmax", "tmm", "max", "z"):
        for alpha in (0.2, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7):
            rules[f"{norm} a={alpha}"] = convex(alpha, norm)
    for depth in (20, 50):
        rules[f"minmax a=0.4 depth={depth}"] = convex(0.4, "minmax", depth)
    return rules
