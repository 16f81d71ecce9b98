"""Ranking quality: ``python -m benchmarks.search_relevance [--sets handmade,cisi,cacm]``.

Each set (``benchmarks/relevance_sets.py`` says where its files go) is indexed through the real
path: its :class:`Doc`\\ s go into a workspace of a temporary SQLite store with
``Store.reindex`` (the keyword index, and the queue of records waiting for vectors), and the
vectors of ``Doc.embed_text`` by the embedder ``--embedder`` names (a :func:`make_embedder`
choice, default ``minilm``, or ``onnx:PATH``, another encoder's ONNX file:
:mod:`benchmarks.onnx_encoder`) are stored with ``Store.store_vectors``, as the embedding loop
stores them. Every judged query then runs through ``SearchService.search`` in keyword, vector
and hybrid mode (``minSimilarity`` 0.3, the API default), with a query embedder that answers
with the queries' vectors made beforehand, and the table gives nDCG@10 (linear gains, as
trec_eval's ndcg_cut_10) and recall@10 per mode, next to the BM25 and all-MiniLM-L6-v2
nDCG@10 published for the set where there is one. ``hybrid-rrf60`` is the fusion used before
(reciprocal ranks, K=60, 100 candidates a list), recomputed from the same two lists (without
names-first), so it and the second table's hybrid differ by the rule alone.

The service puts the records whose name holds every query word first (names-first), in every
mode, so that ordering is part of the first table's figures. The second table gives the same
modes ranked by their scores alone (recomputed from the two halves' candidate lists, as
``engine.fuse`` mixes them) and how many judged queries names-first reordered; a line says
whether the names-first order recomputed from the lists matches the service's answers.

The index keeps a vector per window of a record's text (up to 4 windows of 128 tokens,
``embedder.MAX_WINDOWS``) and ranks a record by its best window. ``--windows`` also runs the
vector half with only the first window of every text (``vec-1win``) and with the average of
the windows as the record's one vector (``vec-avg``), each in a workspace of its own.
``<set>-x4`` joins a set's documents four to a record (``relevance_sets.joined``): long
records. ``--sweep`` prints the fusion rules tried (on the lists the store returns) for the
table in ``benchmarks/relevance.md``. Document vectors are cached under ``/tmp`` by set,
embedder and window count, so a rerun only embeds the queries.

Each set also gets a line on how much the threshold filters: of the vector half's 100
candidates per query (cosine order), the share at or above ``minSimilarity``, and the share of
all records that are. ``--thresholds 0.2,0.3,0.4`` runs the vector and hybrid modes again at
each threshold, for an embedder whose cosines sit elsewhere than MiniLM's.
"""

from __future__ import annotations

import argparse
import hashlib
import logging
import statistics
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import trio
from tokenizers import Tokenizer

from benchmarks.relevance_rules import (
    MIN_SIMILARITY,
    PLAIN,
    K,
    Lists,
    Scores,
    apply_rule,
    mean_scores,
    names_of,
    rrf,
    sweep_rules,
)
from benchmarks.relevance_sets import SETS, RelevanceSet, SetMissing, load
from fieldhouse.model.search_doc import Doc
from fieldhouse.search.embedder import (
    MAX_TOKENS,
    Embedder,
    Matrix,
    make_embedder,
    model_dir,
)
from fieldhouse.search.engine import CANDIDATES, Mode
from fieldhouse.search.service import SearchService
from fieldhouse.storage import Store, open_database
from fieldhouse.storage.base import StorageError
from fieldhouse.storage.fulltext import KeywordHits, Stats, query_words

CACHE = Path(tempfile.gettempdir()) / "fieldhouse-relevance"
OLD_DEPTH = 100  # candidates a list of the reciprocal-rank fusion used before
PAGE = 500  # records a reindex (and a store of vectors) at a time
AT = "2026-01-01T00:00:00.000000Z"
#: attempts at a search: the store's keyword read fails now and then (seen: "constraint
#: failed" from its scratch table of query words, when the read was moved to a thread midway);
#: the failures are counted and printed
TRIES = 3
FAILED = [0]


class _OneLine(logging.Handler):
    """The search service's log lines without their tracebacks (a failed search is retried)."""

    def emit(self, record: logging.LogRecord) -> None:
        exc = record.exc_info[1] if record.exc_info else None
        while isinstance(exc, BaseExceptionGroup):
            exc = exc.exceptions[0]
        why = f": {type(exc).__name__}: {exc}" if exc is not None else ""
        print(f"  log: {record.getMessage()}{why}", file=sys.stderr)


class Precomputed:
    """A query embedder answering with the vectors of the set's queries, made beforehand."""

    def __init__(self, dim: int, vectors: dict[str, Matrix]) -> None:
        self.dim = dim
        self.vectors = vectors

    async def embed(self, text: str) -> Matrix | None:
        return self.vectors.get(text)


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


