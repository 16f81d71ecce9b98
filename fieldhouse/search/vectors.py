"""The semantic half: one normalised float32 matrix per workspace, searched by one product.

Rows are unit vectors, so a matrix-vector product gives every cosine similarity at once; a
long record has a row per window of its text and is ranked by its best one. A delete moves the
last rows into the holes, so the live rows stay one contiguous block. Blocking; call from a
thread.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Collection, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from fieldhouse.search.contract import Matrix


@functools.cache  # (once a process: each call looks through the loaded libraries again)
def one_blas_thread() -> None:
    """Numpy's BLAS (OpenBLAS) on one thread in this process. The product over a workspace's
    matrix reads every row (150 MB at 100,000 records), so its time is memory's: a second
    BLAS thread took it from 13.8 to 8.4 ms (16.6 ms of CPU) by taking the second core,
    spinning, away from the query's keyword half and from requests. With one thread, the
    keyword half and the vector half (with the query's embedding) run at once
    (``WorkspaceIndex.query``): 22 instead of 27 ms a hybrid query at 100,000 records."""
    from threadpoolctl import threadpool_limits

    threadpool_limits(1, user_api="blas")


@dataclass(frozen=True)
class VectorHits:
    ranked: list[tuple[str, float]]  # record id, cosine similarity; best first
    total: int  # rows at or above the threshold


class VectorIndex:
    """A record has one row per window its text was read in (a short record one): it is
    found by its best window, so a long record is found by its third section as well as by
    its first (the average of its windows would blur them: ``benchmarks/relevance.md``)."""

    def __init__(self, dim: int) -> None:
        self.dim = dim
        self._lock = threading.Lock()
        self._mat: Matrix = np.zeros((0, dim), np.float32)
        self._modules: npt.NDArray[np.int32] = np.zeros(0, np.int32)
        #: the record of each row, as its id and as a number (for counting records)
        self._row_ids: list[str] = []
        self._owner: npt.NDArray[np.int64] = np.zeros(0, np.int64)
        self._rows: dict[str, list[int]] = {}
        self._codes: dict[str, int] = {}
        self._extra = 0  # rows beyond each record's first
        self._most = 1  # the most rows one record has had
        self._next = 0  # the next record number (never reused)

    def __len__(self) -> int:
        return len(self._rows)

    def _code(self, module_id: str) -> int:
        return self._codes.setdefault(module_id, len(self._codes))

    def _grow(self, need: int) -> None:
        if need <= self._mat.shape[0]:
            return
        n = len(self._row_ids)
        cap = max(need, int(self._mat.shape[0] * 1.5) + 64)
        mat = np.zeros((cap, self.dim), np.float32)
        mat[:n] = self._mat[:n]
        modules = np.zeros(cap, np.int32)
        modules[:n] = self._modules[:n]
        owner = np.zeros(cap, np.int64)
        owner[:n] = self._owner[:n]
        self._mat, self._modules, self._owner = mat, modules, owner

    def upsert(
        self,
        ids: Sequence[str],
        modules: Sequence[str],
        vecs: Sequence[Matrix] | Matrix,
    ) -> None:
        """Each record's vectors replace those it had: one row (``dim``) or one per window
        (``windows x dim``)."""
        with self._lock:
            for rid, module, vec in zip(ids, modules, vecs, strict=True):
                windows = vec if vec.ndim == 2 else vec[None, :]
                count = len(windows)
                code = self._code(module)
                rows = self._rows.get(rid)
                if rows is not None and len(rows) != count:
                    self._drop(rid)
                    rows = None
                if rows is None:  # new rows at the end: one slice (a list index costs more)
                    n = len(self._row_ids)
                    self._grow(n + count)
                    self._rows[rid] = list(range(n, n + count))
                    self._row_ids.extend([rid] * count)
                    number, self._next = self._next, self._next + 1
                    self._extra += count - 1
                    self._most = max(self._most, count)
                    self._mat[n : n + count] = windows
                    self._modules[n : n + count] = code
                    self._owner[n : n + count] = number
                else:
                    for row, window in zip(rows, windows, strict=True):
                        self._mat[row] = window
                        self._modules[row] = code

    def _drop(self, rid: str) -> None:
        """Remove a record's rows, moving the last rows into their places (lock held)."""
        rows = self._rows.pop(rid, None)
        if rows is None:
            return
        self._extra -= len(rows) - 1
        for row in sorted(rows, reverse=True):  # each later row of rid is gone already
            last = len(self._row_ids) - 1
            if row != last:
                moved = self._row_ids[last]
                self._mat[row] = self._mat[last]
                self._modules[row] = self._modules[last]
                self._owner[row] = self._owner[last]
                self._row_ids[row] = moved
                others = self._rows[moved]
                others[others.index(last)] = row
            self._row_ids.pop()

    def delete(self, ids: Collection[str]) -> None:
        with self._lock:
            for rid in ids:
                self._drop(rid)

    def has(self, rid: str) -> bool:
        return rid in self._rows

    def search(
        self, q: Matrix, module_ids: Collection[str] | None, k: int, min_similarity: float
    ) -> VectorHits:
        """The k records most similar by their best row, at or above ``min_similarity``,
        within the modules; ``total`` counts the records above it."""
        with self._lock:
            n = len(self._row_ids)
            if n == 0 or k <= 0:
                return VectorHits([], 0)
            sims = self._mat[:n] @ q
            if module_ids is not None:
                codes = [self._codes[m] for m in module_ids if m in self._codes]
                sims[~np.isin(self._modules[:n], codes)] = -np.inf
            passing = sims >= min_similarity
            if self._extra:
                above = int(np.unique(self._owner[:n][passing]).size)
            else:
                above = int(np.count_nonzero(passing))
            # the best rows of k records are among the first k * (most rows a record has)
            take = min(k * self._most if self._extra else k, int(np.count_nonzero(passing)))
            if take == 0:
                return VectorHits([], 0)
            top = np.argpartition(-sims, take - 1)[:take]
            top = top[np.argsort(-sims[top], kind="stable")]
            ranked: list[tuple[str, float]] = []
            seen: set[str] = set()
            for i in top:
                rid = self._row_ids[i]
                if rid not in seen:
                    seen.add(rid)
                    ranked.append((rid, float(sims[i])))
                    if len(ranked) == k:
                        break
            return VectorHits(ranked, above)
