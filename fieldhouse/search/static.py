"""A static token-embedding embedder: wordllama's ``l2_supercat`` model, 256 dimensions.

The ``wordllama`` wheel ships the model (``weights/l2_supercat_256.safetensors``: one 256-wide
row for each of Llama 2's 32,000 tokens) and its tokenizer. A text's vector is the mean of its
tokens' rows, so embedding is a tokenisation, a gather and a sum, with no layers to run: tens
of microseconds of CPU a record instead of milliseconds (``benchmarks.embed_cost``). The price
is that word order and context are not seen; ``benchmarks/relevance.md`` measures what that
costs in ranking.

The model is read with the library's own ``WordLlama.load`` and embedded by its ``embed``.
Nothing is ever downloaded: wordllama 0.4 looks for its tokenizer under
``<package>/tokenizer/`` while the wheel puts it under ``<package>/tokenizers/``, so the default
load would fetch it from Hugging Face; pointing ``cache_dir`` at the package finds it (the
cache's layout is the wheel's), and ``disable_download`` makes a missing file an error.
"""

from __future__ import annotations

import functools
import logging
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from fieldhouse.search.contract import EmbedderUnavailable, Matrix, normalise
from fieldhouse.search.models import STATIC_DIM as DIM
from fieldhouse.search.models import STATIC_MAX_TOKENS as MAX_TOKENS
from fieldhouse.search.models import STATIC_MODEL as MODEL
from fieldhouse.search.models import STATIC_NAME

BATCH = 64  # texts a gather


@functools.cache
def _load() -> Any:
    """The ``WordLlamaInference`` of the shipped model, read once per process."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    try:
        import wordllama
    except ImportError as exc:
        raise EmbedderUnavailable("wordllama is not installed (pip install wordllama)") from exc
    finally:
        # importing wordllama calls logging.basicConfig(level=INFO): undo it, so the process
        # keeps the logging it was given (the embedding child has none and should stay so)
        root.handlers[:] = handlers
        root.setLevel(level)
    package = Path(wordllama.__file__).resolve().parent
    try:
        model = wordllama.WordLlama.load(MODEL, cache_dir=package, dim=DIM, disable_download=True)
    except (OSError, ValueError) as exc:  # FileNotFoundError, a corrupt file
        raise EmbedderUnavailable(f"wordllama's {MODEL} model is not readable: {exc}") from exc
    model.tokenizer.enable_truncation(MAX_TOKENS)
    return model


class StaticEmbedder:
    """wordllama ``l2_supercat`` (256 dimensions): the mean of a text's token embeddings, L2
    normalised. An empty text is read as one space, so every vector has unit length."""

    dim = DIM
    name = STATIC_NAME

    def __init__(self) -> None:
        self._lock = threading.Lock()

    def load(self) -> None:
        self._model()

    def _model(self) -> Any:
        with self._lock:
            return _load()

    def embed(self, texts: Sequence[str]) -> Matrix:
        if not texts:
            return np.zeros((0, self.dim), np.float32)
        model = self._model()
        # similar lengths together, so little of each gather is padding (characters stand in
        # for tokens: counting tokens would tokenise twice)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        pooled = model.embed([texts[i] or " " for i in order], norm=False, batch_size=BATCH)
        out = np.empty((len(texts), self.dim), np.float32)
        out[order] = pooled
        return normalise(out)

    def embed_windows(self, texts: Sequence[str]) -> list[Matrix]:
        """One vector a text (it reads up to MAX_TOKENS in one go)."""
        return [row[None, :] for row in self.embed(texts)]
