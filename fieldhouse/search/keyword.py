"""The keyword half: an SQLite FTS5 index (BM25) of one workspace. Blocking; call from a thread.

One SQLite file per workspace under its index folder: ``docs`` holds each record's searchable
text and stamp; two external-content FTS5 tables follow it by triggers: ``words`` (title, body
and labels, Porter-stemmed, ranked by ``bm25()`` with the title weighted 2 and labels 1.5) and
``grams`` (trigrams of every value: candidates for the list endpoint's substring search).
Scoring and merging run in SQLite's C code, so a commit of a few hundred records and a query
over 100,000 cost milliseconds (whoosh's pure-Python commits and scoring cost seconds and tens
of milliseconds). Writes go through one connection; queries through a small pool of readers
(WAL: a read never waits for a write).
"""

from __future__ import annotations

import re
import sqlite3
import threading
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
    INSERT INTO grams (rowid, raw) VALUES (new.n, new.raw);
END;
CREATE TRIGGER docs_removed AFTER DELETE ON docs BEGIN
    INSERT INTO words (words, rowid, title, body, labels)
        VALUES ('delete', old.n, old.title, old.body, old.labels);
    INSERT INTO grams (grams, rowid, raw) VALUES ('delete', old.n, old.raw);
END;
"""


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


def match_words(text: str) -> str | None:
    """``text`` as an FTS5 query: any of its words (stop words left out); None without any."""
    words = dict.fromkeys(
        w for w in (m.lower() for m in _WORD.findall(text)) if len(w) > 1 and w not in STOP_WORDS
    )
    if not words:
        return None
    return " OR ".join(f'"{w}"' for w in list(words)[:MAX_QUERY_WORDS])


def _in(values: Collection[str]) -> str:
    return "(" + ", ".join("?" * len(values)) + ")"


class KeywordIndex:
    def __init__(self, path: Path, writer: sqlite3.Connection) -> None:
        self._path = path
        self._writer = writer
        self._write_lock = threading.Lock()
        self._readers: list[sqlite3.Connection] = []
        self._all: list[sqlite3.Connection] = [writer]
        self._pool_lock = threading.Lock()

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
            for conn in self._all:
                conn.close()
            self._all, self._readers = [], []

    @contextmanager
    def _reader(self) -> Iterator[sqlite3.Connection]:
        with self._pool_lock:
            conn = self._readers.pop() if self._readers else None
        if conn is None:
            conn = _connect(self._path / FILE)
            with self._pool_lock:
                self._all.append(conn)
        try:
            yield conn
        finally:
            with self._pool_lock:
                if conn in self._all:
                    self._readers.append(conn)

    def apply(self, docs: Sequence[Doc], deletes: Collection[str]) -> None:
        """Upsert docs and drop deleted ids in one transaction; then searches see the change."""
        if not docs and not deletes:
            return
        gone = [*deletes, *(d.record_id for d in docs)]
        with self._write_lock:
            c = self._writer
            c.execute("BEGIN IMMEDIATE")
            try:
                c.executemany("DELETE FROM docs WHERE id = ?", [(rid,) for rid in gone])
                c.executemany(
                    "INSERT INTO docs (id, module, title, body, labels, raw, stamp)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?)",
                    [
                        (d.record_id, d.module_id, d.title, d.body, d.labels, d.raw, d.stamp)
                        for d in docs
                    ],
                )
                c.execute("COMMIT")
            except BaseException:
                if c.in_transaction:
                    c.execute("ROLLBACK")
                raise

    def optimize(self) -> None:
        """Merge the FTS5 segments into one (after a bulk load)."""
        with self._write_lock:
            self._writer.execute("INSERT INTO words (words) VALUES ('optimize')")
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
        """BM25 over title, body and labels (any word may match; more matches rank higher)."""
        expr = match_words(text)
        if expr is None or limit <= 0 or (module_ids is not None and not module_ids):
            return KeywordHits([], 0)
        where = "words MATCH ?"
        params: list[Any] = [expr]
        if module_ids is not None:
            where += f" AND d.module IN {_in(module_ids)}"
            params.extend(module_ids)
        with self._reader() as c:
            found = c.execute(
                f"SELECT d.id, bm25(words, {WEIGHTS}) AS s FROM words"
                f" JOIN docs d ON d.n = words.rowid WHERE {where} ORDER BY s, d.id LIMIT ?",
                (*params, limit),
            ).fetchall()
            ranked = [(str(rid), -float(score)) for rid, score in found]
            if len(ranked) < limit:
                total = len(ranked)
            else:
                total = int(
                    c.execute(
                        f"SELECT count(*) FROM (SELECT 1 FROM words JOIN docs d"
                        f" ON d.n = words.rowid WHERE {where} LIMIT {MAX_COUNTED})",
                        params,
                    ).fetchone()[0]
                )
        return KeywordHits(ranked, max(total, len(ranked)))

    def filter_ids(self, text: str, module_id: str) -> list[str] | None:
        """Candidates for a substring search in one module: the records holding every trigram
        of ``text`` (a superset of the true matches, which SQL then checks). None when the
        index cannot narrow it down (text under 3 characters, or too many candidates)."""
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
