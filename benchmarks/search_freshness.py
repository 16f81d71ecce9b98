"""Freshness under load: ``python -m benchmarks.search_freshness [--seconds 20] [--writers 16]
[--share-vectors] [--embedder minilm-int8|minilm] [--rate N]``.

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
import os
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
from fieldhouse.search.embedder import Matrix
from fieldhouse.search.service import SearchService

PROBE_EVERY = 10  # every n-th record is probed
PROBE_INTERVAL = 0.05
GIVE_UP = 120.0


class Counted:
    """What the indexer sent to be embedded (in the embedding process, or its thread)."""

    texts = 0
    passes = 0
    seen: Counter[str] = Counter()


_embed_records = SearchService.embed_records


async def _counting_embed_records(self: SearchService, texts: Sequence[str]) -> list[Matrix]:
    Counted.texts += len(texts)
    Counted.passes += 1
    Counted.seen.update(texts)
    return await _embed_records(self, texts)


def _embedding_cpu(service: SearchService) -> float:
    """CPU seconds the embedding process has used so far (Linux ``/proc``), else this
    process's (the embedding then runs in one of its threads)."""
    pid = service.process.pid if service.process is not None else None
    if pid is None:
        return time.process_time()
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _quantiles(lags: list[float]) -> str:
    lags.sort()
    p50 = lags[len(lags) // 2]
    p99 = lags[min(len(lags) - 1, int(len(lags) * 0.99))]
    return f"p50 {p50:.2f} s  p99 {p99:.2f} s  max {lags[-1]:.2f} s"


async def run(
    seconds: float, writers: int, share_vectors: bool, embedder: str, rate: float | None
) -> None:
    Counted.texts = Counted.passes = 0
    Counted.seen.clear()
    SearchService.embed_records = _counting_embed_records  # type: ignore[method-assign]
    resyncs = 0
    real_sync = indexer_module.Indexer.sync

    async def counting_sync(self: indexer_module.Indexer, account: str) -> int:
        nonlocal resyncs
        resyncs += 1
        return await real_sync(self, account)

    indexer_module.Indexer.sync = counting_sync  # type: ignore[method-assign]
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(
            data_dir=Path(tmp) / "data", workers=2 if share_vectors else 1, embedder=embedder
        )
        async with open_runtime(settings) as rt:
            print(f"embedder {rt.search.embedder.name if rt.search else '-'}")
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
            embedding_cpu0 = _embedding_cpu(rt.search)
            Counted.texts = Counted.passes = 0  # the workspace's own records, embedded at start
            Counted.seen.clear()
            async with trio.open_nursery() as probes:
                probes.start_soon(prober)
                async with trio.open_nursery() as writers_nursery:
                    for w in range(writers):
                        writers_nursery.start_soon(writer, w)
                elapsed = time.perf_counter() - started
                embedded_while_writing = Counted.texts
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
            twice = sum(1 for n in Counted.seen.values() if n > 1)
            embedding_cpu = _embedding_cpu(rt.search) - embedding_cpu0
            print(
                f"embedded while writing: {embedded_while_writing / elapsed:.0f}/s; every vector "
                f"in {drained:.1f} s after the writes stopped; {Counted.passes} passes "
                f"({Counted.texts / max(Counted.passes, 1):.1f} texts each), "
                f"{1000 * embedding_cpu / max(Counted.texts, 1):.2f} CPU ms/text"
            )
            print(
                f"texts embedded: {Counted.texts} for {created} records, {twice} of them "
                f"more than once (probes are keyword searches: no query embeddings); "
                f"whole-workspace syncs during the run: {resyncs - syncs_before}"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--writers", type=int, default=16)
    parser.add_argument("--share-vectors", action="store_true")
    parser.add_argument("--embedder", choices=["minilm", "minilm-int8"], default="minilm-int8")
    parser.add_argument("--rate", type=float, default=None)
    args = parser.parse_args()
    trio.run(run, args.seconds, args.writers, args.share_vectors, args.embedder, args.rate)


if __name__ == "__main__":
    main()