async def open_workspace(
    store: Store, account: str, docs: Sequence[Doc], vecs: Sequence[Matrix], model: str
) -> None:
    """A workspace holding ``docs`` and their vectors, as the embedding loop leaves it."""
    await store.create_account(account, account, account, AT)
    for start in range(0, len(docs), PAGE):
        page = docs[start : start + PAGE]
        await store.reindex(account, page, first=start == 0)
        items = [
            (d.record_id, d.module_id, d.stamp, np.ascontiguousarray(v, np.float32).tobytes())
            for d, v in zip(page, vecs[start : start + PAGE], strict=True)
        ]
        await store.store_vectors(account, model, items)
    waiting = (await store.vector_backlog(account)).waiting
    if waiting:
        sys.exit(f"{account}: {waiting} records still wait for their vectors")


async def run_mode(
    service: SearchService,
    account: str,
    s: RelevanceSet,
    mode: Mode,
    min_similarity: float = MIN_SIMILARITY,
) -> dict[str, list[str]]:
    out = {}
    for qid in s.qrels:
        for _ in range(TRIES):
            found = await service.search(
                account, s.queries[qid], None, limit=K, min_similarity=min_similarity, mode=mode
            )
            if found is not None:
                break
            FAILED[0] += 1  # the service's fallback (it logged why)
        else:
            sys.exit(f"{account}: the search failed {TRIES} times in a row")
        out[qid] = [h.record_id for h in found.hits]
    return out


async def _keyword(store: Store, account: str, words: list[str], stats: Stats) -> KeywordHits:
    for _ in range(TRIES - 1):
        try:
            return await store.keyword_search(account, words, stats, None, CANDIDATES)
        except StorageError:
            FAILED[0] += 1
    return await store.keyword_search(account, words, stats, None, CANDIDATES)


async def candidate_lists(
    service: SearchService, account: str, s: RelevanceSet, qvecs: dict[str, Matrix]
) -> Lists:
    """Both halves' candidates per query, as ``SearchService.search`` fetches them."""
    store = service.store
    stats = await store.keyword_stats(account)
    index = await service.vectors_of(account)
    assert index is not None
    out: Lists = {}
    for qid in s.qrels:
        words = query_words(s.queries[qid])
        kw = await _keyword(store, account, words, stats) if words else None
        vec = index.search(qvecs[qid], None, CANDIDATES, MIN_SIMILARITY)
        out[qid] = (list(kw.ranked) if kw else [], vec.ranked)
    return out


async def passing(
    service: SearchService,
    account: str,
    s: RelevanceSet,
    qvecs: dict[str, Matrix],
    threshold: float,
) -> tuple[float, float]:
    """Mean shares, over the judged queries, of the vector half's candidates and of all
    records whose cosine is at or above ``threshold``."""
    index = await service.vectors_of(account)
    assert index is not None
    n = len(s.docs)
    of_candidates, of_all = [], []
    for qid in s.qrels:
        hits = index.search(qvecs[qid], None, CANDIDATES, threshold)
        of_candidates.append(len(hits.ranked) / min(CANDIDATES, n))
        of_all.append(hits.total / n)
    return statistics.mean(of_candidates), statistics.mean(of_all)


async def threshold_rows(
    service: SearchService,
    account: str,
    s: RelevanceSet,
    qvecs: dict[str, Matrix],
    thresholds: Sequence[float],
) -> None:
    for t in thresholds:
        cand, every = await passing(service, account, s, qvecs, t)
        vec = mean_scores(await run_mode(service, account, s, "vector", t), s)
        hyb = mean_scores(await run_mode(service, account, s, "hybrid", t), s)
        print(
            f"  threshold {s.name:<10} {t:.2f}: candidates passing {cand:6.1%}, all records "
            f"{every:6.1%}; nDCG@10 vector {vec.ndcg:.3f} hybrid {hyb.ndcg:.3f}; "
            f"recall@10 vector {vec.recall:.3f} hybrid {hyb.recall:.3f}"
        )


@dataclass
class Outcome:
    """A set's rows: the service's answers, and the scores alone."""

    rows: list[str]
    plain: list[str]


