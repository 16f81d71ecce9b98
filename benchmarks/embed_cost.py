"""Embedding cost: ``python -m benchmarks.embed_cost``.

CPU milliseconds per record (process time, so other load on the machine inflates it less
than wall time) of the numpy forward pass (the embedder before onnxruntime) and the ONNX graph,
at batches of 1, 8 and 64 records, and the smallest cosine between the two backends' vectors.
Records are short CRM-like texts (about 18 tokens) and 35-word texts (about 50 tokens).
"""

from __future__ import annotations

import random
import time

import numpy as np

from benchmarks.search_bench import _sentence
from fieldhouse.search.embedder import MiniLMEmbedder

RECORDS = 128


def main() -> None:
    rng = random.Random(1)
    sets = {
        "short": [
            f"Deal {i}. Acme Corp renewal, stage proposal, amount {i * 37} EUR"
            for i in range(RECORDS)
        ],
        "35 words": [_sentence(rng, 35) for _ in range(RECORDS)],
    }
    backends = {name: MiniLMEmbedder(backend=name) for name in ("numpy", "onnx")}
    for embedder in backends.values():
        embedder.embed(["warm up"])
    print(f"{'texts':<9} {'backend':<6} {'batch':>5} {'CPU ms/record':>14}")
    for label, texts in sets.items():
        for name, embedder in backends.items():
            for batch in (1, 8, 64):
                cpu = time.process_time()
                for i in range(0, len(texts), batch):
                    embedder.embed(texts[i : i + batch])
                ms = 1000 * (time.process_time() - cpu) / len(texts)
                print(f"{label:<9} {name:<6} {batch:>5} {ms:>14.2f}")
        a, b = (backends[n].embed(texts) for n in ("numpy", "onnx"))
        print(
            f"{label}: smallest cosine numpy vs onnx {float(np.einsum('ij,ij->i', a, b).min()):.6f}"
        )


if __name__ == "__main__":
    main()
