"""The embedded store's keyword index: FTS5 tables of each workspace in the database file,
named by a digest of its id, counted for their statistics by the index itself."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest

from fieldhouse.model.search_doc import Doc
from fieldhouse.storage import Store, open_database
from fieldhouse.storage import fulltext_sqlite as lite
from fieldhouse.storage.fulltext import query_words
from fieldhouse.storage.migrations import SQLITE, migrate_sqlite
from tests.storage.conftest import AT, MOD, A, B

MOD_A = f"{MOD}-{A}"


@pytest.fixture
def backend() -> str:
    return "sqlite"


def test_each_workspace_has_tables_named_by_a_digest_of_its_id() -> None:
    names = {lite.table(account) for account in (A, B, "it's'; DROP TABLE records; --", "")}
    assert len(names) == 4
    assert all(re.fullmatch(r"fts_[0-9a-f]{24}", name) for name in names)
    assert lite.table(A) == lite.table(A)


async def test_a_workspace_id_never_reaches_the_sql(store: Store) -> None:
    odd = "it's'; DROP TABLE records; --"
    await store.create_account(odd, "Odd", "odd", AT)
    await store.reindex(odd, [Doc("r1", "m", "Paint the fence", "", "", AT)], first=False)
    stats = await store.keyword_stats(odd)
    hits = await store.keyword_search(odd, ["fence"], stats, None, 10)
    assert [rid for rid, _ in hits.ranked] == ["r1"]
    assert await store.get_account(A) is not None


async def test_statistics_count_stems_tokens_and_records(store: Store) -> None:
    docs = [
        Doc("r1", MOD_A, "Painting fences", "white paint", "Urgent", AT),
        Doc("r2", MOD_A, "Fence", "", "", AT),
    ]
    await store.reindex(A, docs, first=True)
    stats = await store.keyword_stats(A)
    assert stats.records == 2
    assert stats.counts["fenc"] == 2 and stats.counts["paint"] == 1
    assert stats.counts["urgent"] == 1
    assert stats.average == pytest.approx(6 / 2)  # tokens per record
    assert (await store.keyword_stats(B)).records == 0
    # an empty workspace counts an average of 1 (it divides a record's length)
    await store.reindex(A, [], first=True)
    assert (await store.keyword_stats(A)).average == 1.0


async def test_query_words_are_stemmed_as_the_index_stems_them(store: Store) -> None:
    words = query_words("Painting fences running 3d")
    stems = await store._db.read(lite.stems(words))
    assert stems == {"painting": "paint", "fences": "fenc", "running": "run", "3d": "3d"}


async def test_a_database_from_before_the_index_gets_each_workspaces_tables(
    tmp_path: Path,
) -> None:
    """Migration 8 makes the tables of every workspace there and asks the next start to fill
    them from the records (fieldhouse.search.build)."""
    path = tmp_path / "old.sqlite3"
    conn = sqlite3.connect(path, isolation_level=None)
    assert migrate_sqlite(conn, SQLITE[:7]) == 7
    conn.execute(
        "INSERT INTO accounts (id, name, slug, created_at) VALUES (?, 'A', 'a', ?)", (A, AT)
    )
    conn.close()
    async with open_database(f"sqlite:///{path}") as store:
        assert await store.get_meta("search_rebuild") == "needed"
        assert (await store.keyword_stats(A)).records == 0
        await store.reindex(A, [Doc("r1", MOD_A, "Paint the fence", "", "", AT)], first=False)
        stats = await store.keyword_stats(A)
        hits = await store.keyword_search(A, ["fence"], stats, None, 10)
        assert [rid for rid, _ in hits.ranked] == ["r1"]


async def test_a_long_query_interrupted_on_the_trio_thread_still_answers(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A read overrunning its time on the trio thread is interrupted and its statement run
    again on a thread: the query's words go into the scratch table in one statement, so the
    run again finds none of them there (32 inserts one by one failed 30 times of 30)."""
    from fieldhouse.storage import sqlite as driver

    words = [f"word{i}" for i in range(40)]
    await store.reindex(A, [Doc("r1", f"{MOD}-{A}", "Title", " ".join(words), "", AT)], first=True)
    stats = await store.keyword_stats(A)
    monkeypatch.setattr(driver, "INLINE_READ_SECONDS", 0.003)
    monkeypatch.setattr(driver, "PROGRESS_STEPS", 1)
    hits = await store.keyword_search(A, query_words(" ".join(words)), stats, None, 10)
    assert [rid for rid, _ in hits.ranked] == ["r1"]
