"""The keyword half: an SQLite FTS5 index (BM25) of one workspace. Blocking; call from a thread.

One SQLite file per workspace under its index folder: ``docs`` holds each record's searchable
text and stamp; two external-content FTS5 tables follow it by triggers: ``words`` (title, body
and labels, Porter-stemmed, ranked by ``bm25()`` with the title weighted 2 and labels 1.5) and
``grams`` (trigrams of every value: candidates for the list endpoint's substring search).
``grams`` costs more than half of what indexing a record costs and serves only a module list's
``search`` parameter, so it is filled on demand: a new index has it empty and without its
triggers, and the first such search fills it from ``docs`` (:meth:`KeywordIndex.fill_grams`);
the triggers keep it current from then on.
Scoring and merging run in SQLite's C code, so a commit of a few hundred records and a query
over 100,000 cost milliseconds (whoosh's pure-Python commits and scoring cost seconds and tens
of milliseconds). Writes go through one connection; queries through a small pool of readers
(WAL: a read never waits for a write).
"""

from __future__ import annotations

import math
import re
import sqlite3
import threading
import time
from collections.abc import Collection, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fieldhouse.search.documents import Doc

#: a module-level search matches at most this many records (they become an SQL IN list)
MAX_FILTER_IDS = 5000
#: the total of a keyword search counts at most this many matches
MAX_COUNTED = 10_000
MAX_QUERY_WORDS = 32
#: a word in more records than this share of the index (and at least COMMON_MIN_DOCS) only
#: adds to the scores of the best records that match a rarer query word: bm25() scores every
#: match, and a common word matches a large share of the index
COMMON_FRACTION = 0.02
COMMON_MIN_DOCS = 500
#: a query whose rarest word is in more records than this ranks only the newest NEWEST_POOL
SCORED_MATCHES = 5_000
NEWEST_POOL = 400
#: how many of the best candidates by rare words get their common words scored
RESCORE_POOL = 100
#: FTS5's bm25() constants, and the column weights as numbers
K1, B = 1.2, 0.75
COLUMN_WEIGHTS = {"title": 2.0, "body": 1.0, "labels": 1.5}
#: how long each word's record count and the average record length (in tokens) are kept:
#: they steer which words are scored how and normalise the scores, and move slowly. Counting
#: reads the whole vocabulary (190 ms at 100,000 records), so a search that finds them older
#: has them counted again in a thread of their own and goes on with the old ones
STATS_SECONDS = 60.0
TOKENIZE = "porter unicode61 remove_diacritics 2"
FILE = "index.sqlite3"
FORMAT = 1
#: bm25() weights of title, body, labels (whoosh's field boosts before)
WEIGHTS = "2.0, 1.0, 1.5"
_WORD = re.compile(r"\w+", re.UNICODE)
#: query words that select nothing (whoosh's list, which the keyword index used before)
STOP_WORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "can",
        "for",
        "from",
        "have",
        "if",
        "in",
        "is",
        "it",
        "may",
        "not",
        "of",
        "on",
        "or",
        "tbd",
        "that",
        "the",
        "this",
        "to",
        "us",
        "we",
        "when",
        "will",
        "with",
        "yet",
        "you",
        "your",
    ]
)

_SCHEMA = """
CREATE TABLE docs (
    n INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, module TEXT NOT NULL, title TEXT NOT NULL,
    body TEXT NOT NULL, labels TEXT NOT NULL, raw TEXT NOT NULL, stamp TEXT NOT NULL);
CREATE INDEX docs_module ON docs (module);
CREATE VIRTUAL TABLE words USING fts5(
    title, body, labels, content='docs', content_rowid='n',
    tokenize='porter unicode61 remove_diacritics 2');
CREATE VIRTUAL TABLE grams USING fts5(
    raw, content='docs', content_rowid='n', tokenize='trigram', detail='none');
CREATE TRIGGER docs_added AFTER INSERT ON docs BEGIN
    INSERT INTO words (rowid, title, body, labels)
        VALUES (new.n, new.title, new.body, new.labels);
END;
CREATE TRIGGER docs_removed AFTER DELETE ON docs BEGIN
    INSERT INTO words (words, rowid, title, body, labels)
        VALUES ('delete', old.n, old.title, old.body, old.labels);
END;
"""
#: ``grams`` follows ``docs`` once filled (an index made before grams were filled on demand has
#: these two inserts in the triggers above, and counts as filled)
_GRAMS = (
    "INSERT INTO grams (grams) VALUES ('rebuild')",
    """CREATE TRIGGER grams_added AFTER INSERT ON docs BEGIN
        INSERT INTO grams (rowid, raw) VALUES (new.n, new.raw);
    END""",
    """CREATE TRIGGER grams_removed AFTER DELETE ON docs BEGIN
        INSERT INTO grams (grams, rowid, raw) VALUES ('delete', old.n, old.raw);
    END""",
)


