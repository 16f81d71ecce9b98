"""Search quality and speed: ``python -m benchmarks.search_bench [--sizes 10000,100000]``.

Quality: recall@10 and MRR of keyword only, vector only and hybrid over the labelled set in
``relevance_sets``. Speed: indexing throughput with real embeddings, then query p50/p99 at
each size: the query's embedding and each half alone, the hybrid query with its halves one
after the other, and as the server runs it (the embedding and vector half in a second thread
while the keyword half runs). Embedding 100,000 texts with the numpy MiniLM would take most of
an hour on 2 cores, so for the speed part the corpus is synthetic text and its vectors are real
embeddings of a smaller set of distinct texts, reused with small random perturbations (said in
the output).
The synthetic text draws from 6,000 English words (``search_words.txt``) with Zipf-distributed
frequencies, so common words match many records and rare ones few, as in real text.
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import tempfile
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from benchmarks.relevance_sets import QUERIES, RECORDS
from fieldhouse.search import keyword
from fieldhouse.search.documents import Doc
from fieldhouse.search.embedder import MiniLMEmbedder, normalise
from fieldhouse.search.engine import Mode, WorkspaceIndex
from fieldhouse.search.vectors import one_blas_thread

EMBEDDER = MiniLMEmbedder()
MODULES = ["m-companies", "m-tasks", "m-deals", "m-notes"]
WORDS_FILE = Path(__file__).with_name("search_words.txt")
ZIPF_S = 1.0  # word frequency falls as 1 / rank**s, as in natural text
LABELS = {
    "hybrid": "hybrid (embed + keyword + vector + fusion)",
    "at once": "hybrid, halves at once (as the server runs)",
}


def _vocabulary() -> tuple[list[str], list[float]]:
    """The word list (most frequent first) and cumulative Zipf weights over it."""
    lines = WORDS_FILE.read_text().splitlines()
    words = [w for w in lines if w and not w.startswith("#")]
    cum, total = [], 0.0
    for rank in range(1, len(words) + 1):
        total += 1.0 / rank**ZIPF_S
        cum.append(total)
    return words, cum


WORDS, CUM_WEIGHTS = _vocabulary()


def quality() -> None:
    docs = [Doc(rid, MODULES[0], title, body, "", "t") for rid, (title, body) in RECORDS.items()]
    with tempfile.TemporaryDirectory() as tmp:
        index = WorkspaceIndex.open(Path(tmp), EMBEDDER, create=True)
        index.apply(docs, EMBEDDER.embed([d.embed_text for d in docs]), [])
        print(
            f"Relevance set: {len(docs)} records, {len(QUERIES)} queries "
            f"({sum(k == 'keyword' for _, k, _ in QUERIES)} keyword, "
            f"{sum(k == 'paraphrase' for _, k, _ in QUERIES)} paraphrase)"
        )
        print(f"{'mode':<8} {'subset':<11} {'recall@10':>9} {'MRR':>6}")
        for mode in ("keyword", "vector", "hybrid"):
            for subset in ("keyword", "paraphrase", "all"):
                chosen = [q for q in QUERIES if subset in ("all", q[1])]
                recall, mrr = _score(index, chosen, mode)  # type: ignore[arg-type]
                print(f"{mode:<8} {subset:<11} {recall:>9.3f} {mrr:>6.3f}")
        index.close()


def _score(
    index: WorkspaceIndex, queries: Sequence[tuple[str, str, set[str]]], mode: Mode
) -> tuple[float, float]:
    recalls, rranks = [], []
    for text, _, expected in queries:
        qvec = EMBEDDER.embed([text])[0]
        found = index.query(text, qvec, None, limit=10, min_similarity=0.3, mode=mode)
        ids = [h.record_id for h in found.hits]
        recalls.append(len(expected & set(ids)) / len(expected))
        first = next((i for i, rid in enumerate(ids) if rid in expected), None)
        rranks.append(0.0 if first is None else 1.0 / (first + 1))
    return statistics.mean(recalls), statistics.mean(rranks)


def _sentence(rng: random.Random, n: int) -> str:
    return " ".join(rng.choices(WORDS, cum_weights=CUM_WEIGHTS, k=n))


def throughput(n: int = 400) -> None:
    rng = random.Random(1)
    docs = [
        Doc(f"r{i}", MODULES[i % 4], _sentence(rng, 5).capitalize(), _sentence(rng, 30), "", "t")
        for i in range(n)
    ]
    with tempfile.TemporaryDirectory() as tmp:
        index = WorkspaceIndex.open(Path(tmp), EMBEDDER, create=True)
        t0 = time.perf_counter()
        vecs = EMBEDDER.embed([d.embed_text for d in docs])
        t1 = time.perf_counter()
        for start in range(0, n, 64):  # the indexer's batch shape
            index.apply(docs[start : start + 64], vecs[start : start + 64], [])
        t2 = time.perf_counter()
        index.close()
    print(
        f"Indexing throughput ({n} records of ~35 words, real embeddings, batches of 64): "
        f"{n / (t2 - t0):.0f} records/s end to end; embedding {n / (t1 - t0):.0f}/s "
        f"({1000 * (t1 - t0) / n:.1f} ms/record), FTS5+numpy {n / (t2 - t1):.0f}/s"
    )


def speed(size: int, distinct: int, queries: int) -> None:
    one_blas_thread()  # as a server process runs its searches
    rng = random.Random(size)
    base_texts = [_sentence(rng, 12) for _ in range(distinct)]
    t0 = time.perf_counter()
    base = EMBEDDER.embed(base_texts)
    t_embed = time.perf_counter() - t0
    docs: list[Doc] = []
    vecs = np.empty((size, EMBEDDER.dim), np.float32)
    for i in range(size):
        j = i % distinct
        docs.append(
            Doc(
                f"r{i:06d}",
                MODULES[i % 4],
                f"{base_texts[j][:40]} {i}",
                f"{base_texts[j]} {_sentence(rng, 20)}",
                "",
                "t",
            )
        )
        vecs[i] = base[j] + rng.gauss(0, 0.01) * np.ones(EMBEDDER.dim, np.float32)
    vecs = normalise(
        vecs + np.random.default_rng(size).normal(0, 0.02, vecs.shape).astype(np.float32)
    )
    with tempfile.TemporaryDirectory() as tmp:
        index = WorkspaceIndex.open(Path(tmp), EMBEDDER, create=True)
        t0 = time.perf_counter()
        for start in range(0, size, 10_000):
            index.apply(docs[start : start + 10_000], vecs[start : start + 10_000], [])
        index.optimize()  # as the indexer does after a bulk sync
        t_index = time.perf_counter() - t0
        # the corpus is indexed: drop its million Python objects, which a server would not
        # hold, or every full garbage collection during the queries walks them
        del docs, vecs
        gc.collect()
        texts = [_sentence(rng, rng.randint(2, 6)) for _ in range(queries)]
        allowed = set(MODULES[:3])
        for text in texts[:5]:  # warm the searcher and caches
            index.query(text, EMBEDDER.embed([text])[0], allowed, limit=25, min_similarity=0.3)
        parts: dict[str, list[float]] = {
            "embed": [],
            "keyword": [],
            "vector": [],
            "hybrid": [],
            "at once": [],
        }
        pool = ThreadPoolExecutor(1)
        for text in texts:
            a = time.perf_counter()
            qvec = EMBEDDER.embed([text])[0]
            b = time.perf_counter()
            index.query(text, qvec, allowed, limit=25, min_similarity=0.3, mode="hybrid")
            c = time.perf_counter()
            index.query(text, None, allowed, limit=25, min_similarity=0.3, mode="keyword")
            d = time.perf_counter()
            index.query(text, qvec, allowed, limit=25, min_similarity=0.3, mode="vector")
            e = time.perf_counter()
            index.query(
                text,
                lambda text=text: EMBEDDER.embed([text])[0],
                allowed,
                limit=25,
                min_similarity=0.3,
                pool=pool,
            )
            f = time.perf_counter()
            parts["embed"].append(b - a)
            parts["hybrid"].append(c - b + (b - a))
            parts["keyword"].append(d - c)
            parts["vector"].append(e - d)
            parts["at once"].append(f - e)
        pool.shutdown()
        index.close()
    print(
        f"\n{size:,} records ({distinct:,} distinct texts embedded in {t_embed:.1f} s, "
        f"vectors reused with noise; FTS5+numpy indexing {size / t_index:,.0f} records/s)"
    )
    print(f"  {queries} queries, 3 of 4 modules visible, limit 25; milliseconds:")
    for name, times in parts.items():
        ms = sorted(1000 * t for t in times)
        p50 = ms[len(ms) // 2]
        p99 = ms[min(len(ms) - 1, int(len(ms) * 0.99))]
        label = LABELS.get(name, name)
        print(f"  {label:<44} p50 {p50:6.1f}  p99 {p99:6.1f}  max {ms[-1]:6.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--distinct", type=int, default=2000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--speed-only", action="store_true", help="skip quality and throughput")
    parser.add_argument(
        "--stats-seconds",
        type=float,
        default=keyword.STATS_SECONDS,
        help="how long the keyword index keeps its word counts (0.2: a few dozen recounts in "
        "a run, as a server answering a query a second has one in 60 queries)",
    )
    args = parser.parse_args()
    keyword.STATS_SECONDS = args.stats_seconds
    started = time.perf_counter()
    if not args.speed_only:
        quality()
        print()
        throughput()
    for size in (int(s) for s in args.sizes.split(",") if s):
        speed(size, min(args.distinct, size), args.queries)
    print(f"\nTotal benchmark time {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
