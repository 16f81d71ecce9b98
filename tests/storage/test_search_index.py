"""The keyword index in the store, on both backends: a record's write transaction writes its
searchable text, and Store.keyword_search finds it the moment the write commits."""

from __future__ import annotations

import math
from collections.abc import Collection
from dataclasses import replace

import pytest

from fieldhouse.model.records import RecordRow
from fieldhouse.model.search_doc import Doc
from fieldhouse.storage import Store
from fieldhouse.storage.fulltext import COMMON_MIN_DOCS, query_words
from tests.storage.conftest import AT, MOD, A, B, record

MOD_A = f"{MOD}-{A}"


async def put(store: Store, account: str, *rows: RecordRow) -> None:
    """Insert the records as the workspace actor does (with the module schemas at hand)."""
    _, schemas = await store.load_schemas(account)
    by_id = {s.module.module_id: s for s in schemas.values()}
    async with store.write(account) as txn:
        txn.schema_of = by_id.get
        for row in rows:
            await txn.insert_record(row)


async def find(
    store: Store, account: str, text: str, modules: Collection[str] | None = None
) -> list[str]:
    stats = await store.keyword_stats(account)
    hits = await store.keyword_search(account, query_words(text), stats, modules, 10)
    return [rid for rid, _ in hits.ranked]


def task(rid: str, name: str, text: str = "", account: str = A) -> RecordRow:
    return record(account, rid, name, title=text) if text else record(account, rid, name)


async def test_a_written_record_is_found_when_its_write_commits(store: Store) -> None:
    async with store.write(A) as txn:
        await txn.insert_record(task("r01", "Paint the fence", "white picket boards"))
        await txn.flush()
        # not before: the text is written with the transaction, seen at its commit
        assert await find(store, A, "fence") == []
    assert await find(store, A, "fence") == ["r01"]
    assert await find(store, A, "picket") == ["r01"]  # the body too
    assert await find(store, A, "PAINTING fences") == ["r01"]  # stemmed, any case
    assert await find(store, A, "roof") == []


async def test_an_update_replaces_the_words_and_a_delete_removes_the_record(
    store: Store,
) -> None:
    row, roof = task("r01", "Paint the fence", "white picket boards"), task("r02", "Fix the roof")
    await put(store, A, row, roof)
    async with store.write(A) as txn:
        later = "2026-01-02T00:00:00.000000Z"
        mowed = replace(row, display_name="Mow the lawn", fields={}, updated_at=later)
        await txn.update_record(mowed)
    assert await find(store, A, "fence picket") == []
    assert await find(store, A, "lawn") == ["r01"]
    assert (await store.search_docs(A, ["r01"]))["r01"]["stamp"] == later
    async with store.write(A) as txn:
        assert await txn.soft_delete(MOD_A, ["r01"], AT, None) == ["r01"]
    assert await find(store, A, "lawn") == []
    assert await store.search_docs(A, ["r01", "r02"]) == {
        "r02": {
            "module": MOD_A,
            "title": "Fix the roof",
            "body": "",
            "labels": "",
            "stamp": roof.updated_at,
        }
    }
    assert (await store.keyword_stats(A)).records == 1


async def test_a_record_written_twice_in_one_transaction_is_indexed_as_last_written(
    store: Store,
) -> None:
    row = task("r01", "Paint the fence")
    async with store.write(A) as txn:
        await txn.insert_record(row)
        await txn.update_record(replace(row, display_name="Fix the roof", updated_at=AT))
        await txn.insert_record(task("r02", "Mow the lawn"))
    assert await find(store, A, "fence") == []
    assert await find(store, A, "roof") == ["r01"]
    assert (await store.search_docs(A, ["r01"]))["r01"]["stamp"] == AT
    assert (await store.keyword_stats(A)).records == 2


async def test_a_rolled_back_savepoint_leaves_no_text(store: Store) -> None:
    async with store.write(A) as txn:
        await txn.insert_record(task("r01", "Paint the fence"))
        with pytest.raises(RuntimeError):
            async with txn.savepoint():
                await txn.insert_record(task("r02", "Fence post"))
                raise RuntimeError("the message failed")
        with pytest.raises(RuntimeError):
            async with txn.savepoint():
                await txn.insert_record(task("r03", "Fence gate"))
                await txn.module_schemas()  # the text so far is written inside the savepoint
                raise RuntimeError("the message failed")
        await txn.insert_record(task("r04", "Fence paint"))
    assert sorted(await find(store, A, "fence")) == ["r01", "r04"]
    assert set(await store.search_docs(A, ["r01", "r02", "r03", "r04"])) == {"r01", "r04"}


async def test_a_savepoint_rolled_back_keeps_the_text_of_what_came_before_it(
    store: Store,
) -> None:
    """r01's text, queued before the savepoint and written inside it (a read that needs the
    transaction's writes), is rolled back with it: it must be written again at the commit."""
    async with store.write(A) as txn:
        await txn.insert_record(task("r01", "Paint the fence"))
        with pytest.raises(RuntimeError):
            async with txn.savepoint():
                await txn.module_schemas()
                raise RuntimeError("the message failed")
    assert len(await store.get_records(A, ["r01"])) == 1
    assert await find(store, A, "fence") == ["r01"]


async def test_workspaces_never_see_each_others_text_or_statistics(store: Store) -> None:
    await put(store, A, task("r01", "Paint the fence"), task("r02", "Fence repair"))
    await put(store, B, task("r03", "Fence", account=B))
    assert sorted(await find(store, A, "fence")) == ["r01", "r02"]
    assert await find(store, B, "fence") == ["r03"]
    assert await find(store, B, "paint") == []
    assert await store.search_docs(B, ["r01"]) == {}
    assert (await store.keyword_stats(A)).records == 2
    assert (await store.keyword_stats(B)).records == 1


