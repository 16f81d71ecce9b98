"""The int8 dense layer against float32: close on rows with an outlier channel, and each row's
result independent of the rows beside it (per-token quantisation)."""

from __future__ import annotations

import numpy as np
import onnxruntime as ort
from onnx import TensorProto, helper

from fieldhouse.search.int8 import Graph, Matrix, quantize_columns

K, N = 64, 48


def dense_session(weight: Matrix, bias: Matrix, act_max: Matrix | None) -> ort.InferenceSession:
    g = Graph()
    g.node("Identity", [g.dense_int8("x", weight, bias, "d", act_max)], "y")
    graph = helper.make_graph(
        g.nodes,
        "dense",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["M", K])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["M", N])],
        g.inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])


def inputs(rng: np.random.Generator, m: int) -> tuple[Matrix, Matrix, Matrix]:
    """Rows like BERT's hidden states: one channel far larger than the rest."""
    x = rng.normal(size=(m, K)).astype(np.float32)
    x[:, 7] *= 30
    w = (rng.normal(size=(K, N)) / np.sqrt(K)).astype(np.float32)
    return x, w, rng.normal(size=N).astype(np.float32)


def relative_error(got: Matrix, want: Matrix) -> float:
    return float(np.linalg.norm(got - want) / np.linalg.norm(want))


def test_int8_dense_is_close_to_float32_and_smoothing_helps() -> None:
    x, w, b = inputs(np.random.default_rng(0), 32)
    want = x @ w + b
    plain = dense_session(w, b, None).run(None, {"x": x})[0]
    smoothed = dense_session(w, b, np.abs(x).max(0)).run(None, {"x": x})[0]
    assert relative_error(smoothed, want) < 0.01
    assert relative_error(smoothed, want) < relative_error(plain, want)


def test_each_row_is_quantised_on_its_own() -> None:
    rng = np.random.default_rng(1)
    x, w, b = inputs(rng, 6)
    session = dense_session(w, b, np.abs(x).max(0))
    alone = np.concatenate([session.run(None, {"x": x[i : i + 1]})[0] for i in range(6)])
    loud = np.concatenate([x, 1000 * x[:1]])  # a row of far larger values beside them
    together = session.run(None, {"x": loud})[0][:6]
    assert np.array_equal(alone, together)


def test_quantize_columns_round_trips_within_half_a_step() -> None:
    w = np.random.default_rng(2).normal(size=(K, N)).astype(np.float32)
    w[:, 3] = 0.0  # an all-zero column stays zero
    wq, scale = quantize_columns(w)
    assert wq.dtype == np.int8 and scale.shape == (N,)
    assert np.all(np.abs(wq.astype(np.float32) * scale - w) <= scale / 2 + 1e-7)
    assert not wq[:, 3].any()
