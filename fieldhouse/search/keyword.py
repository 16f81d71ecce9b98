"""The keyword half: a whoosh index (BM25F) of one workspace. Blocking; call from a thread."""

from __future__ import annotations

import gc
import threading
import warnings
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from whoosh import collectors, index, qparser, query, scoring
from whoosh.analysis import NgramAnalyzer, StemmingAnalyzer
from whoosh.fields import ID, NGRAM, STORED, TEXT, Schema

from fieldhouse.search.documents import Doc

#: a module-level search matches at most this many records (they become an SQL IN list)
MAX_FILTER_IDS = 5000
#: a word in more records than this share of the index (and at least COMMON_MIN_DOCS) only
#: adds to the scores of the best records that match a rarer query word
COMMON_FRACTION = 0.02
COMMON_MIN_DOCS = 500
#: a query stops after reading this many matching documents (its best so far are the answer)
MAX_SCANNED = 4_000
#: how many of the best candidates by rare words get their common words scored
RESCORE_POOL = 100
#: cached docnum sets per searcher (one per distinct set of modules asked for)
MODULE_SETS = 64


class IndexCorrupt(Exception):
    """The files on disk cannot be read as an index; rebuild it from the store."""


class _CappedTop(collectors.TopCollector):  # type: ignore[misc]
    """Top-N with block-max skipping that gives up after MAX_SCANNED matches."""

    capped = False

    def matches(self) -> Iterator[int]:
        for n, docnum in enumerate(super().matches()):
            if n >= MAX_SCANNED:
                self.capped = True
                return
            yield docnum


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
    """Queries share one open searcher (replaced after each commit) and, per searcher, the
    docnums of each module, so module visibility is a set lookup per candidate that keeps
    whoosh's block-max skipping (a query filter would be re-run for every search)."""

    def __init__(self, ix: Any) -> None:
        self._ix = ix
        self._lock = threading.Lock()
        self._searcher: Any = ix.searcher(weighting=scoring.BM25F())
        #: per searcher: module ids -> their docnums (whoosh takes a set, never changed), and
        #: the module ids in the index
        self._module_docs: dict[frozenset[str], set[int]] = {}
        self._modules: frozenset[str] | None = None
        parser = qparser.MultifieldParser(
            ["title", "body", "labels"], ix.schema, group=qparser.OrGroup
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
        # refresh() fails on an empty index's reader
        fresh = self._ix.searcher(weighting=scoring.BM25F())
        with self._lock:
            old, self._searcher = self._searcher, fresh
            self._module_docs, self._modules = {}, None  # docnums change with every commit
            old.close()

    def optimize(self) -> None:
        """Merge every segment into one: after a bulk load, queries then walk one posting
        list per term instead of one per segment."""
        self._ix.optimize()
        fresh = self._ix.searcher(weighting=scoring.BM25F())
        with self._lock:
            old, self._searcher = self._searcher, fresh
            self._module_docs, self._modules = {}, None
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
        """BM25F over title, body and labels (any term may match; more matches rank higher).

        The top ``limit`` come from whoosh's block-max path: a block of postings whose best
        possible score cannot reach the current top ``limit`` is skipped unread."""
        q = self._parser.parse(text)
        with self._lock:
            allow, hide = self._visibility(module_ids)
            if allow is not None and not allow:
                return KeywordHits([], 0)
            rare, common = self._split(q)
            top = _CappedTop(limit if common is None else max(limit, RESCORE_POOL))
            collector: Any = top
            if allow is not None or hide:
                collector = collectors.FilterCollector(top, allow, hide)
            self._searcher.search_with_collector(rare, collector)
            scored = [(float(s), int(d)) for s, d in collector.results().top_n]
            if common is not None:
                extra = self._rescore(common, [d for _, d in scored])
                scored = [(s + extra.get(d, 0.0), d) for s, d in scored]
                scored.sort(key=lambda sd: (-sd[0], sd[1]))
                scored = scored[:limit]
            stored = self._searcher.stored_fields
            ranked = [(stored(d)["id"], s) for s, d in scored]
            if len(ranked) < limit and common is None and not top.capped:
                total = len(ranked)  # every match was collected
            else:
                # an estimate from the posting lengths (Results.estimated_length() would run
                # a filtered query a second time to count exactly)
                reader = self._searcher.reader()
                estimate = min(int(q.estimate_size(reader)), reader.doc_count())
                total = max(estimate, len(ranked))
        return KeywordHits(ranked, total)

    def _split(self, q: Any) -> tuple[Any, Any]:
        """``q`` as (rare words, common words or None). A word found in more than
        COMMON_FRACTION of the records has a low IDF, yet walking its postings would make a
        query read a large share of the index: the candidates are the records holding a
        rarer query word (a query of common words only keeps its rarest), and the common
        words are then scored for the best RESCORE_POOL of them alone. Call under the lock."""
        if not isinstance(q, query.Or) or len(q.subqueries) < 2:
            return q, None
        reader = self._searcher.reader()
        groups: dict[str, list[Any]] = {}
        freq: dict[str, int] = {}
        for sub in q.subqueries:
            # one group per word (its title, body and labels terms); phrases count as rare
            key = sub.text if isinstance(sub, query.Term) else repr(sub)
            groups.setdefault(key, []).append(sub)
            if isinstance(sub, query.Term):
                freq[key] = freq.get(key, 0) + reader.doc_frequency(sub.fieldname, sub.text)
            else:
                freq[key] = 0
        limit = max(COMMON_MIN_DOCS, int(reader.doc_count() * COMMON_FRACTION))
        order = sorted(groups, key=lambda k: freq[k])
        rare = [k for k in order if freq[k] <= limit] or order[:1]
        if len(rare) == len(order):
            return q, None
        return (
            query.Or([s for k in rare for s in groups[k]]),
            query.Or([s for k in order if k not in rare for s in groups[k]]),
        )

    def _rescore(self, q: Any, docnums: Sequence[int]) -> dict[int, float]:
        """The score ``q`` adds to each of ``docnums``: its matcher skips from one to the
        next, reading only the posting blocks that hold them. Call under the lock."""
        extra: dict[int, float] = {}
        wanted = sorted(docnums)
        context = self._searcher.context(needs_current=True)
        for sub, offset in self._searcher.leaf_searchers():
            end = offset + sub.doc_count_all()
            matcher = q.matcher(sub, context)
            for docnum in wanted:
                if not offset <= docnum < end:
                    continue
                local = docnum - offset
                if not matcher.is_active():
                    break
                if matcher.id() < local:
                    matcher.skip_to(local)
                if matcher.is_active() and matcher.id() == local:
                    extra[docnum] = float(matcher.score())
        return extra

    def _visibility(
        self, module_ids: Collection[str] | None
    ) -> tuple[set[int] | None, set[int] | None]:
        """(allowed, hidden) docnums for a module restriction: whichever set is smaller, the
        other None; both None when every indexed module is visible. Call under the lock."""
        if module_ids is None:
            return None, None
        wanted = set(module_ids)
        indexed = self._indexed_modules()
        hidden = indexed - wanted
        if not hidden:
            return None, None
        visible = indexed & wanted
        if len(visible) <= len(hidden):
            return self._docs_of(visible), None
        return None, self._docs_of(hidden)

    def _indexed_modules(self) -> frozenset[str]:
        if self._modules is None:
            self._modules = frozenset(str(m) for m in self._searcher.reader().field_terms("module"))
        return self._modules

    def _docs_of(self, modules: Collection[str]) -> set[int]:
        key = frozenset(modules)
        docs = self._module_docs.get(key)
        if docs is None:
            if len(self._module_docs) >= MODULE_SETS:
                self._module_docs.clear()
            q = query.Or([query.Term("module", m) for m in sorted(key)])
            docs = self._module_docs[key] = set(self._searcher.docs_for_query(q))
        return docs

    def filter_ids(self, text: str, module_id: str) -> list[str] | None:
        """Candidates for a substring search in one module: the records holding every trigram
        of ``text`` (a superset of the true matches, which SQL then checks). None when the
        index cannot narrow it down (text under 3 characters, or too many candidates)."""
        grams = sorted({t.text for t in NgramAnalyzer(3, 3)(text)})[:32]
        if not grams:
            return None
        q = query.And([query.Term("grams", g) for g in grams])
        with self._lock:
            allow = self._docs_of([module_id])
            if not allow:
                return []
            results = self._searcher.search(q, limit=MAX_FILTER_IDS + 1, filter=allow, scored=False)
            ids = [hit["id"] for hit in results]
        return None if len(ids) > MAX_FILTER_IDS else ids
