"""One workspace's search index (keyword + vectors in one folder) and the hybrid query.

Ranking (:func:`fuse`) mixes the two lists' scores: BM25F keyword hits and cosine vector hits at
or above ``min_similarity``, each min-max normalised over its CANDIDATES, weighted 0.4 and 0.6.
BM25 is unbounded and depends on the corpus, so it is only compared within its own list. On the
labelled sets of ``benchmarks/search_relevance.py`` this beats both halves on CISI, Cranfield
and CACM and matches the better one on the hand-made set, where the reciprocal-rank fusion used
before fell below it (``benchmarks/relevance.md``).
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
from collections.abc import Callable, Collection, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from fieldhouse.search.documents import Doc
from fieldhouse.search.embedder import Embedder, Matrix
from fieldhouse.search.keyword import IndexCorrupt, KeywordIndex
from fieldhouse.search.vectors import VectorHits, VectorIndex, VectorsCorrupt

Mode = Literal["hybrid", "keyword", "vector"]
CANDIDATES = 100  # per list, before fusion (fewer did not rank better on CISI)
#: the keyword list's weight in the fused score; the vector list has the rest (tuned on CISI)
KEYWORD_WEIGHT = 0.4
#: the fused score of a record last in one list and absent from the other (scores are > 0)
SCORE_FLOOR = 0.001
Ranked = Sequence[tuple[str, float]]
SNIPPET_CHARS = 200
FORMAT = 1
SEQ_FILE = "seq.json"
_WORD = re.compile(r"\w+", re.UNICODE)


@dataclass(frozen=True)
class Hit:
    record_id: str
    module_id: str
    title: str
    snippet: str | None
    score: float
    similarity: float | None
    keyword_score: float | None


@dataclass(frozen=True)
class SearchResult:
    hits: list[Hit]
    total: int


class WorkspaceIndex:
    """The keyword and vector indexes of one workspace under ``path``. Blocking methods."""

    def __init__(
        self, path: Path, keyword: KeywordIndex, vectors: VectorIndex, seq: int = 0
    ) -> None:
        self.path = path
        self.keyword = keyword
        self.vectors = vectors
        #: every activity entry up to this sequence number is in the index (saved with it)
        self.seq = seq
        self._saved_seq = seq

    @classmethod
    def open(cls, path: Path, embedder: Embedder, *, create: bool) -> WorkspaceIndex:
        """Open the index; raise :class:`IndexCorrupt` when it is missing (unless ``create``)
        or damaged. Vectors of another model are dropped, and a sync re-embeds them."""
        meta_path = path / "meta.json"
        meta = {"format": FORMAT, "embedder": embedder.name, "dim": embedder.dim}
        if not meta_path.exists() and not create:
            raise IndexCorrupt(f"no search index at {path}")
        keyword = KeywordIndex.open(path / "keyword", create=create)
        try:
            saved = json.loads(meta_path.read_text()) if meta_path.exists() else None
        except (OSError, ValueError) as exc:
            keyword.close()
            raise IndexCorrupt(f"unreadable {meta_path}: {exc!r}") from exc
        try:
            if saved == meta:
                vectors = VectorIndex.load(path / "vectors.npz", embedder.dim)
            else:
                vectors = VectorIndex(embedder.dim)
                meta_path.write_text(json.dumps(meta))
        except VectorsCorrupt as exc:
            keyword.close()
            raise IndexCorrupt(str(exc)) from exc
        return cls(path, keyword, vectors, _read_seq(path / SEQ_FILE))

    @staticmethod
    def wipe(path: Path) -> None:
        shutil.rmtree(path, ignore_errors=True)

    def close(self) -> None:
        self.keyword.close()

    def save_vectors(self) -> None:
        """Save the vectors (when changed), then the activity sequence they include."""
        if self.vectors.dirty:
            self.vectors.save(self.path / "vectors.npz")
        if self.seq != self._saved_seq:
            seq = self.seq
            tmp = self.path / (SEQ_FILE + ".tmp")
            tmp.write_text(json.dumps({"seq": seq}))
            os.replace(tmp, self.path / SEQ_FILE)
            self._saved_seq = seq

    @property
    def unsaved(self) -> bool:
        return self.vectors.dirty or self.seq != self._saved_seq

    def current(self, ids: Sequence[str]) -> dict[str, str]:
        """Stamps of those ``ids`` that are indexed whole (with a vector of the same stamp,
        when the model has vectors)."""
        words = {rid: str(f.get("stamp", "")) for rid, f in self.keyword.stored(ids).items()}
        if not self.vectors.dim:
            return words
        vecs = self.vectors.stamps_of(list(words))
        return {rid: stamp for rid, stamp in words.items() if vecs.get(rid) == stamp}

    def apply(
        self, docs: Sequence[Doc], vecs: Sequence[Matrix] | Matrix | None, deletes: Collection[str]
    ) -> None:
        """Upsert docs (with their vectors when the model has any: a row each, or a matrix of
        window rows each) and drop deleted ids."""
        self.keyword.apply(docs, deletes)
        self.vectors.delete(deletes)
        if docs and vecs is not None and self.vectors.dim:
            self.vectors.upsert(
                [d.record_id for d in docs],
                [d.module_id for d in docs],
                [d.stamp for d in docs],
                vecs,
            )

    def add_vectors(self, docs: Sequence[Doc], vecs: Sequence[Matrix] | Matrix) -> None:
        """The vectors of ``docs`` whose indexed words are still of the same version (a
        record changed or deleted since is skipped: its newer version comes later)."""
        if not self.vectors.dim or not docs:
            return
        stored = self.keyword.stored([d.record_id for d in docs])
        keep = [
            i
            for i, d in enumerate(docs)
            if str(stored.get(d.record_id, {}).get("stamp")) == d.stamp
        ]
        if keep:
            self.vectors.upsert(
                [docs[i].record_id for i in keep],
                [docs[i].module_id for i in keep],
                [docs[i].stamp for i in keep],
                [vecs[i] for i in keep],
            )

    def optimize(self) -> None:
        self.keyword.optimize()

    def stamps(self) -> dict[str, str]:
        """Indexed ids and stamps; an id whose vector is missing or stale maps to ''."""
        words = self.keyword.stamps()
        if not self.vectors.dim:
            return words
        vecs = self.vectors.stamps()
        return {rid: stamp if vecs.get(rid) == stamp else "" for rid, stamp in words.items()}

    def query(
        self,
        text: str,
        qvec: Matrix | Callable[[], Matrix | None] | None,
        module_ids: Collection[str] | None,
        *,
        limit: int,
        min_similarity: float,
        mode: Mode = "hybrid",
        pool: Executor | None = None,
    ) -> SearchResult:
        """The best ``limit`` records for ``text`` within ``module_ids`` (None: all).
        ``qvec``: the query's vector, or a function that makes it (called only if the vector
        half runs). With ``pool``, a hybrid query's vector half (the query's embedding with
        it) runs there while the keyword half runs in the calling thread: both spend most of
        their time outside the GIL (SQLite, onnxruntime, numpy), so on two cores a query
        takes about the longer half instead of their sum."""
        if module_ids is not None and not module_ids:
            return SearchResult([], 0)

        def vector_half() -> VectorHits | None:
            vec = qvec() if callable(qvec) else qvec
            if vec is None or not self.vectors.dim:
                return None
            return self.vectors.search(vec, module_ids, CANDIDATES, min_similarity)

        both = mode == "hybrid"
        pending = pool.submit(vector_half) if both and pool is not None else None
        kw = self.keyword.search(text, module_ids, CANDIDATES) if mode != "vector" else None
        if pending is not None:
            vec = pending.result()
        else:
            vec = vector_half() if mode != "keyword" else None
        kw_ranked: Ranked | None = None
        vec_ranked: Ranked | None = None
        total_extra = 0
        kw_scores: dict[str, float] = {}
        sims: dict[str, float] = {}
        if kw is not None:
            kw_ranked = kw.ranked
            kw_scores = dict(kw.ranked)
            total_extra += kw.total - len(kw.ranked)
        if vec is not None:
            vec_ranked = vec.ranked
            sims = dict(vec.ranked)
            total_extra += vec.total - len(vec.ranked)
        fused = fuse(kw_ranked, vec_ranked)
        order = sorted(fused, key=lambda rid: (-fused[rid], rid))[:limit]
        stored = self.keyword.stored(order)
        terms = query_terms(text)
        hits = []
        for rid in order:
            fields = stored.get(rid)
            if fields is None:  # deleted between the two halves' reads
                continue
            hits.append(
                Hit(
                    record_id=rid,
                    module_id=fields["module"],
                    title=fields.get("title", ""),
                    snippet=snippet(fields, terms),
                    score=round(fused[rid], 6),
                    similarity=round(sims[rid], 6) if rid in sims else None,
                    keyword_score=round(kw_scores[rid], 6) if rid in kw_scores else None,
                )
            )
        return SearchResult(hits, len(fused) + max(total_extra, 0))

    def filter_ids(self, text: str, module_id: str) -> list[str] | None:
        return self.keyword.filter_ids(text, module_id)

    @property
    def grams_filled(self) -> bool:
        return self.keyword.grams_filled


def fuse(keyword: Ranked | None, vector: Ranked | None) -> dict[str, float]:
    """The hybrid score in (0, 1] of every record in the two lists (None: that half did not
    run).

    Each list's scores are min-max normalised over its candidates (its best counts 1, its last
    0) and mixed with weights KEYWORD_WEIGHT and 1 - KEYWORD_WEIGHT, over the weights of the
    halves that ran: a record first in both lists scores 1, one found by a single half at most
    its weight. Scores rather than ranks: a record far ahead in one list keeps its lead, where
    reciprocal ranks flatten it (measured in ``benchmarks/relevance.md``)."""
    halves = [(KEYWORD_WEIGHT, keyword), (1.0 - KEYWORD_WEIGHT, vector)]
    ran = [(weight, ranked) for weight, ranked in halves if ranked is not None]
    total = sum(weight for weight, _ in ran)
    fused: dict[str, float] = {}
    for weight, ranked in ran:
        for rid, share in _min_max(ranked).items():
            fused[rid] = fused.get(rid, 0.0) + weight * share
    # counted down from 1, so a record first in both lists scores exactly 1.0
    return {rid: 1.0 - (1.0 - SCORE_FLOOR) * (1.0 - s / total) for rid, s in fused.items()}


def _min_max(ranked: Ranked) -> dict[str, float]:
    if not ranked:
        return {}
    values = [score for _, score in ranked]
    low, high = min(values), max(values)
    return {rid: (s - low) / (high - low) if high > low else 1.0 for rid, s in ranked}


def _read_seq(path: Path) -> int:
    try:
        return int(json.loads(path.read_text())["seq"])
    except (OSError, ValueError, KeyError, TypeError):
        return 0  # none yet, or unreadable: the indexer re-reads the activity from the start


def query_terms(text: str) -> list[str]:
    """Lower-cased query words; a word matches text words that start with its first 4+ chars."""
    words = {w.lower() for w in _WORD.findall(text) if len(w) > 1}
    return sorted(words, key=len, reverse=True)[:16]


def snippet(fields: dict[str, str], terms: Sequence[str]) -> str | None:
    """A short HTML-escaped excerpt with query words wrapped in <mark>; None without text."""
    body = fields.get("body") or ""
    labels = fields.get("labels") or ""
    source = body or labels
    if not source:
        return None
    pattern = _terms_pattern(terms)
    start = 0
    if pattern is not None:
        match = pattern.search(source)
        if match is None and labels and pattern.search(labels):
            source = labels
            match = pattern.search(source)
        if match is not None:
            start = max(0, match.start() - SNIPPET_CHARS // 4)
            while start > 0 and not source[start - 1].isspace():
                start -= 1
    piece = source[start : start + SNIPPET_CHARS]
    prefix = "…" if start > 0 else ""
    suffix = "…" if start + SNIPPET_CHARS < len(source) else ""
    if pattern is None:
        return prefix + html.escape(piece) + suffix
    out: list[str] = []
    pos = 0
    for m in pattern.finditer(piece):
        out.append(html.escape(piece[pos : m.start()]))
        out.append(f"<mark>{html.escape(m.group(0))}</mark>")
        pos = m.end()
    out.append(html.escape(piece[pos:]))
    return prefix + "".join(out) + suffix


def _terms_pattern(terms: Sequence[str]) -> re.Pattern[str] | None:
    if not terms:
        return None
    # stem-ish: "invoices" marks "invoice" and "invoicing"
    stems = [re.escape(t[: max(4, len(t) - 2)] if len(t) > 4 else t) for t in terms]
    return re.compile(r"\b(?:" + "|".join(stems) + r")\w*", re.IGNORECASE)
