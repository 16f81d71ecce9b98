"""The keyword index of the embedded store: SQLite FTS5 tables in the database file itself.

Each workspace has its own tables (named by a digest of its id, so no id ever reaches the SQL
text as written): ``<t>_docs`` holds each live record's searchable text, and the
external-content FTS5 table ``<t>_words`` follows it by triggers (title, body and labels,
Porter-stemmed, ranked by ``bm25()`` with the title weighted 2 and labels 1.5). They are
written by the record's own write transaction (:mod:`fieldhouse.storage.store`), so a record
is searchable the moment its write is acknowledged, by every process on the file, and a backup
of the file carries the index. A workspace of its own tables keeps each workspace's word
statistics (and so its scores) its own.

Scoring runs in SQLite's C code. ``bm25()`` scores every match, so a query's words are first
counted (:func:`statistics`, kept for a while by the search service): a word in a large share of
the workspace only adds to the scores of the best candidates found by rarer words
(:func:`search`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from fieldhouse.model.search_doc import Doc
from fieldhouse.storage.base import Op, execute, executemany, rows, value
from fieldhouse.storage.fulltext import (
    COLUMN_WEIGHTS,
    K1,
    NEWEST_POOL,
    RESCORE_POOL,
    SCORED_MATCHES,
    B,
    KeywordHits,
    Stats,
    WordPlan,
    idf,
)

TOKENIZE = "porter unicode61 remove_diacritics 2"
#: bm25() weights of title, body, labels
WEIGHTS = "2.0, 1.0, 1.5"


def table(account_id: str) -> str:
    """The prefix of a workspace's search tables."""
    return "fts_" + hashlib.blake2b(account_id.encode(), digest_size=12).hexdigest()


def create_tables(account_id: str) -> Op[None]:
    """A workspace's docs table and its FTS5 index (nothing when they exist)."""
    t = table(account_id)
    for stmt in (
        f"CREATE TABLE IF NOT EXISTS {t}_docs (n INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE,"
        " module TEXT NOT NULL, title TEXT NOT NULL, body TEXT NOT NULL,"
        " labels TEXT NOT NULL, stamp TEXT NOT NULL)",
        f"CREATE VIRTUAL TABLE IF NOT EXISTS {t}_words USING fts5(title, body, labels,"
        f" content='{t}_docs', content_rowid='n', tokenize='{TOKENIZE}')",
        f"CREATE TRIGGER IF NOT EXISTS {t}_added AFTER INSERT ON {t}_docs BEGIN"
        f" INSERT INTO {t}_words (rowid, title, body, labels)"
        " VALUES (new.n, new.title, new.body, new.labels); END",
        f"CREATE TRIGGER IF NOT EXISTS {t}_removed AFTER DELETE ON {t}_docs BEGIN"
        f" INSERT INTO {t}_words ({t}_words, rowid, title, body, labels)"
        " VALUES ('delete', old.n, old.title, old.body, old.labels); END",
    ):
        yield execute(stmt)


def drop_tables(account_id: str) -> Op[None]:
    t = table(account_id)
    for stmt in (
        f"DROP TRIGGER IF EXISTS {t}_added",
        f"DROP TRIGGER IF EXISTS {t}_removed",
        f"DROP TABLE IF EXISTS {t}_words",
        f"DROP TABLE IF EXISTS {t}_docs",
    ):
        yield execute(stmt)


def put_docs(account_id: str, docs: Sequence[Doc], fresh: Collection[str] = ()) -> Op[None]:
    """Index (or index again) records; answers nothing, so it can be written behind.
    ``fresh``: ids never indexed, whose old text need not be deleted first (a create's)."""
    t = table(account_id)
    # a record written twice in one transaction (inserted, then updated) is put once, as last
    docs = list({d.record_id: d for d in docs}.values())
    stale = [(d.record_id,) for d in docs if d.record_id not in fresh]
    if stale:
        yield executemany(f"DELETE FROM {t}_docs WHERE id = ?", stale)
    yield executemany(
        f"INSERT INTO {t}_docs (id, module, title, body, labels, stamp) VALUES (?, ?, ?, ?, ?, ?)",
        [(d.record_id, d.module_id, d.title, d.body, d.labels, d.stamp) for d in docs],
    )


def delete_docs(account_id: str, ids: Sequence[str]) -> Op[None]:
    yield executemany(f"DELETE FROM {table(account_id)}_docs WHERE id = ?", [(i,) for i in ids])


