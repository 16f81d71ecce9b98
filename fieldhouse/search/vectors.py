"""The semantic half: one normalised float32 matrix per workspace, searched by one product.

Rows are unit vectors, so a matrix-vector product gives every cosine similarity at once; a
delete moves the last row into the hole, so the live rows stay one contiguous block. Blocking;
call from a thread.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from fieldhouse.search.embedder import Matrix


class VectorsCorrupt(Exception):
    """The saved vectors cannot be read; rebuild them from the store."""


@dataclass(frozen=True)
class VectorHits:
    ranked: list[tuple[str, float]]  # record id, cosine similarity; best first
    total: int  # rows at or above the threshold


class VectorIndex:
    def __init__(self, dim: int) -> None:
        self.dim = dim
        self._lock = threading.Lock()
        self._mat: Matrix = np.zeros((0, dim), np.float32)
        self._modules: npt.NDArray[np.int32] = np.zeros(0, np.int32)
        self._ids: list[str] = []
        self._stamps: list[str] = []
        self._pos: dict[str, int] = {}
        self._codes: dict[str, int] = {}
        self.dirty = False

    def __len__(self) -> int:
        return len(self._ids)

    def _code(self, module_id: str) -> int:
        return self._codes.setdefault(module_id, len(self._codes))

    def _grow(self, need: int) -> None:
        if need <= self._mat.shape[0]:
            return
        cap = max(need, int(self._mat.shape[0] * 1.5) + 64)
        mat = np.zeros((cap, self.dim), np.float32)
        mat[: len(self._ids)] = self._mat[: len(self._ids)]
        modules = np.zeros(cap, np.int32)
        modules[: len(self._ids)] = self._modules[: len(self._ids)]
        self._mat, self._modules = mat, modules

    def upsert(
        self, ids: Sequence[str], modules: Sequence[str], stamps: Sequence[str], vecs: Matrix
    ) -> None:
        with self._lock:
            self._grow(len(self._ids) + len(ids))
            for rid, module, stamp, vec in zip(ids, modules, stamps, vecs, strict=True):
                row = self._pos.get(rid)
                if row is None:
                    row = len(self._ids)
                    self._pos[rid] = row
                    self._ids.append(rid)
                    self._stamps.append(stamp)
                else:
                    self._stamps[row] = stamp
                self._mat[row] = vec
                self._modules[row] = self._code(module)
            self.dirty = True

    def delete(self, ids: Collection[str]) -> None:
        with self._lock:
            for rid in ids:
                row = self._pos.pop(rid, None)
                if row is None:
                    continue
                last = len(self._ids) - 1
                if row != last:
                    moved = self._ids[last]
                    self._mat[row] = self._mat[last]
                    self._modules[row] = self._modules[last]
                    self._ids[row] = moved
                    self._stamps[row] = self._stamps[last]
                    self._pos[moved] = row
                self._ids.pop()
                self._stamps.pop()
                self.dirty = True

    def stamps(self) -> dict[str, str]:
        with self._lock:
            return dict(zip(self._ids, self._stamps, strict=True))

    def stamps_of(self, ids: Sequence[str]) -> dict[str, str]:
        with self._lock:
            return {
                rid: self._stamps[row] for rid in ids if (row := self._pos.get(rid)) is not None
            }

    def search(
        self, q: Matrix, module_ids: Collection[str] | None, k: int, min_similarity: float
    ) -> VectorHits:
        """The k most similar rows at or above ``min_similarity``, within the modules."""
        with self._lock:
            n = len(self._ids)
            if n == 0 or k <= 0:
                return VectorHits([], 0)
            sims = self._mat[:n] @ q
            if module_ids is not None:
                codes = [self._codes[m] for m in module_ids if m in self._codes]
                sims[~np.isin(self._modules[:n], codes)] = -np.inf
            above = int(np.count_nonzero(sims >= min_similarity))
            take = min(k, above)
            if take == 0:
                return VectorHits([], 0)
            top = np.argpartition(-sims, take - 1)[:take]
            top = top[np.argsort(-sims[top], kind="stable")]
            return VectorHits([(self._ids[i], float(sims[i])) for i in top], above)

    # --- persistence ---

    def save(self, path: Path) -> None:
        """Write atomically (temp file, then rename): a crash leaves the old file whole."""
        with self._lock:
            n = len(self._ids)
            inverse = {code: m for m, code in self._codes.items()}
            mat = self._mat[:n].copy()
            ids = np.array(self._ids, dtype=str)
            stamps = np.array(self._stamps, dtype=str)
            modules = np.array([inverse[int(c)] for c in self._modules[:n]], dtype=str)
            self.dirty = False
        tmp = path.with_name(path.name + ".tmp")
        with tmp.open("wb") as fh:
            np.savez(fh, mat=mat, ids=ids, stamps=stamps, modules=modules)
        os.replace(tmp, path)

    @classmethod
    def load(cls, path: Path, dim: int) -> VectorIndex:
        index = cls(dim)
        if not path.exists():
            return index
        try:
            with np.load(path, allow_pickle=False) as data:
                mat = np.asarray(data["mat"], np.float32)
                ids = [str(x) for x in data["ids"]]
                stamps = [str(x) for x in data["stamps"]]
                modules = [str(x) for x in data["modules"]]
        except Exception as exc:  # zip, npy and key errors all mean the same here
            raise VectorsCorrupt(f"vectors at {path}: {exc!r}") from exc
        if mat.ndim != 2 or mat.shape != (len(ids), dim) or len(stamps) != len(ids):
            raise VectorsCorrupt(f"vectors at {path} have shape {mat.shape}, expected dim {dim}")
        if ids:
            index.upsert(ids, modules, stamps, mat)
        index.dirty = False
        return index
