"""The MiniLM embedder (ONNX, numpy and int8): shape, unit length, determinism, and meaning."""

from __future__ import annotations

import numpy as np
import pytest

from fieldhouse.search.embedder import (
    MAX_TOKENS,
    MAX_WINDOWS,
    TOKENS_PER_PASS,
    MiniLMEmbedder,
    NoEmbedder,
    _passes,
    _windows,
    make_embedder,
)
from tests.search.texts import PARAPHRASES


@pytest.fixture(scope="module")
def embedder() -> MiniLMEmbedder:
    return MiniLMEmbedder()


def test_shape_norm_and_determinism(embedder: MiniLMEmbedder) -> None:
    texts = ["hello world", "", "a much longer sentence " * 100]
    vecs = embedder.embed(texts)
    assert vecs.shape == (3, 384) and vecs.dtype == np.float32
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)
    # batching and order do not change a text's vector
    again = embedder.embed(list(reversed(texts)))[::-1]
    assert np.allclose(vecs, again, atol=1e-5)
    assert np.allclose(embedder.embed(["hello world"])[0], vecs[0], atol=1e-5)
    assert embedder.embed([]).shape == (0, 384)


@pytest.mark.parametrize(("text", "paraphrase", "unrelated"), PARAPHRASES)
def test_paraphrases_are_closer(
    embedder: MiniLMEmbedder, text: str, paraphrase: str, unrelated: str
) -> None:
    a, b, c = embedder.embed([text, paraphrase, unrelated])
    assert float(a @ b) > float(a @ c) + 0.2


def test_onnx_and_numpy_give_the_same_vectors(embedder: MiniLMEmbedder) -> None:
    texts = ["Renew the office printer lease", "x", "a longer text about invoices " * 40]
    onnx = embedder.embed(texts)
    plain = MiniLMEmbedder(backend="numpy").embed(texts)
    assert embedder.backend == "onnx"
    assert np.all(np.einsum("ij,ij->i", onnx, plain) >= 0.9999)
    with pytest.raises(ValueError, match="unknown MiniLM backend"):
        MiniLMEmbedder(backend="torch")


#: the smallest cosine to fp32 benchmarks.embed_cost measured for minilm-int8 (1-3-word
#: texts 0.9976; short records 0.9991, 35 words 0.9983; an AMD EPYC with AVX2), less a margin
INT8_COSINE = 0.997


def test_int8_is_near_fp32_deterministic_and_named_apart(embedder: MiniLMEmbedder) -> None:
    int8 = make_embedder("minilm-int8")
    texts = [
        "Renew the office printer lease",
        "x",
        "Deal 12. Acme Corp renewal, stage proposal, amount 444 EUR",
        "Call Anna about the Q3 budget before Friday's board meeting in Lisbon",
        "a longer text about invoices " * 40,
    ]
    vecs = int8.embed(texts)
    assert vecs.shape == (5, 384) and vecs.dtype == np.float32
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)
    assert np.all(np.einsum("ij,ij->i", vecs, embedder.embed(texts)) >= INT8_COSINE)
    # a text's vector does not depend on its batch (each token is quantised on its own)
    assert np.allclose(int8.embed(texts[3:4])[0], vecs[3], atol=1e-5)
    assert np.allclose(int8.embed(list(reversed(texts)))[::-1], vecs, atol=1e-5)
    # stored vectors of one variant are never taken for the other's
    assert int8.name != embedder.name
    assert int8.name != MiniLMEmbedder(int8=("qkv", "out", "up", "down")).name
    with pytest.raises(ValueError, match="int8"):
        MiniLMEmbedder(int8=("attention",))
    with pytest.raises(ValueError, match="int8"):
        MiniLMEmbedder(backend="numpy", int8=("up",))


def test_make_embedder() -> None:
    assert isinstance(make_embedder("minilm"), MiniLMEmbedder)
    none = make_embedder("none")
    assert isinstance(none, NoEmbedder) and none.embed(["x"]).shape == (1, 0)
    with pytest.raises(ValueError, match="unknown embedder"):
        make_embedder("word2vec")