def _in(values: Collection[Any]) -> str:
    return "(" + ", ".join("?" * len(values)) + ")"


def stored(account_id: str, ids: Sequence[str]) -> Op[dict[str, dict[str, str]]]:
    """id -> {module, title, body, labels, stamp} of those ``ids`` that are indexed."""
    t = table(account_id)
    out: dict[str, dict[str, str]] = {}
    ids = list(dict.fromkeys(ids))
    for start in range(0, len(ids), 500):
        part = ids[start : start + 500]
        found = yield rows(
            f"SELECT id, module, title, body, labels, stamp FROM {t}_docs WHERE id IN {_in(part)}",
            part,
        )
        for rid, module, title, body, labels, stamp in found:
            out[str(rid)] = {
                "module": module,
                "title": title,
                "body": body,
                "labels": labels,
                "stamp": stamp,
            }
    return out


def count_docs(account_id: str) -> Op[int]:
    n = yield value(f"SELECT count(*) FROM {table(account_id)}_docs")
    return int(n or 0)


def statistics(account_id: str) -> Op[Stats]:
    """Each stem's record count, the tokens per record and the records indexed (one pass over
    the workspace's vocabulary)."""
    t = table(account_id)
    yield execute(
        f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.{t}_wv USING fts5vocab(main, {t}_words, row)"
    )
    counts: dict[str, int] = {}
    tokens = 0
    found = yield rows(f"SELECT term, doc, cnt FROM temp.{t}_wv")
    for term, records, cnt in found:
        counts[str(term)] = int(records)
        tokens += int(cnt)
    indexed = yield from count_docs(account_id)
    return Stats(counts, max(tokens / max(indexed, 1), 1.0), indexed)


def stems(words: Sequence[str]) -> Op[dict[str, str]]:
    """query word -> its stem as the index stores it (FTS5's own tokenizer, through a scratch
    table of the connection)."""
    yield execute(
        f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.fh_q USING fts5(t, tokenize='{TOKENIZE}')"
    )
    yield execute(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.fh_qi USING fts5vocab(temp, fh_q, instance)"
    )
    yield execute("DELETE FROM temp.fh_q")
    # one statement, not one a word: a read that runs past its time on the trio thread is
    # interrupted and its statement run again on a thread, which must find none of its rows
    values = ", ".join("(?, ?)" for _ in words)
    yield execute(
        f"INSERT INTO temp.fh_q (rowid, t) VALUES {values}",
        [x for pair in enumerate(words, 1) for x in pair],
    )
    found = yield rows("SELECT term, doc FROM temp.fh_qi")
    by_row = {int(doc): str(term) for term, doc in found}
    return {w: by_row[i] for i, w in enumerate(words, 1) if i in by_row}


def _any(words: Sequence[str]) -> str:
    return " OR ".join(f'"{w}"' for w in words)


def search(
    account_id: str,
    words: Sequence[str],
    stats: Stats,
    module_ids: Collection[str] | None,
    limit: int,
) -> Op[KeywordHits]:
    """BM25 over title, body and labels (any word may match; more matches rank higher).

    The candidates are the records holding a rarer query word (a query of common words only
    keeps its rarest), and the whole query is then scored for the best RESCORE_POOL of them."""
    if not words or limit <= 0 or (module_ids is not None and not module_ids):
        return KeywordHits([], 0)
    stem_of = yield from stems(words)
    records = max(stats.records, 1)
    counts = {w: min(stats.counts.get(stem_of.get(w, ""), 0), records) for w in words}
    plan = WordPlan.of(words, counts, records)
    ranking = _Ranking(table(account_id), module_ids, stats, stem_of, counts)
    if plan.every_word:
        ranked = yield from ranking.scored(words, limit)
    elif counts.get(plan.rare[0], 0) > SCORED_MATCHES:
        ranked = yield from ranking.newest(plan.rare, words, limit)
    else:
        ranked = yield from ranking.rescored(plan.rare, words, limit)
    return plan.hits(ranked, limit)


