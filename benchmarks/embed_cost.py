"""Embedding cost: ``python -m benchmarks.embed_cost``.

CPU milliseconds per record (process time, so other load on the machine inflates it less
than wall time) of the fp32 ONNX graph and of each int8 variant (the dense layers named are
quantised, the others stay fp32), at batches of 1, 8 and 64 records; the speed-up against the
default (fp32, one record per call); and the smallest and mean cosine of each variant's vectors
against fp32's. Records are short CRM-like texts (about 18 tokens) and 35-word texts (about 50
tokens); the cosines also cover one- to three-word texts.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence

import numpy as np

from benchmarks.search_bench import _sentence
from fieldhouse.search.embedder import MiniLMEmbedder

RECORDS = 128
BATCHES = (1, 8, 64)
VARIANTS: dict[str, Sequence[str]] = {
    "fp32": (),
    "int8 all": ("qkv", "out", "up", "down"),
    "int8 but down": ("qkv", "out", "up"),
    "int8 attention": ("qkv", "out"),
    "int8 ffn": ("up", "down"),
}


def cost(embedder: MiniLMEmbedder, texts: list[str], batch: int) -> float:
    cpu = time.process_time()
    for i in range(0, len(texts), batch):
        embedder.embed(texts[i : i + batch])
    return 1000 * (time.process_time() - cpu) / len(texts)


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
    for label, texts in sets.items():
        for name, embedder in embedders.items():
            ms = [cost(embedder, texts, b) for b in BATCHES]
            base.setdefault(label, ms[0])
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


if __name__ == "__main__":
    main()