async def evaluate(
    s: RelevanceSet,
    embedder: Embedder,
    windows: bool,
    sweep: bool,
    thresholds: Sequence[float] = (),
) -> Outcome:
    """Index the set, run every mode, return its table rows (and print the sweep)."""
    print(f"{s.name}: {len(s.docs)} documents, {len(s.qrels)} judged queries ({s.source})")
    judged = list(s.qrels)
    qmat = embedder.embed([s.queries[q] for q in judged])
    qvecs = {q: qmat[i] for i, q in enumerate(judged)}
    by_text = {s.queries[q]: qvecs[q] for q in judged}
    model = embedder.name
    with tempfile.TemporaryDirectory(prefix="fh-relevance-") as tmp:
        async with open_database(f"sqlite:///{tmp}/relevance.sqlite3") as store:
            store.vector_model = model  # records are queued for vectors, as in a server
            service = SearchService(store, Precomputed(embedder.dim, by_text), model)
            each = f"{s.name}-each"
            await open_workspace(store, each, s.docs, doc_vectors(s, embedder, "each"), model)
            runs = {m: await run_mode(service, each, s, m) for m in MODES}
            scores = {m: mean_scores(runs[m], s) for m in MODES}
            cand, every = await passing(service, each, s, qvecs, MIN_SIMILARITY)
            print(
                f"  cosine >= {MIN_SIMILARITY}: {cand:.1%} of the vector candidates, "
                f"{every:.1%} of all records (means over the queries)"
            )
            await threshold_rows(service, each, s, qvecs, thresholds)
            lists = await candidate_lists(service, each, s, qvecs)
            named = names_of(s, lists)
            plain = {m: mean_scores(apply_rule(PLAIN[m], lists), s) for m in MODES}
            reordered = {
                m: sum(
                    apply_rule(PLAIN[m], lists)[q] != apply_rule(PLAIN[m], lists, named)[q]
                    for q in judged
                )
                for m in MODES
            }
            mismatched = {
                m: sum(runs[m][q] != apply_rule(PLAIN[m], lists, named)[q] for q in judged)
                for m in MODES
            }
            print(
                "  queries whose answer differs from the lists' names-first order: "
                + ", ".join(f"{m} {mismatched[m]}" for m in MODES)
            )
            old = mean_scores(apply_rule(rrf(60, 0.5, OLD_DEPTH), lists), s)
            if sweep:
                for label, rule in sweep_rules().items():
                    got = mean_scores(apply_rule(rule, lists), s)
                    print(f"  sweep {s.name:<10} {label:<24} {got.ndcg:.4f} {got.recall:.4f}")
            halves: dict[str, Scores] = {}  # the vector half with other document vectors
            for kind in ("1", "avg") if windows else ():
                account = f"{s.name}-{kind}"
                await open_workspace(store, account, s.docs, doc_vectors(s, embedder, kind), model)
                halves[kind] = mean_scores(await run_mode(service, account, s, "vector"), s)
    one, averaged = halves.get("1"), halves.get("avg")
    pub = s.published
    out = Outcome([], [])
    for metric in ("ndcg", "recall"):
        cells = [getattr(scores[m], metric) for m in MODES]
        cells.insert(2, getattr(old, metric))
        published = (
            f"{pub[0]:>6.3f} {pub[1]:>7.3f}" if pub and metric == "ndcg" else f"{'-':>6} {'-':>7}"
        )
        vec1 = f"{getattr(one, metric):>8.3f}" if one else f"{'-':>8}"
        avg = f"{getattr(averaged, metric):>8.3f}" if averaged else f"{'-':>8}"
        head = f"{s.name:<12} {len(s.docs):>6} {len(s.qrels):>5} {metric + '@10':<9}"
        out.rows.append(
            f"{head} {published} " + " ".join(f"{c:>8.3f}" for c in cells) + f" {vec1} {avg}"
        )
        out.plain.append(
            f"{head} "
            + " ".join(f"{getattr(plain[m], metric):>8.3f}" for m in MODES)
            + " "
            + " ".join(f"{reordered[m]:>8}" for m in MODES)
        )
    return out


MODES: tuple[Mode, ...] = ("keyword", "vector", "hybrid")


async def run(args: argparse.Namespace, embedder: Embedder) -> None:
    outcomes = []
    thresholds = [float(t) for t in args.thresholds.split(",") if t]
    for name in args.sets.split(","):
        if name.rpartition("-x")[0] not in SETS and name not in SETS:
            sys.exit(f"unknown set {name!r}; expected one of {', '.join(SETS)}")
        try:
            s = load(name)
        except SetMissing as exc:
            print(f"skipped {exc}")
            continue
        outcomes.append(await evaluate(s, embedder, args.windows, args.sweep, thresholds))
    if FAILED[0]:
        print(f"\n{FAILED[0]} searches failed and were run again (the store's keyword read)")
    print(f"\nembedder {embedder.name}; minSimilarity {MIN_SIMILARITY}; published = nDCG@10 of")
    print("BM25 (BEIR paper, table 2) and all-MiniLM-L6-v2 (MTEB) where the set has one;")
    print("keyword, vector, hybrid, vec-1win, vec-avg: SearchService's answers (names-first)")
    head = f"{'set':<12} {'docs':>6} {'qrys':>5} {'metric':<9}"
    print(
        f"{head} {'pubBM25':>6} {'pubMiniLM':>7} {'keyword':>8} {'vector':>8} "
        f"{'hyb-rrf60':>8} {'hybrid':>8} {'vec-1win':>8} {'vec-avg':>8}"
    )
    for outcome in outcomes:
        print("\n".join(outcome.rows))
    print("\nby the scores alone, without names-first (and judged queries names-first reordered)")
    print(
        f"{head} "
        + " ".join(f"{m:>8}" for m in MODES)
        + " "
        + " ".join(f"{'re-' + m[:3]:>8}" for m in MODES)
    )
    for outcome in outcomes:
        print("\n".join(outcome.plain))


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
    search_log = logging.getLogger("fieldhouse.search")
    search_log.addHandler(_OneLine())
    search_log.propagate = False
    trio.run(run, args, embedder)


if __name__ == "__main__":
    main()
