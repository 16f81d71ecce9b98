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

Then what bounds a cheaper MiniLM on this CPU (:func:`ceiling`): onnxruntime's profiler splits
one fp32 pass of eight short records into matrix products and the rest (layer norms, GELU,
softmax, reshapes); a graph of one matrix product alone, at the pass's shape, gives the
one-thread rate of fp32 ``MatMul`` and of int8 ``MatMulInteger`` (7-bit weights, as
:mod:`fieldhouse.search.int8` uses); and from them the most any int8 graph could save if
every dense layer ran at that int8 rate, quantising its input for free, and the rest cost what
it costs in fp32.
"""

from __future__ import annotations

import collections
import json
import os
import random
import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from benchmarks.search_bench import _sentence
from fieldhouse.search import embedder as minilm
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
CEILING_RUNS = 40  # calls a round
CEILING_ROUNDS = 5
#: onnxruntime's names of the nodes that multiply matrices
PRODUCTS = {"MatMul", "FusedMatMul", "Gemm", "MatMulInteger"}


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
    worst: dict[str, float] = {"fp32": 1.0}  # each variant's smallest cosine to fp32
    for name, embedder in embedders.items():
        if name == "fp32":
            continue
        parts = []
        for label, texts in [*sets.items(), ("1-3 words", tiny)]:
            cos = np.einsum("ij,ij->i", embedder.embed(texts), reference[label])
            worst[name] = min(worst.get(name, 1.0), float(cos.min()))
            parts.append(f"{label} min {cos.min():.5f} mean {cos.mean():.5f}")
        print(f"cosine to fp32, {name}: " + "; ".join(parts))
    static_cost(sets, default)
    ceiling(sets["short"][:8], worst)


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


def _cpu_us(run: Callable[[], Any], runs: int) -> float:
    for _ in range(10):
        run()
    cpu = time.process_time()
    for _ in range(runs):
        run()
    return 1e6 * (time.process_time() - cpu) / runs


def _product(int8: bool, rows: int, dim: int, out: int) -> Callable[[], Any]:
    """One ``rows x dim @ dim x out`` product alone in an onnxruntime graph, one thread:
    fp32 ``MatMul``, or uint8 x 7-bit int8 ``MatMulInteger``."""
    import onnxruntime as ort
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(0)
    if int8:
        weight = rng.integers(-63, 64, (dim, out)).astype(np.int8)
        x: np.ndarray[Any, Any] = rng.integers(0, 256, (rows, dim)).astype(np.uint8)
        op, x_type, y_type = "MatMulInteger", TensorProto.UINT8, TensorProto.INT32
    else:
        weight = rng.standard_normal((dim, out)).astype(np.float32)
        x = rng.standard_normal((rows, dim)).astype(np.float32)
        op, x_type, y_type = "MatMul", TensorProto.FLOAT, TensorProto.FLOAT
    graph = helper.make_graph(
        [helper.make_node(op, ["x", "w"], ["y"])],
        "product",
        [helper.make_tensor_value_info("x", x_type, [rows, dim])],
        [helper.make_tensor_value_info("y", y_type, [rows, out])],
        [numpy_helper.from_array(weight, "w")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    options = ort.SessionOptions()
    options.intra_op_num_threads = options.inter_op_num_threads = 1
    session = ort.InferenceSession(model.SerializeToString(), options)
    return lambda: session.run(None, {"x": x})


def _interleaved(jobs: dict[str, tuple[Callable[[], Any], int]]) -> dict[str, float]:
    """CPU us a call of each job (a function and its calls a round), the median of
    CEILING_ROUNDS rounds that take turns: this machine's speed drifts by a third within
    minutes, and the bound compares these figures with one another."""
    rounds: dict[str, list[float]] = {name: [] for name in jobs}
    for _ in range(CEILING_ROUNDS):
        for name, (run, calls) in jobs.items():
            rounds[name].append(_cpu_us(run, calls))
    return {name: statistics.median(us) for name, us in rounds.items()}


def ceiling(texts: list[str], worst: dict[str, float]) -> None:
    """How much less CPU an int8 MiniLM graph could take on this CPU, at most, for each
    variant of :data:`VARIANTS` (``worst``: its smallest cosine to fp32): one pass of ``texts``
    in fp32, split by onnxruntime's profiler into matrix products and the rest, next to the
    one-thread rates of fp32 and int8 products of the same shape."""
    weights, tokenizer = minilm._load(minilm.model_dir())
    encoded = tokenizer.encode_batch(texts)
    length = max(len(e.ids) for e in encoded)
    ids = np.zeros((len(texts), length), np.int64)
    mask = np.zeros((len(texts), length), np.float32)
    for row, e in enumerate(encoded):
        ids[row, : len(e.ids)] = e.ids
        mask[row, : len(e.ids)] = 1.0
    dim, layers = weights.words.shape[1], len(weights.layers)
    hidden = weights.layers[0].up_w.shape[1]
    tokens = ids.size  # padded, as the pass computes them
    dense_macs = tokens * layers * (4 * dim * dim + 2 * dim * hidden)

    plain = minilm._onnx_session(weights)
    alone = [
        (ids[r : r + 1, : int(mask[r].sum())], mask[r : r + 1, : int(mask[r].sum())])
        for r in range(len(texts))
    ]
    us = _interleaved(
        {
            "pass": (lambda: minilm._forward_onnx(plain, ids, mask), CEILING_RUNS),
            "one": (lambda: [minilm._forward_onnx(plain, i, m) for i, m in alone], CEILING_RUNS),
            "fp32": (_product(False, tokens, dim, hidden), CEILING_RUNS * 5),
            "int8": (_product(True, tokens, dim, hidden), CEILING_RUNS * 5),
        }
    )
    pass_us, one_us = us["pass"], us["one"]
    fp32_rate = tokens * dim * hidden / us["fp32"] / 1e3  # GMAC/s
    int8_rate = tokens * dim * hidden / us["int8"] / 1e3
    profiled = minilm._onnx_session(weights, profile=True)
    profiled_runs = CEILING_RUNS * CEILING_ROUNDS
    for _ in range(profiled_runs):
        minilm._forward_onnx(profiled, ids, mask)
    path = profiled.end_profiling()
    with open(path) as f:
        events = json.load(f)
    os.unlink(path)
    by_op: collections.Counter[str] = collections.Counter()
    for e in events:
        if e.get("cat") == "Node" and e["name"].endswith("_kernel_time"):
            by_op[e["args"]["op_name"]] += e["dur"]
    nodes_us = sum(by_op.values()) / profiled_runs
    products_us = sum(by_op[op] for op in PRODUCTS) / profiled_runs
    share = products_us / nodes_us
    rest_us = pass_us * (1 - share)
    # the products but the dense ones (attention's), 0 when the pass's run faster than alone
    attention_us = max(0.0, pass_us * share - dense_macs / fp32_rate / 1e3)
    print(
        f"\none fp32 pass of {len(texts)} short records ({length} tokens padded), 1 thread: "
        f"{pass_us / 1000:.1f} ms CPU ({pass_us / len(texts) / 1000:.2f} ms a record; "
        f"{one_us / len(texts) / 1000:.2f} ms one record a pass); by onnxruntime's profiler, "
        f"{share:.0%} in matrix products and {1 - share:.0%} in the rest:"
    )
    for op, op_us in by_op.most_common(8):
        print(f"  {op:<24} {op_us / profiled_runs / nodes_us:>5.0%}")
    print(
        f"one product alone ({tokens} x {dim} @ {dim} x {hidden}), 1 thread: fp32 MatMul "
        f"{fp32_rate:.1f} GMAC/s, int8 MatMulInteger {int8_rate:.1f} GMAC/s "
        f"({int8_rate / fp32_rate:.1f}x); the pass's products run at "
        f"{dense_macs / (pass_us * share) / 1e3:.1f} GMAC/s (dense layers only counted)"
    )
    print(
        "bound a variant: its int8 layers at the int8 rate, quantising for free, the other "
        "products at the fp32 rate, the rest as in fp32; last, its fp32 dense products alone "
        "(everything else free) against fp32 one record a pass (the rest alone caps any variant at "
        f"{pass_us / rest_us:.1f}x this pass, {one_us / rest_us:.1f}x one record a pass):"
    )
    print(
        f"  {'variant':<15} {'min cos':>8} {'ms a pass':>10} {'vs this pass':>13} "
        f"{'vs one a pass':>14} {'fp32 products alone, vs one a pass':>35}"
    )
    per_token = {"qkv": 3 * dim * dim, "out": dim * dim, "up": dim * hidden, "down": hidden * dim}
    for name, kinds in VARIANTS.items():
        int8_macs = tokens * layers * sum(per_token[k] for k in kinds)
        best_us = (
            rest_us
            + attention_us
            + (dense_macs - int8_macs) / fp32_rate / 1e3
            + int8_macs / int8_rate / 1e3
        )
        floor_us = (dense_macs - int8_macs) / fp32_rate / 1e3  # all else free
        print(
            f"  {name:<15} {worst[name]:>8.5f} {best_us / 1000:>10.1f} "
            f"{pass_us / best_us:>12.1f}x {one_us / best_us:>13.1f}x "
            + (f"{one_us / floor_us:>34.1f}x" if floor_us else f"{'-':>35}")
        )


if __name__ == "__main__":
    main()
