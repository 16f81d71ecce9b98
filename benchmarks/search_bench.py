"""Search quality and speed: ``python -m benchmarks.search_bench [--sizes 10000,100000]``.

Everything goes through the store, as a server's search does: a workspace of a temporary
SQLite store holds the records' words (``Store.reindex``: the keyword index and the queue of
records waiting for vectors), their vectors are stored with ``Store.store_vectors`` (or by the
embedding loop itself, ``embedding.embed_once``), and queries run through
``SearchService.search``.

Quality: recall@10 and MRR of keyword only, vector only and hybrid over the hand-made set in
``relevance_sets`` (``search_relevance`` gives nDCG@10 on every labelled set). Throughput: the
keyword index's writes (``Store.reindex`` records/s) and the embedding loop's (claim, read the
indexed text, embed, store: records/s). Speed, at each size: how long the store takes to be
written, the first query's reads (the word statistics, and the workspace's vectors into the
process's matrix), then query p50/p99/max: the query's embedding alone, each mode with the
query's vector given, and the hybrid query as the server runs it (the embedding in a thread
while the keyword half runs). Embedding 100,000 texts would take most of an hour on 2 cores,
so for the speed part the corpus is synthetic text and its vectors are real embeddings of a
smaller set of distinct texts, reused with small random perturbations (said in the output).
The synthetic text draws from 6,000 English words (``search_words.txt``) with
Zipf-distributed frequencies, so common words match many records and rare ones few, as in
real text.
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import trio

from benchmarks.relevance_sets import QUERIES, RECORDS
from benchmarks.search_relevance import open_workspace
from fieldhouse.config import Settings
from fieldhouse.model.search_doc import Doc
from fieldhouse.search import service as service_module
from fieldhouse.search.embedder import Embedder, Matrix, make_embedder, normalise
from fieldhouse.search.embedding import embed_once
from fieldhouse.search.engine import Mode
from fieldhouse.search.query_embedder import LocalQueryEmbedder
from fieldhouse.search.service import SearchService
from fieldhouse.storage import Store, open_database

MODULES = ["m-companies", "m-tasks", "m-deals", "m-notes"]
WORDS_FILE = Path(__file__).with_name("search_words.txt")
ZIPF_S = 1.0  # word frequency falls as 1 / rank**s, as in natural text
PAGE = 500  # records a reindex, as a rebuild writes them
AT = "2026-01-01T00:00:00.000000Z"
LABELS = {
    "hybrid": "hybrid, vector given (keyword + vector + fusion)",
    "at once": "hybrid with its embedding (as the server runs)",
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


def _sentence(rng: random.Random, n: int) -> str:
    return " ".join(rng.choices(WORDS, cum_weights=CUM_WEIGHTS, k=n))


class BenchQueries:
    """Query vectors: those given (made beforehand) as they are, any other embedded here."""

    def __init__(self, embedder: Embedder) -> None:
        self.dim = embedder.dim
        self.local = LocalQueryEmbedder(embedder)
        self.given: dict[str, Matrix] = {}

    async def embed(self, text: str) -> Matrix | None:
        found = self.given.get(text)
        return found if found is not None else await self.local.embed(text)


async def quality(store: Store, embedder: Embedder) -> None:
    docs = [Doc(rid, MODULES[0], title, body, "", "t") for rid, (title, body) in RECORDS.items()]
    vecs = embedder.embed_windows([d.embed_text for d in docs])
    await open_workspace(store, "quality", docs, vecs, embedder.name)
    service = SearchService(store, BenchQueries(embedder), embedder.name)
    print(
        f"Relevance set: {len(docs)} records, {len(QUERIES)} queries "
        f"({sum(k == 'keyword' for _, k, _ in QUERIES)} keyword, "
        f"{sum(k == 'paraphrase' for _, k, _ in QUERIES)} paraphrase)"
    )
    print(f"{'mode':<8} {'subset':<11} {'recall@10':>9} {'MRR':>6}")
    modes: tuple[Mode, ...] = ("keyword", "vector", "hybrid")
    for mode in modes:
        for subset in ("keyword", "paraphrase", "all"):
            chosen = [q for q in QUERIES if subset in ("all", q[1])]
            recalls, rranks = [], []
            for text, _, expected in chosen:
                found = await service.search(
                    "quality", text, None, limit=10, min_similarity=0.3, mode=mode
                )
                ids = [h.record_id for h in found.hits] if found is not None else []
                recalls.append(len(expected & set(ids)) / len(expected))
                first = next((i for i, rid in enumerate(ids) if rid in expected), None)
                rranks.append(0.0 if first is None else 1.0 / (first + 1))
            print(
                f"{mode:<8} {subset:<11} {statistics.mean(recalls):>9.3f} "
                f"{statistics.mean(rranks):>6.3f}"
            )


async def throughput(store: Store, embedder: Embedder, n: int = 400) -> None:
    rng = random.Random(1)
    docs = [
        Doc(f"r{i}", MODULES[i % 4], _sentence(rng, 5).capitalize(), _sentence(rng, 30), "", "t")
        for i in range(n)
    ]
    account = "throughput"
    await store.create_account(account, account, account, AT)
    t0, cpu0 = time.perf_counter(), time.process_time()
    for start in range(0, n, PAGE):
        await store.reindex(account, docs[start : start + PAGE], first=start == 0)
    t1, cpu1 = time.perf_counter(), time.process_time()
    embedding = 0.0

    async def run(
        fn: Callable[[Sequence[str]], list[Matrix]], texts: Sequence[str]
    ) -> list[Matrix]:
        nonlocal embedding
        began = time.perf_counter()
        out = await trio.to_thread.run_sync(fn, texts)
        embedding += time.perf_counter() - began
        return out

    while await embed_once(store, embedder, run):
        pass
    t2, cpu2 = time.perf_counter(), time.process_time()
    print(
        f"Indexing throughput ({n} records of ~35 words): Store.reindex {n / (t1 - t0):,.0f} "
        f"records/s (CPU {_per(cpu1 - cpu0, n)}); the embedding loop (embed_once, {embedder.name}) "
        f"{n / (t2 - t1):.0f} records/s (CPU {_per(cpu2 - cpu1, n)}; wall {_per(t2 - t1, n)}, of "
        f"which the embedder's thread {_per(embedding, n)})"
    )


def _corpus(size: int, distinct: int, embedder: Embedder) -> tuple[list[Doc], Matrix, float]:
    rng = random.Random(size)
    base_texts = [_sentence(rng, 12) for _ in range(distinct)]
    t0 = time.perf_counter()
    base = embedder.embed(base_texts)
    t_embed = time.perf_counter() - t0
    docs: list[Doc] = []
    vecs = np.empty((size, embedder.dim), np.float32)
    for i in range(size):
        j = i % distinct
        title, body = f"{base_texts[j][:40]} {i}", f"{base_texts[j]} {_sentence(rng, 20)}"
        docs.append(Doc(f"r{i:06d}", MODULES[i % 4], title, body, "", "t"))
        vecs[i] = base[j] + rng.gauss(0, 0.01) * np.ones(embedder.dim, np.float32)
    noise = np.random.default_rng(size).normal(0, 0.02, vecs.shape).astype(np.float32)
    return docs, normalise(vecs + noise), t_embed


def _ms(seconds: float) -> str:
    return f"{1000 * seconds:,.0f} ms"


def _per(seconds: float, n: int) -> str:
    return f"{1000 * seconds / n:.2f} ms a record"


async def speed(store: Store, embedder: Embedder, size: int, distinct: int, queries: int) -> None:
    docs, vecs, t_embed = _corpus(size, distinct, embedder)
    account = f"speed-{size}"
    await store.create_account(account, account, account, AT)
    t0, cpu0 = time.perf_counter(), time.process_time()
    for start in range(0, size, PAGE):
        await store.reindex(account, docs[start : start + PAGE], first=start == 0)
    t1, cpu1 = time.perf_counter(), time.process_time()
    for start in range(0, size, PAGE):
        items = [
            (d.record_id, d.module_id, d.stamp, vecs[i].tobytes())
            for i, d in enumerate(docs[start : start + PAGE], start)
        ]
        await store.store_vectors(account, embedder.name, items)
    t2, cpu2 = time.perf_counter(), time.process_time()
    # the corpus is in the store: drop its Python objects, which a server would not hold, or
    # every full garbage collection during the queries walks them
    del docs, vecs
    gc.collect()
    given = BenchQueries(embedder)
    service = SearchService(store, given, embedder.name)
    async with trio.open_nursery() as nursery:
        await nursery.start(service.run)  # where the word statistics are counted again
        t3 = time.perf_counter()
        await store.keyword_stats(account)
        t4 = time.perf_counter()
        await service.vectors_of(account)
        t5 = time.perf_counter()
        rng = random.Random(-size)
        texts = [_sentence(rng, rng.randint(2, 6)) for _ in range(queries + 5)]
        allowed = set(MODULES[:3])

        async def search(text: str, mode: Mode) -> None:
            await service.search(account, text, allowed, limit=25, min_similarity=0.3, mode=mode)

        for text in texts[:5]:  # warm the store's and the process's caches
            await search(text, "hybrid")
        parts: dict[str, list[float]] = {
            k: [] for k in ("embed", "keyword", "vector", "hybrid", "at once")
        }
        for text in texts[5:]:
            a = time.perf_counter()
            await search(text, "hybrid")  # embedded in a thread while the keyword half runs
            b = time.perf_counter()
            given.given[text] = embedder.embed([text])[0]
            c = time.perf_counter()
            await search(text, "hybrid")
            d = time.perf_counter()
            await search(text, "keyword")
            e = time.perf_counter()
            await search(text, "vector")
            f = time.perf_counter()
            for name, took in (
                ("at once", b - a),
                ("embed", c - b),
                ("hybrid", d - c),
                ("keyword", e - d),
                ("vector", f - e),
            ):
                parts[name].append(took)
        nursery.cancel_scope.cancel()
    print(
        f"\n{size:,} records ({distinct:,} distinct texts embedded in {t_embed:.1f} s, vectors "
        f"reused with noise): Store.reindex {size / (t1 - t0):,.0f} records/s "
        f"(CPU {_per(cpu1 - cpu0, size)}), Store.store_vectors {size / (t2 - t1):,.0f} "
        f"records/s (CPU {_per(cpu2 - cpu1, size)}); the first query's reads: word "
        f"statistics {_ms(t4 - t3)}, vectors into the matrix {_ms(t5 - t4)}"
    )
    print(f"  {queries} queries, 3 of 4 modules visible, limit 25; milliseconds:")
    for name, times in parts.items():
        ms = sorted(1000 * t for t in times)
        p50 = ms[len(ms) // 2]
        p99 = ms[min(len(ms) - 1, int(len(ms) * 0.99))]
        label = LABELS.get(name, name)
        print(f"  {label:<48} p50 {p50:6.1f}  p99 {p99:6.1f}  max {ms[-1]:6.1f}")


async def run(args: argparse.Namespace) -> None:
    embedder = make_embedder(args.embedder)
    load = " / ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"embedder {embedder.name}; load average {load} (times are wall clock unless CPU)")
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="fh-search-bench-") as tmp:
        async with open_database(f"sqlite:///{tmp}/search.sqlite3") as store:
            store.vector_model = embedder.name  # records are queued for vectors, as in a server
            if not args.speed_only:
                await quality(store, embedder)
                print()
                await throughput(store, embedder)
            for size in (int(s) for s in args.sizes.split(",") if s):
                await speed(store, embedder, size, min(args.distinct, size), args.queries)
    load = " / ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"\nTotal benchmark time {time.perf_counter() - started:.0f} s; load average {load}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--distinct", type=int, default=2000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--speed-only", action="store_true", help="skip quality and throughput")
    parser.add_argument(
        "--embedder", default=Settings().embedder, help="a make_embedder() name (the server's)"
    )
    parser.add_argument(
        "--stats-seconds",
        type=float,
        default=service_module.STATS_SECONDS,
        help="how long a workspace's word statistics serve before they are counted again, "
        "in the background (0.2: a few dozen recounts in a run, as a server answering a query "
        "a second has one in 60 queries)",
    )
    args = parser.parse_args()
    service_module.STATS_SECONDS = args.stats_seconds
    trio.run(run, args)


if __name__ == "__main__":
    main()
