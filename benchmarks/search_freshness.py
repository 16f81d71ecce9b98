"""Freshness under load: ``python -m benchmarks.search_freshness [--seconds 20] [--writers 16]
[--share-vectors] [--embedder minilm|minilm-int8] [--rate N]``.

Creates records at full speed through the actors (the path every API write takes) in one
process with the real indexer, for a fixed time, and probes how long each sampled record takes
to be found by a keyword search for its own unique word, and to have its vector. Prints the
create rate, the probe latencies (p50 / p99 / max), how many records the embedder read and
how many of them more than once (the titles are unique), the embedding rate while writing and
how long the vectors took to catch up after, and whether any workspace was re-synced whole.
``--rate``: at most N creates a second in all, to find the rate the vectors keep up with.
SQLite in a temporary data directory. ``--share-vectors`` runs it as one worker of a
two-worker server: vectors go through the store's ``search_vectors`` table (claimed,
embedded, stored), as there.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import trio

from fieldhouse.actors.bootstrap import init_workspace
from fieldhouse.actors.record_ops import CreateRecord
from fieldhouse.config import Settings
from fieldhouse.runtime import open_runtime
from fieldhouse.search import indexer as indexer_module
from fieldhouse.search.embedder import INT8_KINDS, Matrix, MiniLMEmbedder

PROBE_EVERY = 10  # every n-th record is probed
PROBE_INTERVAL = 0.05
GIVE_UP = 120.0


class CountingEmbedder(MiniLMEmbedder):
    texts = 0
    passes = 0
    cpu = 0.0  # the embedding thread's CPU seconds: the cost, whatever else runs
    seen: Counter[str] = Counter()

    def embed(self, texts: Sequence[str]) -> Matrix:
        CountingEmbedder.texts += len(texts)
        CountingEmbedder.passes += 1
        CountingEmbedder.seen.update(texts)
        cpu = time.thread_time()
        try:
            return super().embed(texts)
        finally:
            CountingEmbedder.cpu += time.thread_time() - cpu


def _quantiles(lags: list[float]) -> str:
    lags.sort()
    p50 = lags[len(lags) // 2]
    p99 = lags[min(len(lags) - 1, int(len(lags) * 0.99))]
    return f"p50 {p50:.2f} s  p99 {p99:.2f} s  max {lags[-1]:.2f} s"


async def run(
    seconds: float, writers: int, share_vectors: bool, int8: bool, rate: float | None
) -> None:
    embedder = CountingEmbedder(int8=INT8_KINDS if int8 else ())
    embedder.embed(["warm up"])  # load the model before the clock starts
    CountingEmbedder.texts = CountingEmbedder.passes = 0
    CountingEmbedder.cpu = 0.0
    CountingEmbedder.seen.clear()
    print(f"embedder {embedder.name}")
    indexer_module.make_embedder = lambda _: embedder  # type: ignore[assignment]
    resyncs = 0
    real_sync = indexer_module.Indexer.sync

    async def counting_sync(self: indexer_module.Indexer, account: str) -> int:
        nonlocal resyncs
        resyncs += 1
        return await real_sync(self, account)

    indexer_module.Indexer.sync = counting_sync  # type: ignore[method-assign]
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(data_dir=Path(tmp) / "data", workers=2 if share_vectors else 1)
        async with open_runtime(settings) as rt:
            made, _ = await init_workspace(rt.actors, "Bench", None)
            account = made.account_id
            assert rt.search is not None
            await rt.search.wait_fresh(account, 30)
            schemas = await rt.actors.schemas.get(account)
            tasks = schemas.get("tasks")
            assert tasks is not None
            module = tasks.module.module_id
            syncs_before = resyncs
            lags: list[float] = []
            vector_lags: list[float] = []
            waiting_vectors: dict[str, float] = {}  # probed record id -> when it was created
            missing = 0
            created = 0
            stop_at = trio.current_time() + seconds

            pending: dict[str, float] = {}  # probed word -> when its record was created
            writing = True

            async def prober() -> None:
                """One OR-query over every sampled word not yet found, every PROBE_INTERVAL:
                the probing itself must not load the server."""
                nonlocal missing
                assert rt.search is not None
                while writing or pending or waiting_vectors:
                    await trio.sleep(PROBE_INTERVAL)
                    index = rt.search.indexes.get(account)
                    if waiting_vectors and index is not None:
                        now = trio.current_time()
                        for rid in index.vectors.stamps_of(list(waiting_vectors)):
                            vector_lags.append(now - waiting_vectors.pop(rid))
                    if not pending:
                        continue
                    words = list(pending)[:200]
                    found = await rt.search.search(
                        account,
                        " ".join(words),
                        None,
                        limit=len(words),
                        min_similarity=0.9,
                        mode="keyword",
                    )
                    now = trio.current_time()
                    for hit in found.hits if found is not None else []:
                        for word in hit.title.split():
                            if word in pending:
                                lags.append(now - pending.pop(word))
                    for word, made_at in list(pending.items()):
                        if now - made_at > GIVE_UP:
                            missing += 1
                            del pending[word]

            async def writer(w: int) -> None:
                nonlocal created
                n = 0
                next_at = trio.current_time()
                while trio.current_time() < stop_at:
                    if rate is not None:
                        await trio.sleep_until(next_at)
                        next_at += writers / rate
                    word = f"zq{w}x{n}"
                    title = f"Follow up {word} with the supplier about the delivery"
                    row = await rt.actors.ask(
                        account,
                        CreateRecord(
                            module, title, {"title": title, "status": "todo"}, None, "Bench"
                        ),
                    )
                    created += 1
                    if n % PROBE_EVERY == 0:
                        pending[word] = waiting_vectors[row.record_id] = trio.current_time()
                    n += 1

            started = time.perf_counter()
            cpu0 = time.process_time()
            async with trio.open_nursery() as probes:
                probes.start_soon(prober)
                async with trio.open_nursery() as writers_nursery:
                    for w in range(writers):
                        writers_nursery.start_soon(writer, w)
                elapsed = time.perf_counter() - started
                embedded_while_writing = CountingEmbedder.texts
                writing = False
                # the vectors catch up after the writes stop
                await rt.search.wait_fresh(account, GIVE_UP)
                drained = time.perf_counter() - started - elapsed
            cpu = time.process_time() - cpu0
            print(
                f"{created} records created in {elapsed:.1f} s by {writers} concurrent writers "
                f"({created / elapsed:.0f}/s), process CPU {cpu:.1f} s"
            )
            if lags:
                print(
                    f"searchable by keyword after (every {PROBE_EVERY}th record, {len(lags)} "
                    f"probes): {_quantiles(lags)}; not found within {GIVE_UP:.0f} s: {missing}"
                )
            if vector_lags:
                print(f"with its vector after: {_quantiles(vector_lags)}")
            twice = sum(1 for n in CountingEmbedder.seen.values() if n > 1)
            print(
                f"embedded while writing: {embedded_while_writing / elapsed:.0f}/s; every vector "
                f"in {drained:.1f} s after the writes stopped; {CountingEmbedder.passes} passes "
                f"({CountingEmbedder.texts / max(CountingEmbedder.passes, 1):.1f} texts each), "
                f"{1000 * CountingEmbedder.cpu / max(CountingEmbedder.texts, 1):.2f} CPU ms/text"
            )
            print(
                f"texts embedded: {CountingEmbedder.texts} for {created} records, {twice} of them "
                f"more than once (probes are keyword searches: no query embeddings); "
                f"whole-workspace syncs during the run: {resyncs - syncs_before}"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--writers", type=int, default=16)
    parser.add_argument("--share-vectors", action="store_true")
    parser.add_argument("--embedder", choices=["minilm", "minilm-int8"], default="minilm")
    parser.add_argument("--rate", type=float, default=None)
    args = parser.parse_args()
    int8 = args.embedder == "minilm-int8"
    trio.run(run, args.seconds, args.writers, args.share_vectors, int8, args.rate)


if __name__ == "__main__":
    main()
