"""The static (wordllama) embedder: shape, unit length, determinism, batching, and meaning."""

from __future__ import annotations

import logging

import numpy as np
import pytest

from fieldhouse.search.embedder import make_embedder
from fieldhouse.search.static import DIM, MAX_TOKENS, StaticEmbedder, _load
from tests.search.texts import PARAPHRASES


@pytest.fixture(scope="module")
def embedder() -> StaticEmbedder:
    return StaticEmbedder()


def test_shape_norm_and_determinism(embedder: StaticEmbedder) -> None:
    texts = ["hello world", "", " ", "x", "a much longer sentence " * 300]
    vecs = embedder.embed(texts)
    assert vecs.shape == (5, DIM) == (5, 256) and vecs.dtype == np.float32
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)
    assert np.array_equal(embedder.embed(texts), vecs)
    assert np.allclose(vecs[1], vecs[2])  # an empty text reads as one space
    assert embedder.embed([]).shape == (0, DIM)


def test_batch_gives_the_vectors_of_one_by_one(embedder: StaticEmbedder) -> None:
    # more texts than one gather holds, of mixed lengths, so sorting and padding both happen
    texts = [f"record {i}: " + "invoice for office chairs " * (i % 7) for i in range(150)]
    batch = embedder.embed(texts)
    single = np.vstack([embedder.embed([t]) for t in texts])
    assert np.allclose(batch, single, atol=1e-6)
    assert np.allclose(embedder.embed(texts[::-1])[::-1], batch, atol=1e-6)


def test_long_texts_are_cut_at_max_tokens(embedder: StaticEmbedder) -> None:
    head = "the quarterly revenue report for the board " * 200  # about 1,600 tokens
    assert len(_load().tokenizer.encode(head, add_special_tokens=False).ids) == MAX_TOKENS
    a, b = embedder.embed([head, head + " unrelated words about gardening and tulips" * 50])
    assert np.allclose(a, b, atol=1e-6)


@pytest.mark.parametrize(("text", "paraphrase", "unrelated"), PARAPHRASES)
def test_paraphrases_are_closer(
    embedder: StaticEmbedder, text: str, paraphrase: str, unrelated: str
) -> None:
    a, b, c = embedder.embed([text, paraphrase, unrelated])
    assert float(a @ b) > float(a @ c)


def test_loading_leaves_the_logging_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    # a fresh import of wordllama, which calls logging.basicConfig(level=INFO)
    for name in [m for m in sys.modules if m == "wordllama" or m.startswith("wordllama.")]:
        monkeypatch.delitem(sys.modules, name)
    _load.cache_clear()
    try:
        StaticEmbedder().load()
        assert root.handlers == handlers and root.level == level
    finally:
        _load.cache_clear()


def test_make_embedder() -> None:
    static = make_embedder("wordllama-256")
    assert isinstance(static, StaticEmbedder)
    assert static.dim == 256 and static.name == f"wordllama-l2_supercat-256/{MAX_TOKENS}"
    with pytest.raises(ValueError, match=r"unknown embedder 'wordllama'.*'wordllama-256'"):
        make_embedder("wordllama")
