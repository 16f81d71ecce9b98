"""Embedding cost: ``python -m benchmarks.embed_cost``.

CPU milliseconds per record (process time, so other load on the machine inflates it less
than wall time) of the fp32 ONNX graph and of each int8 variant (the dense layers named are
quantised, the others stay fp32), at batches of 1, 8 and 64 records; the speed-up against the
default (fp32, one record per call); and the smallest and mean cosine of each variant's vectors
against fp32's. Records are short CRM-like texts (about 18 tokens) and 35-word texts (about 50
tokens); the cosines also cover one- to three-word texts.

Last, the static embedder ``wordllama-256`` (:mod:`fieldhouse.search.static`) on the same texts
and batches, next to ``minilm-int8`` (the default: int8 but the FFN down projections), with the
speed-up at each batch. Its cost is measured over ``STATIC_ROUNDS`` passes of the records, since
one pass takes a few milliseconds.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence

import numpy as np

from benchmarks.search_bench import _sentence
from fieldhouse.search.embedder import INT8_KINDS, Embedder, MiniLMEmbedder
from fieldhouse.search.static import StaticEmbedder

RECORDS = 128
BATCHES = (1, 8, 64)
VARIANTS: dict[str, Sequence[str]] = {
    "fp32": (),
    "int8 all": ("qkv", "out", "up", "down"),
    "int8 but down": ("qkv", "out", "up"),
    "int8 attention": ("qkv", "out"),
    "int8 ffn": ("up", "down"),
}
DEFAULT = "int8 but down"  # minilm-int8
STATIC_ROUNDS = 20


def cost(embedder: Embedder, texts: list[str], batch: int, rounds: int = 1) -> float:
    cpu = time.process_time()
    for _ in range(rounds):
        for i in range(0, len(texts), batch):
            embedder.embed(texts[i : i + batch])
    return 1000 * (time.process_time() - cpu) / (rounds * len(texts))


def main() -> None:
    rng = random.Random(1)
    sets = {
        "short": [
            f"Deal {i}. Acme Corp renewal, stage proposal, amount {i * 37} EUR"
            for i in range(RECORDS)
        ],
        "35 words": [_sentence(rng, 35) for _ in range(RECORDS)],
    }
    tiny = [
        "",
        "x",
        "hello world",
        "Q3 budget",
        "call Anna",
        *(_sentence(rng, 3) for _ in range(59)),
    ]
    embedders = {name: MiniLMEmbedder(int8=kinds) for name, kinds in VARIANTS.items()}
    for embedder in embedders.values():
        embedder.embed(["warm up"])
    print(f"{'texts':<9} {'variant':<15} " + " ".join(f"{'batch ' + str(b):>9}" for b in BATCHES))
    base: dict[str, float] = {}
    default: dict[str, list[float]] = {}
    for label, texts in sets.items():
        for name, embedder in embedders.items():
            ms = [cost(embedder, texts, b) for b in BATCHES]
            base.setdefault(label, ms[0])
            if name == DEFAULT:
                default[label] = ms
            speedup = " ".join(f"{base[label] / m:.1f}x" for m in ms)
            cells = " ".join(f"{m:>9.2f}" for m in ms)
            print(f"{label:<9} {name:<15} {cells}   CPU ms/record; vs fp32 batch 1: {speedup}")
    reference = {
        label: embedders["fp32"].embed(t) for label, t in [*sets.items(), ("1-3 words", tiny)]
    }
    for name, embedder in embedders.items():
        if name == "fp32":
            continue
        parts = []
        for label, texts in [*sets.items(), ("1-3 words", tiny)]:
            cos = np.einsum("ij,ij->i", embedder.embed(texts), reference[label])
            parts.append(f"{label} min {cos.min():.5f} mean {cos.mean():.5f}")
        print(f"cosine to fp32, {name}: " + "; ".join(parts))
    static_cost(sets, default)


def static_cost(sets: dict[str, list[str]], default: dict[str, list[float]]) -> None:
    """The static embedder's CPU ms per record beside minilm-int8's (``default``)."""
    assert set(VARIANTS[DEFAULT]) == set(INT8_KINDS)
    static = StaticEmbedder()
    static.embed(["warm up"])
    print(
        f"\n{'texts':<9} {'embedder':<15} " + " ".join(f"{'batch ' + str(b):>9}" for b in BATCHES)
    )
    for label, texts in sets.items():
        ms = [cost(static, texts, b, STATIC_ROUNDS) for b in BATCHES]
        speedup = " ".join(f"{d / m:.0f}x" for d, m in zip(default[label], ms, strict=True))
        for name, row in (("minilm-int8", default[label]), ("wordllama-256", ms)):
            cells = " ".join(f"{m:>9.3f}" for m in row)
            tail = f"   speed-up at each batch: {speedup}" if name == "wordllama-256" else ""
            print(f"{label:<9} {name:<15} {cells}   CPU ms/record{tail}")


if __name__ == "__main__":
    main()