def test_long_text_is_read_past_the_first_window(embedder: MiniLMEmbedder) -> None:
    head = "Notes on invoices, tax filings and quarterly accounts. " * 14  # ~150 tokens
    tail = "Our puppy loves chasing tennis balls on the beach every morning. " * 3
    long, only_head, only_tail = embedder.embed([head + tail, head, tail])
    # one window of 128 tokens would see the head alone; the windows see the tail too
    assert float(long @ only_tail) > float(only_head @ only_tail) + 0.1
    # a short text is one window, as before: its vector does not depend on the long one
    assert np.allclose(embedder.embed([tail])[0], only_tail, atol=1e-5)


def test_more_onnx_threads_give_the_same_vectors_under_the_same_name(
    embedder: MiniLMEmbedder,
) -> None:
    texts = ["Acme renewal, stage won", "call the supplier about late invoices", "x " * 300]
    two = MiniLMEmbedder(threads=2)
    assert two.name == embedder.name  # stored vectors of either are the same vectors
    np.testing.assert_allclose(two.embed(texts), embedder.embed(texts), atol=1e-5)
    assert make_embedder("minilm-int8", threads=2).name == make_embedder("minilm-int8").name


def test_a_long_text_has_a_vector_for_each_window(embedder: MiniLMEmbedder) -> None:
    head = "Notes on invoices, tax filings and quarterly accounts. " * 14  # ~150 tokens
    tail = "Our puppy loves chasing tennis balls on the beach every morning. " * 3
    short, long = embedder.embed_windows([tail, head + tail])
    assert short.shape == (1, 384)  # one window: the text's one vector
    np.testing.assert_allclose(short[0], embedder.embed([tail])[0], atol=1e-6)
    assert long.shape[0] == 2 and np.allclose(np.linalg.norm(long, axis=1), 1.0, atol=1e-5)
    only_tail = embedder.embed([tail])[0]
    averaged = embedder.embed([head + tail])[0]
    # the second window is about the puppy far more than the average of both is
    assert float(long[1] @ only_tail) > float(averaged @ only_tail) + 0.1
    assert embedder.embed_windows([]) == []


def test_windows_are_full_and_spread_over_the_whole_text() -> None:
    ids = list(range(300))  # [CLS] 1..298 [SEP]
    windows = _windows(ids)
    assert len(windows) == 3  # as few as cover 298 word pieces, 126 a window
    assert all(len(w) == MAX_TOKENS and w[0] == 0 and w[-1] == 299 for w in windows)
    assert windows[0][1] == 1 and windows[-1][-2] == 298  # from the start to the end
    assert set().union(*(w[1:-1] for w in windows)) == set(range(1, 299))
    assert _windows(list(range(50))) == [list(range(50))]  # a short text: one, unchanged
    assert len(_windows(list(range(2000)))) == MAX_WINDOWS


def test_forward_passes_hold_a_token_budget_and_every_window_once() -> None:
    lengths = [3, 128, 16, 16, 40, 128, 128, 128, 128, 7] + [20] * 60
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    passes = _passes(order, lengths)
    assert sorted(i for p in passes for i in p) == list(range(len(lengths)))
    for p in passes:  # padded to its longest window, within the budget (or a lone window)
        assert len(p) == 1 or len(p) * max(lengths[i] for i in p) <= TOKENS_PER_PASS
    assert [len(p) for p in passes[-2:]] == [2, 1]  # 128-token windows: two a pass at most


def test_a_big_batch_leaves_no_arena_behind(embedder: MiniLMEmbedder) -> None:
    """onnxruntime's arena would keep the largest batch's activations allocated for good (the
    embedding process stayed ~60 MB bigger after one import); the session runs without one."""
    embedder.load()
    session, _ = embedder._model()
    assert session.get_session_options().enable_cpu_mem_arena is False


_RESIDENT = """
import numpy, onnx, onnxruntime, tokenizers
from fieldhouse.search.embedder import make_embedder

def rss():
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) // 1024 for line in f if line.startswith("VmRSS"))

before = rss()
e = make_embedder("minilm-int8")
e.load()
e.release_build()
e.embed(["a short text to embed"])
print(rss() - before)
"""


def test_the_loaded_model_is_held_once() -> None:
    """What a loaded minilm-int8 adds to the embedding process: its weights are ~66 MB as
    onnxruntime holds them. Handed to onnxruntime inside the model's bytes they were kept
    twice (+140 MB); handed as external initialisers, once (+75 MB)."""
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-c", _RESIDENT], capture_output=True, text=True, check=True, timeout=120
    )
    grew = int(out.stdout.split()[-1])
    assert grew < 100, f"the loaded model added {grew} MB"
