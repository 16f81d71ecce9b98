"""Ranking quality: ``python -m benchmarks.search_relevance [--sets handmade,cisi,cacm]``.

Each set (``benchmarks/relevance_sets.py`` says where its files go) is indexed through the real
path: :class:`Doc` -> ``WorkspaceIndex.apply`` with the vectors of ``Doc.embed_text`` by the
embedder ``--embedder`` names (a :func:`make_embedder` choice, default ``minilm``, or
``onnx:PATH``, another encoder's ONNX file: :mod:`benchmarks.onnx_encoder`). Every judged
query then runs through ``WorkspaceIndex.query`` in keyword, vector and hybrid mode
(``minSimilarity`` 0.3, the API default), and the table gives nDCG@10 (linear gains, as
trec_eval's ndcg_cut_10) and recall@10 per mode, next to the BM25 and all-MiniLM-L6-v2 nDCG@10
published for the set where there is one. ``hybrid-rrf60`` is the
fusion used before (reciprocal ranks, K=60, 100 candidates a list), recomputed from the same
two lists, so the two hybrid columns differ by the rule alone.

The index keeps a vector per window of a record's text (up to 4 windows of 128 tokens,
``embedder.MAX_WINDOWS``) and ranks a record by its best window. ``--windows`` also runs the
vector half with only the first window of every text (``vec-1win``) and with the average of
the windows as the record's one vector (``vec-avg``, what the index kept before).
``<set>-x4`` joins a set's documents four to a record (``relevance_sets.joined``): long
records. ``--sweep``
prints the fusion rules tried (on the lists the index returns) for the table in
``benchmarks/relevance.md``. Document vectors are cached under ``/tmp`` by set, embedder and
window count, so a rerun only embeds the queries.

Each set also gets a line on how much the threshold filters: of the vector half's 100
candidates per query (cosine order), the share at or above ``minSimilarity``, and the share of
all records that are (each result's ``total`` counts them). ``--thresholds 0.2,0.3,0.4`` runs the
vector and hybrid modes again at each threshold, for an embedder whose cosines sit elsewhere
than MiniLM's (the static ``wordllama-256``'s sit higher).
"""

from __future__ import annotations

import argparse
import hashlib
import math
import statistics
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from tokenizers import Tokenizer

from benchmarks.relevance_sets import SETS, RelevanceSet, SetMissing, load
from fieldhouse.search.embedder import (
    MAX_TOKENS,
    Embedder,
    Matrix,
    make_embedder,
    model_dir,
)
from fieldhouse.search.engine import CANDIDATES, Mode, WorkspaceIndex

CACHE = Path(tempfile.gettempdir()) / "fieldhouse-relevance"
MIN_SIMILARITY = 0.3  # the API's default minSimilarity
K = 10
OLD_DEPTH = 100  # candidates a list of the reciprocal-rank fusion used before
Ranked = list[tuple[str, float]]
Rule = Callable[[Ranked, Ranked], dict[str, float]]


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


def first_window(texts: Sequence[str]) -> list[str]:
    """Each text cut after the tokens one window of MAX_TOKENS holds."""
    tokenizer = Tokenizer.from_file(str(model_dir() / "tokenizer.json"))
    tokenizer.no_truncation()
    tokenizer.no_padding()  # tokenizer.json pads to 128: offsets past a short text are (0, 0)
    out = []
    for text, enc in zip(texts, tokenizer.encode_batch(list(texts)), strict=True):
        # offsets[0] is [CLS]; the window keeps MAX_TOKENS - 2 word pieces and [SEP]
        cut = enc.offsets[MAX_TOKENS - 2][1] if len(enc.ids) > MAX_TOKENS else len(text)
        out.append(text[:cut])
    return out