async def test_a_word_in_every_record_still_answers_also_after_deletes(store: Store) -> None:
    """Statistics are kept for a while (by the search service): counted before deletes, or
    before records came, they disagree with the index, and no query breaks on that."""
    empty = await store.keyword_stats(A)
    await put(store, A, *[task(f"r0{n}", f"Fence {word}") for n, word in enumerate("abcde", 1)])
    stale = await store.keyword_stats(A)
    assert sorted(await find(store, A, "fence")) == ["r01", "r02", "r03", "r04", "r05"]
    hits = await store.keyword_search(A, ["fence", "c"], empty, None, 10)
    assert hits.ranked[0][0] == "r03" and len(hits.ranked) == 5
    async with store.write(A) as txn:
        await txn.soft_delete(MOD_A, ["r01", "r02", "r03", "r04"], AT, None)
    hits = await store.keyword_search(A, ["fence"], stale, None, 10)
    assert [rid for rid, _ in hits.ranked] == ["r05"] and hits.total == 1
    assert await find(store, A, "fence e") == ["r05"]
    hits = await store.keyword_search(A, ["fence"], await store.keyword_stats(A), None, 10)
    assert [rid for rid, _ in hits.ranked] == ["r05"]
    assert all(math.isfinite(score) for _, score in hits.ranked)


async def test_common_words_still_answer(store: Store) -> None:
    """Over COMMON_MIN_DOCS records hold "fence" (a third of the workspace): a query with a
    rarer word ranks the records holding that, and the common word adds to the scores of the
    best of them; a query of common words only answers from the records holding its rarest."""
    common = COMMON_MIN_DOCS + 100
    docs = [Doc(f"c{n:04}", MOD_A, f"Fence {n}", "posts and rails", "", AT) for n in range(common)]
    docs += [Doc(f"o{n:04}", MOD_A, f"Other {n}", "lawn", "", AT) for n in range(2 * common)]
    # long records (re-reading them for the common word takes a while), of one length; the
    # last holds the common word too (and would lose a tie by id)
    filler = " ".join(f"filler{n}" for n in range(4000))
    docs += [Doc(f"gate{n:02}", MOD_A, "Gate", f"gate {filler} latch", "", AT) for n in range(19)]
    docs += [Doc("gate99", MOD_A, "Gate", f"gate {filler} fence", "", AT)]
    for start in range(0, len(docs), 500):
        await store.reindex(A, docs[start : start + 500], first=start == 0)
    stats = await store.keyword_stats(A)
    assert stats.records == 3 * common + 20
    assert (await find(store, A, "gate fence"))[:2] == ["gate99", "gate00"]
    assert await find(store, A, "fence gate", ["other-module"]) == []
    found = await store.keyword_search(A, ["fence", "rails"], stats, None, 10)
    assert len(found.ranked) == 10 and found.total >= 10
    assert {rid for rid, _ in found.ranked} <= {d.record_id for d in docs[:common]}
    assert len(await find(store, A, "fence")) == 10


async def test_module_ids_limit_the_records_found(store: Store) -> None:
    await put(store, A, task("r01", "Paint the fence"))
    async with store.write(A) as txn:
        other = replace(task("r02", "Fence repair"), module_id="mod-other")
        await txn.insert_record(other)
    assert sorted(await find(store, A, "fence")) == ["r01", "r02"]
    assert await find(store, A, "fence", [MOD_A]) == ["r01"]
    assert await find(store, A, "fence", ["mod-other"]) == ["r02"]
    assert await find(store, A, "fence", []) == []


async def test_a_title_match_ranks_above_a_body_match(store: Store) -> None:
    await put(
        store,
        A,
        task("r01", "Quarterly report", "the invoice summary is attached"),
        task("r02", "Invoice summary", "quarterly report attached"),
        task("r03", "Unrelated", "nothing to see"),
    )
    assert await find(store, A, "invoice") == ["r02", "r01"]
    assert await find(store, A, "quarterly") == ["r01", "r02"]


async def test_a_records_labels_are_searchable_between_its_title_and_its_body(
    store: Store,
) -> None:
    async with store.write(A) as txn:
        await txn.insert_label("l-1", "Invoice", None, AT)
    labelled = replace(task("r02", "Two"), label_ids=["l-1", "l-gone"])
    await put(store, A, task("r01", "One", "invoice"), labelled, task("r03", "Invoice"))
    assert await find(store, A, "invoice") == ["r03", "r02", "r01"]
    assert (await store.search_docs(A, ["r02"]))["r02"]["labels"] == "Invoice"


async def test_stored_text_holds_each_title(store: Store) -> None:
    await put(store, A, task("r01", "Paint the fence", "white"), task("r02", "Fix the roof"))
    stored = await store.search_docs(A, ["r02", "r01", "missing", "r01"])
    assert {rid: doc["title"] for rid, doc in stored.items()} == {
        "r01": "Paint the fence",
        "r02": "Fix the roof",
    }
    assert stored["r01"]["body"] == "white" and stored["r01"]["module"] == MOD_A
    assert await store.search_docs(A, []) == {}


async def test_a_rebuild_replaces_the_index(store: Store) -> None:
    await put(store, A, task("r01", "Paint the fence"), task("r02", "Fix the roof"))
    await store.reindex(A, [Doc("r02", MOD_A, "Fix the roof", "", "", AT)], first=True)
    assert await find(store, A, "fence") == []
    assert await find(store, A, "roof") == ["r02"]
    await store.reindex(A, [Doc("r01", MOD_A, "Paint the fence", "", "", AT)], first=False)
    assert await find(store, A, "fence") == ["r01"]
    assert (await store.keyword_stats(A)).records == 2
    assert await find(store, B, "roof") == []
