"""The keyword half: a whoosh index (BM25F) of one workspace. Blocking; call from a thread."""

from __future__ import annotations

import gc
import threading
import warnings
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from whoosh import index, qparser, query
from whoosh.analysis import NgramAnalyzer, StemmingAnalyzer
from whoosh.fields import ID, NGRAM, STORED, TEXT, Schema

from fieldhouse.search.documents import Doc

#: a module-level search matches at most this many records (they become an SQL IN list)
MAX_FILTER_IDS = 5000


class IndexCorrupt(Exception):
    """The files on disk cannot be read as an index; rebuild it from the store."""


def _schema() -> Schema:
    stem = StemmingAnalyzer()
    return Schema(
        id=ID(stored=True, unique=True),
        module=ID(stored=True),
        title=TEXT(stored=True, analyzer=stem, field_boost=2.0),
        body=TEXT(stored=True, analyzer=stem),
        labels=TEXT(stored=True, analyzer=stem, field_boost=1.5),
        # trigrams of every value: candidates for the list endpoint's substring search
        grams=NGRAM(minsize=3, maxsize=3),
        stamp=STORED,
    )


@dataclass(frozen=True)
class KeywordHits:
    ranked: list[tuple[str, float]]  # record id, BM25F score; best first
    total: int  # every match, not only the ranked window


class KeywordIndex:
    def __init__(self, ix: Any) -> None:
        self._ix = ix
        self._lock = threading.Lock()
        self._searcher: Any = ix.searcher()
        parser = qparser.MultifieldParser(
            ["title", "body", "labels"], ix.schema, group=qparser.OrGroup.factory(0.9)
        )
        # no field:value, wildcards or ranges from user text: they are slow or reach other fields
        for plugin in (
            qparser.FieldsPlugin,
            qparser.WildcardPlugin,
            qparser.RangePlugin,
            qparser.BoostPlugin,
        ):
            parser.remove_plugin_class(plugin)
        self._parser = parser

    @classmethod
    def open(cls, path: Path, *, create: bool = False) -> KeywordIndex:
        """Open the index at ``path``; with ``create`` make an empty one when there is none."""
        failure = None
        # whoosh leaves a damaged file open when it fails: let that file go quietly here
        # (a rare path; the filter change is process-wide for its duration)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ResourceWarning)
            try:
                if index.exists_in(str(path)):
                    return cls(index.open_dir(str(path)))
            except Exception as exc:  # whoosh raises many kinds on damaged files
                failure = repr(exc)
            gc.collect()
        if failure is not None:
            raise IndexCorrupt(f"keyword index at {path}: {failure}")
        if not create:
            raise IndexCorrupt(f"no keyword index at {path}")
        path.mkdir(parents=True, exist_ok=True)
        return cls(index.create_in(str(path), _schema()))

    def close(self) -> None:
        with self._lock:
            self._searcher.close()
            self._ix.close()

    def apply(self, docs: Sequence[Doc], deletes: Collection[str]) -> None:
        """Upsert docs and drop deleted ids in one commit; then searches see the change."""
        if not docs and not deletes:
            return
        writer = self._ix.writer(limitmb=256 if len(docs) >= 1000 else 32)
        for rid in deletes:
            writer.delete_by_term("id", rid)
        for d in docs:
            writer.update_document(
                id=d.record_id,
                module=d.module_id,
                title=d.title,
                body=d.body,
                labels=d.labels,
                grams=d.raw,
                stamp=d.stamp,
            )
        writer.commit()
        fresh = self._ix.searcher()  # refresh() fails on an empty index's reader
        with self._lock:
            old, self._searcher = self._searcher, fresh
            old.close()

    def stamps(self) -> dict[str, str]:
        """record id -> stamp of every indexed record."""
        with self._lock:
            reader = self._searcher.reader()
            return {f["id"]: f.get("stamp", "") for f in reader.all_stored_fields()}

    def stored(self, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        """Stored fields (module, title, body, labels) of the given ids that are indexed."""
        out: dict[str, dict[str, Any]] = {}
        with self._lock:
            for rid in ids:
                fields = self._searcher.document(id=rid)
                if fields is not None:
                    out[rid] = fields
        return out

    def search(self, text: str, module_ids: Collection[str] | None, limit: int) -> KeywordHits:
        """BM25F over title, body and labels (any term may match; more matches rank higher)."""
        q = self._parser.parse(text)
        mask = None if module_ids is None else _module_filter(module_ids)
        with self._lock:
            results = self._searcher.search(q, limit=limit, filter=mask)
            ranked = [(hit["id"], float(hit.score)) for hit in results]
            # an estimate: an exact count would run the query a second time
            total = max(int(results.estimated_length()), len(ranked))
        return KeywordHits(ranked, total)

    def filter_ids(self, text: str, module_id: str) -> list[str] | None:
        """Candidates for a substring search in one module: the records holding every trigram
        of ``text`` (a superset of the true matches, which SQL then checks). None when the
        index cannot narrow it down (text under 3 characters, or too many candidates)."""
        grams = sorted({t.text for t in NgramAnalyzer(3, 3)(text)})[:32]
        if not grams:
            return None
        q = query.And([query.Term("grams", g) for g in grams])
        with self._lock:
            results = self._searcher.search(
                q, limit=MAX_FILTER_IDS + 1, filter=query.Term("module", module_id), scored=False
            )
            ids = [hit["id"] for hit in results]
        return None if len(ids) > MAX_FILTER_IDS else ids


def _module_filter(module_ids: Collection[str]) -> query.Query:
    return query.Or([query.Term("module", m) for m in sorted(module_ids)])