def doc_vectors(s: RelevanceSet, embedder: Embedder, windows: str) -> list[Matrix]:
    """The set's document vectors, from the /tmp cache when the texts are the same: ``each``
    a vector per window (what the index keeps), ``avg`` their average (what it kept before),
    ``1`` the first window's alone."""
    texts = [d.embed_text for d in s.docs]
    if windows == "1":
        texts = first_window(texts)
    digest = hashlib.sha256("\x00".join(texts).encode()).hexdigest()[:16]
    name = embedder.name.replace("/", "_")
    path = CACHE / f"{s.name}-{name}-{windows}-{digest}.npz"
    if path.exists():
        with np.load(path) as saved:
            mat, counts = saved["mat"], saved["counts"]
    else:
        print(f"  embedding {len(texts)} documents of {s.name} ({windows})...", flush=True)
        if windows == "each":
            rows = embedder.embed_windows(texts)
            mat = np.concatenate(rows) if rows else np.zeros((0, embedder.dim), np.float32)
            counts = np.array([len(r) for r in rows])
        else:
            mat, counts = embedder.embed(texts), np.ones(len(texts), np.int64)
        CACHE.mkdir(parents=True, exist_ok=True)
        np.savez(path, mat=mat, counts=counts)
    bounds = np.concatenate([[0], np.cumsum(counts)])
    return [mat[bounds[i] : bounds[i + 1]] for i in range(len(texts))]


def open_index(
    s: RelevanceSet, vecs: list[Matrix], embedder: Embedder, folder: Path
) -> WorkspaceIndex:
    index = WorkspaceIndex.open(folder, embedder, create=True)
    for start in range(0, len(s.docs), 500):
        index.apply(s.docs[start : start + 500], vecs[start : start + 500], [])
    return index


def run_mode(
    index: WorkspaceIndex,
    s: RelevanceSet,
    qvecs: dict[str, Matrix],
    mode: Mode,
    min_similarity: float = MIN_SIMILARITY,
) -> dict[str, list[str]]:
    out = {}
    for qid in s.qrels:
        found = index.query(
            s.queries[qid], qvecs[qid], None, limit=K, min_similarity=min_similarity, mode=mode
        )
        out[qid] = [h.record_id for h in found.hits]
    return out


def candidate_lists(
    index: WorkspaceIndex, s: RelevanceSet, qvecs: dict[str, Matrix]
) -> dict[str, tuple[Ranked, Ranked]]:
    """Both halves' candidates per query, as ``WorkspaceIndex.query`` fetches them."""
    return {
        qid: (
            index.keyword.search(s.queries[qid], None, CANDIDATES).ranked,
            index.vectors.search(qvecs[qid], None, CANDIDATES, MIN_SIMILARITY).ranked,
        )
        for qid in s.qrels
    }


def passing(
    index: WorkspaceIndex, s: RelevanceSet, qvecs: dict[str, Matrix], threshold: float
) -> tuple[float, float]:
    """Mean shares, over the judged queries, of the vector half's candidates and of all
    records whose cosine is at or above ``threshold``."""
    n = len(s.docs)
    of_candidates, of_all = [], []
    for qid in s.qrels:
        hits = index.vectors.search(qvecs[qid], None, CANDIDATES, threshold)
        of_candidates.append(len(hits.ranked) / min(CANDIDATES, n))
        of_all.append(hits.total / n)
    return statistics.mean(of_candidates), statistics.mean(of_all)


def threshold_rows(
    index: WorkspaceIndex, s: RelevanceSet, qvecs: dict[str, Matrix], thresholds: Sequence[float]
) -> None:
    for t in thresholds:
        cand, every = passing(index, s, qvecs, t)
        vec = mean_scores(run_mode(index, s, qvecs, "vector", t), s)
        hyb = mean_scores(run_mode(index, s, qvecs, "hybrid", t), s)
        print(
            f"  threshold {s.name:<10} {t:.2f}: candidates passing {cand:6.1%}, all records "
            f"{every:6.1%}; nDCG@10 vector {vec.ndcg:.3f} hybrid {hyb.ndcg:.3f}; "
            f"recall@10 vector {vec.recall:.3f} hybrid {hyb.recall:.3f}"
        )


def apply_rule(rule: Rule, lists: dict[str, tuple[Ranked, Ranked]]) -> dict[str, list[str]]:
    out = {}
    for qid, (kw, vec) in lists.items():
        fused = rule(kw, vec)
        out[qid] = sorted(fused, key=lambda rid: (-fused[rid], rid))[:K]
    return out


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


