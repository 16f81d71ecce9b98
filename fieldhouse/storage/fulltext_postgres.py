"""The keyword index on PostgreSQL: its own full-text search over ``search_docs``.

``search_docs`` holds each live record's searchable text, written by the record's own write
transaction; its ``tsv`` column is generated from it (title weighted A, labels B, body C,
English stemming) and a GIN index over ``(account_id, tsv)`` (``btree_gin``) finds a
workspace's matches. Every server over the database sees a record the moment its write
commits.

Ranking is BM25-like: each query word's weight is its inverse document frequency within the
workspace (counted per query, at most MAX_COUNTED a word, so a common word costs a bounded
count) times ``ts_rank`` of the word alone (its frequency in the record, by column weight,
saturating). As on SQLite, a word in a large share of the workspace only adds to the scores of
the best candidates found by rarer words.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from fieldhouse.model.search_doc import Doc
from fieldhouse.storage.base import Op, execute, executemany, rows, value
from fieldhouse.storage.fulltext import (
    MAX_COUNTED,
    NEWEST_POOL,
    RESCORE_POOL,
    SCORED_MATCHES,
    KeywordHits,
    WordPlan,
    idf,
)

MIGRATION = """
CREATE EXTENSION IF NOT EXISTS btree_gin;
CREATE TABLE search_docs (
    account_id text NOT NULL, record_id text COLLATE "C" NOT NULL, module_id text NOT NULL,
    title text NOT NULL, body text NOT NULL, labels text NOT NULL, stamp text NOT NULL,
    n bigserial NOT NULL,
    tsv tsvector GENERATED ALWAYS AS (
        setweight(to_tsvector('english', title), 'A')
        || setweight(to_tsvector('english', labels), 'B')
        || setweight(to_tsvector('english', body), 'C')) STORED,
    PRIMARY KEY (account_id, record_id));
CREATE INDEX search_docs_words ON search_docs USING gin (account_id, tsv);
"""
#: ts_rank's weights of the D, C, B, A positions: body 1, labels 1.5, title 2 (as FTS5's bm25)
_RANK_WEIGHTS = "'{0.1, 0.5, 0.75, 1.0}'"
_WORD = "plainto_tsquery('english', ?)"


def put_docs(account_id: str, docs: Sequence[Doc]) -> Op[None]:
    """Index (or index again) records; answers nothing, so it can be written behind."""
    yield executemany(
        "INSERT INTO search_docs (account_id, record_id, module_id, title, body, labels, stamp)"
        " VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (account_id, record_id) DO UPDATE SET"
        " module_id = excluded.module_id, title = excluded.title, body = excluded.body,"
        " labels = excluded.labels, stamp = excluded.stamp",
        [(account_id, d.record_id, d.module_id, d.title, d.body, d.labels, d.stamp) for d in docs],
    )


def delete_docs(account_id: str, ids: Sequence[str]) -> Op[None]:
    yield execute(
        "DELETE FROM search_docs WHERE account_id = ? AND record_id = ANY(?)",
        (account_id, list(ids)),
    )


def drop_docs(account_id: str) -> Op[None]:
    yield execute("DELETE FROM search_docs WHERE account_id = ?", (account_id,))


def stored(account_id: str, ids: Sequence[str]) -> Op[dict[str, dict[str, str]]]:
    """id -> {module, title, body, labels, stamp} of those ``ids`` that are indexed."""
    if not ids:
        return {}
    found = yield rows(
        "SELECT record_id, module_id, title, body, labels, stamp FROM search_docs"
        " WHERE account_id = ? AND record_id = ANY(?)",
        (account_id, list(dict.fromkeys(ids))),
    )
    return {
        str(r[0]): {"module": r[1], "title": r[2], "body": r[3], "labels": r[4], "stamp": r[5]}
        for r in found
    }


def count_docs(account_id: str) -> Op[int]:
    n = yield value("SELECT count(*) FROM search_docs WHERE account_id = ?", (account_id,))
    return int(n or 0)


def word_counts(account_id: str, words: Sequence[str]) -> Op[dict[str, int]]:
    """word -> records of the workspace holding it (at most MAX_COUNTED + 1); a stop word or
    one without letters holds none."""
    counts: dict[str, int] = {}
    for w in words:
        n = yield value(
            "SELECT count(*) FROM (SELECT 1 FROM search_docs WHERE account_id = ?"
            f" AND tsv @@ {_WORD} LIMIT {MAX_COUNTED + 1}) m",
            (account_id, w),
        )
        counts[w] = int(n or 0)
    return counts


def _score(words: Sequence[str], weights: dict[str, float]) -> tuple[str, list[Any]]:
    parts = [f"{weights[w]!r} * ts_rank({_RANK_WEIGHTS}, tsv, {_WORD}, 1)" for w in words]
    return " + ".join(parts) or "0", list(words)


def _match(words: Sequence[str]) -> tuple[str, list[Any]]:
    return "tsv @@ (" + " || ".join([_WORD] * len(words)) + ")", list(words)


def search(
    account_id: str,
    words: Sequence[str],
    records: int,
    counts: dict[str, int],
    module_ids: Collection[str] | None,
    limit: int,
) -> Op[KeywordHits]:
    """The best ``limit`` records for ``words`` (any may match; more and rarer rank higher).
    ``counts``: records holding each word (:func:`word_counts`); ``records``: the workspace's."""
    words = [w for w in words if counts.get(w, 0) > 0]
    if not words or limit <= 0 or (module_ids is not None and not module_ids):
        return KeywordHits([], 0)
    records = max(records, max(counts.values()), 1)
    weights = {w: idf(records, counts[w]) for w in words}
    visible, shown = "", []
    if module_ids is not None:
        visible, shown = " AND module_id = ANY(?)", [list(module_ids)]
    plan = WordPlan.of(words, counts, records)
    rare = plan.rare
    full, full_params = _score(words, weights)
    match, match_params = _match(rare)
    where = f"account_id = ? AND {match}{visible}"
    where_params = [account_id, *match_params, *shown]
    if plan.every_word:
        found = yield rows(
            f"SELECT record_id, {full} AS s FROM search_docs WHERE {where}"
            " ORDER BY s DESC, record_id LIMIT ?",
            (*full_params, *where_params, limit),
        )
    else:
        if counts[rare[0]] > SCORED_MATCHES:
            order, order_params, pool = "n DESC", list[Any](), NEWEST_POOL
        else:
            part, order_params = _score(rare, weights)
            order, pool = f"{part} DESC, record_id", max(limit, RESCORE_POOL)
        found = yield rows(
            f"SELECT record_id, {full} AS s FROM (SELECT record_id, tsv FROM search_docs"
            f" WHERE {where} ORDER BY {order} LIMIT ?) pool ORDER BY s DESC, record_id LIMIT ?",
            (*full_params, *where_params, *order_params, pool, limit),
        )
    return plan.hits([(str(r[0]), float(r[1])) for r in found], limit)
