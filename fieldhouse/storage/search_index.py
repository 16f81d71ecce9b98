"""The search index's statements for whichever engine the store runs on: keyword documents
(:mod:`.fulltext_sqlite`, :mod:`.fulltext_postgres`) and records' vectors (:mod:`.vectors`).
What differs between the engines is decided here, from the dialect, and nowhere else."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from fieldhouse.model.search_doc import Doc
from fieldhouse.storage import fulltext_postgres as pg
from fieldhouse.storage import fulltext_sqlite as lite
from fieldhouse.storage.base import Op
from fieldhouse.storage.fulltext import KeywordHits, Stats
from fieldhouse.storage.sqldialect import Dialect


def _sqlite(d: Dialect) -> bool:
    return d.name == "sqlite"


def create(d: Dialect, account_id: str) -> Op[None]:
    """A new workspace's index (SQLite: its own tables)."""
    if _sqlite(d):
        yield from lite.create_tables(account_id)


def put_docs(
    d: Dialect, account_id: str, docs: Sequence[Doc], fresh: Collection[str] = ()
) -> Op[None]:
    """Index (or index again) records; ``fresh`` ones were never indexed (nothing to replace)."""
    if docs:
        if _sqlite(d):
            yield from lite.put_docs(account_id, docs, fresh)
        else:
            yield from pg.put_docs(account_id, docs)


def delete_docs(d: Dialect, account_id: str, ids: Sequence[str]) -> Op[None]:
    if ids:
        yield from (lite.delete_docs if _sqlite(d) else pg.delete_docs)(account_id, ids)


def clear(d: Dialect, account_id: str) -> Op[None]:
    """Every document of the workspace out (before a rebuild)."""
    if _sqlite(d):
        yield from lite.drop_tables(account_id)
        yield from lite.create_tables(account_id)
    else:
        yield from pg.drop_docs(account_id)


def stored(d: Dialect, account_id: str, ids: Sequence[str]) -> Op[dict[str, dict[str, str]]]:
    return (yield from (lite.stored if _sqlite(d) else pg.stored)(account_id, ids))


def statistics(d: Dialect, account_id: str) -> Op[Stats]:
    """The workspace's word statistics (PostgreSQL counts a query's words as it runs: only
    the number of records here)."""
    if _sqlite(d):
        return (yield from lite.statistics(account_id))
    return Stats({}, 1.0, (yield from pg.count_docs(account_id)))


def search(
    d: Dialect,
    account_id: str,
    words: Sequence[str],
    stats: Stats,
    module_ids: Collection[str] | None,
    limit: int,
) -> Op[KeywordHits]:
    if _sqlite(d):
        return (yield from lite.search(account_id, words, stats, module_ids, limit))
    counts = yield from pg.word_counts(account_id, words)
    return (yield from pg.search(account_id, words, stats.records, counts, module_ids, limit))


def current(d: Dialect, account_id: str) -> str:
    """An SQL condition on ``?`` = (account id, record id, stamp): the record's indexed text is
    of that stamp (a vector made from it is still the record's)."""
    if _sqlite(d):
        return (
            f"EXISTS (SELECT 1 FROM {lite.table(account_id)}_docs WHERE ? IS NOT NULL"
            " AND id = ? AND stamp = ?)"
        )
    return "EXISTS (SELECT 1 FROM search_docs WHERE account_id = ? AND record_id = ? AND stamp = ?)"