def evaluate(
    s: RelevanceSet,
    embedder: Embedder,
    windows: bool,
    sweep: bool,
    thresholds: Sequence[float] = (),
) -> list[str]:
    """Index the set, run every mode, return its table rows (and print the sweep)."""
    print(f"{s.name}: {len(s.docs)} documents, {len(s.qrels)} judged queries ({s.source})")
    judged = list(s.qrels)
    qmat = embedder.embed([s.queries[q] for q in judged])
    qvecs = {q: qmat[i] for i, q in enumerate(judged)}
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        index = open_index(s, doc_vectors(s, embedder, "each"), embedder, Path(tmp) / "index")
        try:
            runs = {m: mean_scores(run_mode(index, s, qvecs, m), s) for m in _MODES}
            cand, every = passing(index, s, qvecs, MIN_SIMILARITY)
            print(
                f"  cosine >= {MIN_SIMILARITY}: {cand:.1%} of the vector candidates, "
                f"{every:.1%} of all records (means over the queries)"
            )
            threshold_rows(index, s, qvecs, thresholds)
            lists = candidate_lists(index, s, qvecs)
            old = mean_scores(apply_rule(rrf(60, 0.5, OLD_DEPTH), lists), s)
            if sweep:
                for label, rule in sweep_rules().items():
                    got = mean_scores(apply_rule(rule, lists), s)
                    print(f"  sweep {s.name:<10} {label:<24} {got.ndcg:.4f} {got.recall:.4f}")
        finally:
            index.close()
        halves: dict[str, Scores] = {}  # the vector half with other document vectors
        for kind in ("1", "avg") if windows else ():
            index = open_index(s, doc_vectors(s, embedder, kind), embedder, Path(tmp) / kind)
            try:
                halves[kind] = mean_scores(run_mode(index, s, qvecs, "vector"), s)
            finally:
                index.close()
        one, averaged = halves.get("1"), halves.get("avg")
    pub = s.published
    for metric in ("ndcg", "recall"):
        cells = [getattr(runs[m], metric) for m in _MODES]
        cells.insert(2, getattr(old, metric))
        published = (
            f"{pub[0]:>6.3f} {pub[1]:>7.3f}" if pub and metric == "ndcg" else f"{'-':>6} {'-':>7}"
        )
        vec1 = f"{getattr(one, metric):>8.3f}" if one else f"{'-':>8}"
        avg = f"{getattr(averaged, metric):>8.3f}" if averaged else f"{'-':>8}"
        rows.append(
            f"{s.name:<12} {len(s.docs):>6} {len(s.qrels):>5} {metric + '@10':<9} {published} "
            + " ".join(f"{c:>8.3f}" for c in cells)
            + f" {vec1} {avg}"
        )
    return rows


_MODES: tuple[Mode, ...] = ("keyword", "vector", "hybrid")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--sets", default="handmade,cisi,cranfield,cacm")
    parser.add_argument(
        "--embedder",
        default="minilm",
        help="a make_embedder() name, or onnx:PATH (benchmarks/onnx_encoder.py)",
    )
    parser.add_argument("--windows", action="store_true", help="also the vector half, 1 window")
    parser.add_argument("--sweep", action="store_true", help="print every fusion rule tried")
    parser.add_argument(
        "--thresholds", default="", help="minSimilarity values to rerun vector and hybrid at"
    )
    args = parser.parse_args(argv)
    embedder: Embedder
    if args.embedder.startswith("onnx:"):
        from benchmarks.onnx_encoder import OnnxEncoder

        embedder = OnnxEncoder(Path(args.embedder.removeprefix("onnx:")))
    else:
        embedder = make_embedder(args.embedder)
    if not embedder.dim:
        sys.exit(f"embedder {args.embedder!r} has no vectors: nothing to compare")
    rows = []
    for name in args.sets.split(","):
        if name.rpartition("-x")[0] not in SETS and name not in SETS:
            sys.exit(f"unknown set {name!r}; expected one of {', '.join(SETS)}")
        try:
            s = load(name)
        except SetMissing as exc:
            print(f"skipped {exc}")
            continue
        thresholds = [float(t) for t in args.thresholds.split(",") if t]
        rows.extend(evaluate(s, embedder, args.windows, args.sweep, thresholds))
    print(f"\nembedder {embedder.name}; minSimilarity {MIN_SIMILARITY}; published = nDCG@10 of")
    print("BM25 (BEIR paper, table 2) and all-MiniLM-L6-v2 (MTEB) where the set has one")
    print(
        f"{'set':<12} {'docs':>6} {'qrys':>5} {'metric':<9} {'pubBM25':>6} {'pubMiniLM':>7} "
        f"{'keyword':>8} {'vector':>8} {'hyb-rrf60':>8} {'hybrid':>8} {'vec-1win':>8} "
        f"{'vec-avg':>8}"
    )
    for row in rows:
        print(row)


if __name__ == "__main__":
    main()