@dataclass(frozen=True)
class _Ranking:
    """The ways one query ranks the records of a workspace's tables (``t``) it may see."""

    t: str
    module_ids: Collection[str] | None
    stats: Stats
    #: query word -> its stem
    stem_of: dict[str, str]
    #: query word -> records holding it
    counts: dict[str, int]

    def scored(self, words: Sequence[str], limit: int) -> Op[list[tuple[str, float]]]:
        """bm25() of every record holding any of ``words``."""
        found = yield rows(
            f"SELECT d.id, {self._score} AS s {self._matching} ORDER BY s, d.id LIMIT ?",
            (_any(words), *self._shown, limit),
        )
        return [(str(r[0]), -float(r[1])) for r in found]

    def newest(
        self, rare: Sequence[str], words: Sequence[str], limit: int
    ) -> Op[list[tuple[str, float]]]:
        """Only common words: the newest NEWEST_POOL records holding the rarest are ranked."""
        pool = yield rows(
            f"SELECT d.id, d.n {self._matching} ORDER BY {self.t}_words.rowid DESC LIMIT ?",
            (_any(rare), *self._shown, NEWEST_POOL),
        )
        every = self._stem_counts(words)
        extra = yield from _rescore(self.t, [int(r[1]) for r in pool], every, self.stats)
        return _best((str(r[0]), extra.get(int(r[1]), 0.0)) for r in pool)[:limit]

    def rescored(
        self, rare: Sequence[str], words: Sequence[str], limit: int
    ) -> Op[list[tuple[str, float]]]:
        """bm25() of the best RESCORE_POOL records holding a ``rare`` word, plus what the
        common words add to each."""
        pool = yield rows(
            f"SELECT d.id, {self._score} AS s, d.n {self._matching} ORDER BY s, d.id LIMIT ?",
            (_any(rare), *self._shown, max(limit, RESCORE_POOL)),
        )
        common = self._stem_counts(w for w in words if w not in rare)
        extra = yield from _rescore(self.t, [int(r[2]) for r in pool], common, self.stats)
        return _best((str(r[0]), -float(r[1]) + extra.get(int(r[2]), 0.0)) for r in pool)[:limit]

    @property
    def _matching(self) -> str:
        t = self.t
        visible = "" if self.module_ids is None else f" AND d.module IN {_in(self.module_ids)}"
        return (
            f"FROM {t}_words JOIN {t}_docs d ON d.n = {t}_words.rowid"
            f" WHERE {t}_words MATCH ?{visible}"
        )

    @property
    def _shown(self) -> list[Any]:
        return [] if self.module_ids is None else list(self.module_ids)

    @property
    def _score(self) -> str:
        return f"bm25({self.t}_words, {WEIGHTS})"

    def _stem_counts(self, words: Iterable[str]) -> dict[str, int]:
        return {self.stem_of[w]: self.counts[w] for w in words if w in self.stem_of}


def _best(scored: Iterable[tuple[str, float]]) -> list[tuple[str, float]]:
    """Highest score first, ties by id."""
    return sorted(scored, key=lambda r: (-r[1], r[0]))


def _rescore(
    t: str, docs: Sequence[int], common: dict[str, int], stats: Stats
) -> Op[dict[int, float]]:
    """What the ``common`` stems (stem -> records holding it) add to the bm25() score of each
    of ``docs``, by FTS5's formula, from the rows' own tokens (each row's text is tokenized
    again in a scratch table: a few hundred words, instead of reading long posting lists)."""
    if not docs or not common:
        return {}
    yield execute(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.fh_d USING"
        f" fts5(title, body, labels, tokenize='{TOKENIZE}')"
    )
    yield execute(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.fh_di USING fts5vocab(temp, fh_d, instance)"
    )
    yield execute("DELETE FROM temp.fh_d")
    yield execute(
        "INSERT INTO temp.fh_d (rowid, title, body, labels) SELECT n, title, body, labels"
        f" FROM {t}_docs WHERE n IN {_in(docs)}",
        list(docs),
    )
    found = yield rows("SELECT doc, count(*) FROM temp.fh_di GROUP BY doc")
    lengths = {int(r[0]): int(r[1]) for r in found}
    terms = list(common)
    freq: dict[tuple[int, str], float] = {}
    found = yield rows(
        f"SELECT term, doc, col, count(*) FROM temp.fh_di WHERE term IN {_in(terms)}"
        " GROUP BY term, doc, col",
        terms,
    )
    for term, doc, col, hits in found:
        key = (int(doc), str(term))
        freq[key] = freq.get(key, 0.0) + COLUMN_WEIGHTS.get(str(col), 1.0) * int(hits)
    extra: dict[int, float] = {}
    for (doc, term), f in freq.items():
        norm = K1 * (1 - B + B * lengths.get(doc, 0) / stats.average)
        weight = idf(stats.records, common[term])
        extra[doc] = extra.get(doc, 0.0) + weight * f * (K1 + 1) / (f + norm)
    return extra
