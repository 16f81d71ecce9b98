"""What every sentence embedder is: texts in, unit-length float32 rows out.

The MiniLM embedders (:mod:`.embedder`) and the static one (:mod:`.static`) both implement
:class:`Embedder`; :func:`fieldhouse.search.embedder.make_embedder` picks one by name.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np
import numpy.typing as npt

Matrix = npt.NDArray[np.float32]


class Embedder(Protocol):
    """Turns texts into unit-length float32 rows; blocking, call it from a worker thread."""

    name: str
    dim: int

    def embed(self, texts: Sequence[str]) -> Matrix: ...

    def embed_windows(self, texts: Sequence[str]) -> list[Matrix]:
        """Each text's unit vectors, one per window it is read in (``windows x dim``): the
        index keeps them all and ranks a record by its best."""
        ...

    def load(self) -> None:
        """Read whatever the model needs now (a server calls it before it serves)."""


class EmbedderUnavailable(Exception):
    """The configured model's files are missing or unreadable."""


def normalise(rows: Matrix) -> Matrix:
    """Each row scaled to unit length (a zero row stays zero), as float32."""
    norms = np.linalg.norm(rows, axis=-1, keepdims=True)
    return (rows / np.maximum(norms, 1e-12)).astype(np.float32)  # type: ignore[no-any-return]