class IndexCorrupt(Exception):
    """The files on disk cannot be read as an index; rebuild it from the store."""


@dataclass(frozen=True)
class KeywordHits:
    ranked: list[tuple[str, float]]  # record id, BM25 score (higher is better); best first
    total: int  # every match (up to MAX_COUNTED), not only the ranked window


def _connect(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=30.0)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")  # the store is the truth: a rebuild restores it
    return conn


def _reader_connect(path: Path) -> sqlite3.Connection:
    """A query connection, with its own scratch tables: ``temp.q`` stems a query's words as
    the index does (``temp.qi`` lists them), ``temp.wv`` gives each stem's document count."""
    conn = _connect(path)
    conn.execute(f"CREATE VIRTUAL TABLE temp.q USING fts5(t, tokenize='{TOKENIZE}')")
    conn.execute("CREATE VIRTUAL TABLE temp.qi USING fts5vocab(temp, q, instance)")
    conn.execute("CREATE VIRTUAL TABLE temp.wv USING fts5vocab(main, words, row)")
    conn.execute(
        f"CREATE VIRTUAL TABLE temp.d USING fts5(title, body, labels, tokenize='{TOKENIZE}')"
    )
    conn.execute("CREATE VIRTUAL TABLE temp.di USING fts5vocab(temp, d, instance)")
    return conn


def query_words(text: str) -> list[str]:
    """The words of ``text`` a keyword search looks for (stop words and 1-letter ones out)."""
    words = dict.fromkeys(
        w for w in (m.lower() for m in _WORD.findall(text)) if len(w) > 1 and w not in STOP_WORDS
    )
    return list(words)[:MAX_QUERY_WORDS]


def _any(words: Sequence[str]) -> str:
    return " OR ".join(f'"{w}"' for w in words)


def _in(values: Collection[Any]) -> str:
    return "(" + ", ".join("?" * len(values)) + ")"


def _grams_filled(conn: sqlite3.Connection) -> bool:
    """Whether ``grams`` follows ``docs`` (a trigger inserts into it)."""
    row = conn.execute(
        "SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND sql LIKE '%INTO grams %'"
    ).fetchone()
    return bool(row[0])


class KeywordIndex:
    def __init__(self, path: Path, writer: sqlite3.Connection) -> None:
        self._path = path
        #: whether the trigram index is filled (see the module's doc); read without a lock
        self.grams_filled = _grams_filled(writer)
        self._writer = writer
        self._write_lock = threading.Lock()
        self._readers: list[sqlite3.Connection] = []
        self._all: list[sqlite3.Connection] = [writer]
        self._pool_lock = threading.Lock()
        self._closed = False
        self._records: int | None = None  # how many records are indexed (None: count again)
        #: (stem -> records holding it, tokens per record, when counted): one tuple, replaced
        #: whole, so a search reads one counting's figures; None until the first search
        self._stats: tuple[dict[str, int], float, float] | None = None
        self._recounting = threading.Lock()  # held while a thread counts them again

    @classmethod
    def open(cls, path: Path, *, create: bool = False) -> KeywordIndex:
        """Open the index in folder ``path``; with ``create`` make an empty one when there is
        none. Raise :class:`IndexCorrupt` when it is missing (without ``create``) or damaged."""
        file = path / FILE
        if not file.exists():
            if not create:
                raise IndexCorrupt(f"no keyword index at {path}")
            path.mkdir(parents=True, exist_ok=True)
            conn = _connect(file)
            conn.executescript(_SCHEMA)
            # last: a file left half made by a crash reads as damaged, and is made again
            conn.execute(f"PRAGMA user_version = {FORMAT}")
            return cls(path, conn)
        try:
            conn = _connect(file)
            version = int(conn.execute("PRAGMA user_version").fetchone()[0])
            if version != FORMAT:
                conn.close()
                raise IndexCorrupt(f"keyword index at {path} has format {version}")
            conn.execute("SELECT count(*) FROM docs").fetchone()
        except sqlite3.DatabaseError as exc:
            raise IndexCorrupt(f"keyword index at {path}: {exc!r}") from exc
        return cls(path, conn)

    def close(self) -> None:
        with self._pool_lock:
            self._closed = True
            for conn in self._all:
                conn.close()
            self._all, self._readers = [], []

    @contextmanager
    def _reader(self) -> Iterator[sqlite3.Connection]:
        """A connection of the pool, or a new one. None after :meth:`close`: a search or a
        recount still running would open the file again, and where a rebuild has removed it,
        make an empty one that the next open takes for a damaged index."""
        with self._pool_lock:
            if self._closed:
                raise sqlite3.ProgrammingError(f"the keyword index at {self._path} is closed")
            conn = self._readers.pop() if self._readers else None
        if conn is None:
            conn = _reader_connect(self._path / FILE)
            with self._pool_lock:
                if self._closed:
                    conn.close()
                    raise sqlite3.ProgrammingError(f"the keyword index at {self._path} is closed")
                self._all.append(conn)
        try:
            yield conn
        finally:
            with self._pool_lock:
                if conn in self._all:
                    self._readers.append(conn)

    @contextmanager
    def _writing(self) -> Iterator[sqlite3.Connection]:
        """The writer in one transaction (under the write lock): committed when the block
        ends, rolled back if it raises."""
        with self._write_lock:
            c = self._writer
            c.execute("BEGIN IMMEDIATE")
            try:
                yield c
                c.execute("COMMIT")
            except BaseException:
                if c.in_transaction:
                    c.execute("ROLLBACK")
                raise

    def apply(self, docs: Sequence[Doc], deletes: Collection[str]) -> None:
        """Upsert docs and drop deleted ids in one transaction; then searches see the change."""
        if not docs and not deletes:
            return
        gone = [*deletes, *(d.record_id for d in docs)]
        with self._writing() as c:
            c.executemany("DELETE FROM docs WHERE id = ?", [(rid,) for rid in gone])
            c.executemany(
                "INSERT INTO docs (id, module, title, body, labels, raw, stamp)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    (d.record_id, d.module_id, d.title, d.body, d.labels, d.raw, d.stamp)
                    for d in docs
                ],
            )
        self._records = None

    def fill_grams(self) -> None:
        """Fill the trigram index from ``docs`` and keep it current from now on (one
        transaction: a search sees it empty or whole)."""
        if self.grams_filled:
            return
        with self._writing() as c:
            if not self.grams_filled:  # (looked at again under the write lock)
                for statement in _GRAMS:
                    c.execute(statement)
        self.grams_filled = True

    def optimize(self) -> None:
        """Merge the FTS5 segments into one (after a bulk load)."""
        with self._write_lock:
            self._writer.execute("INSERT INTO words (words) VALUES ('optimize')")
            if self.grams_filled:
                self._writer.execute("INSERT INTO grams (grams) VALUES ('optimize')")

    def stamps(self) -> dict[str, str]:
        """record id -> stamp of every indexed record."""
        with self._reader() as c:
            return {str(rid): str(stamp) for rid, stamp in c.execute("SELECT id, stamp FROM docs")}

    def stored(self, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        """Stored fields (module, title, body, labels, stamp) of the given ids that are indexed."""
        out: dict[str, dict[str, Any]] = {}
        ids = list(dict.fromkeys(ids))
        with self._reader() as c:
            for start in range(0, len(ids), 500):
                part = ids[start : start + 500]
                for rid, module, title, body, labels, stamp in c.execute(
                    "SELECT id, module, title, body, labels, stamp FROM docs"
                    f" WHERE id IN {_in(part)}",
                    part,
                ):
                    out[rid] = {
                        "id": rid,
                        "module": module,
                        "title": title,
                        "body": body,
                        "labels": labels,
                        "stamp": stamp,
                    }
        return out

    def search(self, text: str, module_ids: Collection[str] | None, limit: int) -> KeywordHits:
        """BM25 over title, body and labels (any word may match; more matches rank higher).

        ``bm25()`` scores every match, so a word in a large share of the records would make a
        query read that share: the candidates are the records holding a rarer query word (a
        query of common words only keeps its rarest), and the whole query is then scored for
        the best RESCORE_POOL of them alone."""
        words = query_words(text)
        if not words or limit <= 0 or (module_ids is not None and not module_ids):
            return KeywordHits([], 0)
        visible = ""
        shown: list[Any] = []
        if module_ids is not None:
            visible = f" AND d.module IN {_in(module_ids)}"
            shown = list(module_ids)
        select = (
            f"SELECT d.id, bm25(words, {WEIGHTS}) AS s FROM words JOIN docs d ON d.n = words.rowid"
        )
        with self._reader() as c:
            counts, stems, records = self._frequencies(c, words)
            common_over = max(COMMON_MIN_DOCS, int(records * COMMON_FRACTION))
            by_count = sorted(words, key=lambda w: counts.get(w, 0))
            rare = [w for w in by_count if counts.get(w, 0) <= common_over] or by_count[:1]
            estimate = min(sum(counts.values()), records)
            if len(rare) == len(words):
                found = c.execute(
                    f"{select} WHERE words MATCH ?{visible} ORDER BY s, d.id LIMIT ?",
                    (_any(words), *shown, limit),
                ).fetchall()
            elif counts.get(rare[0], 0) > SCORED_MATCHES:
                # only common words: bm25() over all their matches would cost a share of the
                # index; the newest NEWEST_POOL records holding the rarest are ranked instead
                pool = c.execute(
                    "SELECT d.id, d.n FROM words JOIN docs d ON d.n = words.rowid"
                    f" WHERE words MATCH ?{visible} ORDER BY words.rowid DESC LIMIT ?",
                    (_any(rare), *shown, NEWEST_POOL),
                ).fetchall()
                every = {stems[w]: counts[w] for w in words if w in stems}
                extra = self._rescore(c, [int(r[1]) for r in pool], every, records)
                found = sorted(
                    ((r[0], -extra.get(int(r[1]), 0.0)) for r in pool), key=lambda r: (r[1], r[0])
                )[:limit]
            else:
                pool = c.execute(
                    f"SELECT d.id, bm25(words, {WEIGHTS}) AS s, d.n FROM words"
                    f" JOIN docs d ON d.n = words.rowid WHERE words MATCH ?{visible}"
                    f" ORDER BY s, d.id LIMIT ?",
                    (_any(rare), *shown, max(limit, RESCORE_POOL)),
                ).fetchall()
                common = {stems[w]: counts[w] for w in words if w not in rare and w in stems}
                extra = self._rescore(c, [int(r[2]) for r in pool], common, records)
                found = sorted(
                    ((r[0], float(r[1]) - extra.get(int(r[2]), 0.0)) for r in pool),
                    key=lambda r: (r[1], r[0]),
                )[:limit]
        ranked = [(str(rid), -float(score)) for rid, score in found]
        total = len(ranked) if len(ranked) < limit and len(rare) == len(words) else estimate
        return KeywordHits(ranked, max(total, len(ranked)))

    def _frequencies(
        self, c: sqlite3.Connection, words: Sequence[str]
    ) -> tuple[dict[str, int], dict[str, str], int]:
        """(query word -> records holding its stem, query word -> its stem, records)."""
        c.execute("DELETE FROM temp.q")
        c.executemany("INSERT INTO temp.q (rowid, t) VALUES (?, ?)", list(enumerate(words, 1)))
        by_row = {int(doc): str(term) for term, doc in c.execute("SELECT term, doc FROM temp.qi")}
        stems = {w: by_row[i] for i, w in enumerate(words, 1) if i in by_row}
        known = self._statistics(c)[0]
        docs = {t: known.get(t, 0) for t in set(stems.values())}
        counts = {w: docs.get(stems.get(w, ""), 0) for w in words}
        records = self._records
        if records is None:
            records = self._records = int(c.execute("SELECT count(*) FROM docs").fetchone()[0])
        return counts, stems, records

    def _rescore(
        self, c: sqlite3.Connection, rows: Sequence[int], common: dict[str, int], records: int
    ) -> dict[int, float]:
        """What the ``common`` stems (stem -> records holding it) add to the bm25() score of
        each of ``rows``, by FTS5's formula, from the rows' own tokens (each row's text is
        tokenized again here: a few hundred words, instead of reading long posting lists)."""
        if not rows or not common:
            return {}
        c.execute("DELETE FROM temp.d")
        c.execute(
            "INSERT INTO temp.d (rowid, title, body, labels) SELECT n, title, body, labels"
            f" FROM docs WHERE n IN {_in(rows)}",
            list(rows),
        )
        lengths = dict(c.execute("SELECT doc, count(*) FROM temp.di GROUP BY doc").fetchall())
        terms = list(common)
        freq: dict[tuple[int, str], float] = {}
        for term, doc, col, hits in c.execute(
            f"SELECT term, doc, col, count(*) FROM temp.di WHERE term IN {_in(terms)}"
            " GROUP BY term, doc, col",
            terms,
        ):
            key = (int(doc), str(term))
            freq[key] = freq.get(key, 0.0) + COLUMN_WEIGHTS.get(str(col), 1.0) * int(hits)
        average = self._statistics(c)[1]
        extra: dict[int, float] = {}
        for (doc, term), f in freq.items():
            df = common[term]
            idf = max(math.log((records - df + 0.5) / (df + 0.5)), 1e-6)
            norm = K1 * (1 - B + B * int(lengths.get(doc, 0)) / average)
            extra[doc] = extra.get(doc, 0.0) + idf * f * (K1 + 1) / (f + norm)
        return extra

    def _statistics(self, c: sqlite3.Connection) -> tuple[dict[str, int], float, float]:
        """Each stem's record count and the tokens per record (FTS5 counts a word's records
        by reading its posting list: one pass over every word now and then costs less than
        reading the long lists of common words per query). The first search of the index
        counts them on ``c``; one that finds them older than STATS_SECONDS starts a thread
        that counts them again and goes on with the old ones."""
        stats = self._stats
        if stats is None:
            stats = self._count(c)
        elif time.monotonic() - stats[2] > STATS_SECONDS and self._recounting.acquire(False):
            threading.Thread(target=self._recount, name="keyword-stats", daemon=True).start()
        return stats

    def _recount(self) -> None:
        try:
            with self._reader() as c:
                self._count(c)
        except sqlite3.Error:
            pass  # the index was closed meanwhile
        finally:
            self._recounting.release()

    def _count(self, c: sqlite3.Connection) -> tuple[dict[str, int], float, float]:
        counts: dict[str, int] = {}
        tokens = 0
        for term, records, count in c.execute("SELECT term, doc, cnt FROM temp.wv"):
            counts[str(term)] = int(records)
            tokens += int(count)
        indexed = int(c.execute("SELECT count(*) FROM docs").fetchone()[0])
        stats = (counts, max(tokens / max(indexed, 1), 1.0), time.monotonic())
        self._stats = stats
        return stats

    def filter_ids(self, text: str, module_id: str) -> list[str] | None:
        """Candidates for a substring search in one module: the records holding every trigram
        of ``text`` (a superset of the true matches, which SQL then checks). None when the
        index cannot narrow it down (text under 3 characters, too many candidates, or the
        trigram index not filled yet: :meth:`fill_grams`)."""
        if not self.grams_filled:
            return None
        lowered = text.lower()
        grams = sorted({lowered[i : i + 3] for i in range(len(lowered) - 2)})[:32]
        if not grams:
            return None
        expr = " AND ".join('"' + g.replace('"', '""') + '"' for g in grams)
        with self._reader() as c:
            ids = [
                str(r[0])
                for r in c.execute(
                    "SELECT d.id FROM grams JOIN docs d ON d.n = grams.rowid"
                    " WHERE grams MATCH ? AND d.module = ? LIMIT ?",
                    (expr, module_id, MAX_FILTER_IDS + 1),
                )
            ]
        return None if len(ids) > MAX_FILTER_IDS else ids
