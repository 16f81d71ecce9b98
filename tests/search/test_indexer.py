"""The indexer over a real store: a committed record becomes findable, a changed one is found
by its new words only, a deleted one disappears, and each version is embedded once, also when
another process (or a rebuild) indexes the same records."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import pytest

from fieldhouse.actors.record_ops import CreateRecord, DeleteRecords, UpdateRecord
from fieldhouse.config import Settings
from fieldhouse.runtime import Runtime, open_runtime
from fieldhouse.search.embedder import Matrix, MiniLMEmbedder
from fieldhouse.search.engine import Mode
from fieldhouse.search.indexer import (
    SAVE_EVERY_ROWS,
    SAVE_SECONDS,
    rebuild_indexes,
    save_interval,
    shares_vectors,
)
from fieldhouse.search.service import SearchService
from fieldhouse.storage import open_database
from tests.conftest import make_workspace

WAIT = 30.0


class Counting(MiniLMEmbedder):
    """The real embedder, counting the texts it embeds."""

    texts: list[str] = []

    def embed(self, texts: Sequence[str]) -> Matrix:
        Counting.texts.extend(texts)
        return super().embed(texts)

    def embed_windows(self, texts: Sequence[str]) -> list[Matrix]:
        Counting.texts.extend(texts)
        return super().embed_windows(texts)


@pytest.fixture
def counting(monkeypatch: pytest.MonkeyPatch) -> type[Counting]:
    Counting.texts = []
    monkeypatch.setattr("fieldhouse.search.indexer.make_embedder", lambda _: Counting())
    return Counting


def search(rt: Runtime) -> SearchService:
    assert rt.search is not None
    return rt.search


def titles(embedded: list[str]) -> list[str]:
    """The records among embedded texts (a record's text is its title, then its values)."""
    return [t.split(". ")[0] for t in embedded if ". " in t]


def task(title: str) -> dict[str, str]:
    return {"title": title, "status": "todo"}


async def tasks_module(rt: Runtime, account: str) -> str:
    tasks = (await rt.actors.schemas.get(account)).get("tasks")
    assert tasks is not None
    return tasks.module.module_id


async def found(rt: Runtime, account: str, text: str, mode: Mode = "keyword") -> list[str]:
    assert await search(rt).wait_fresh(account, WAIT)
    result = await search(rt).search(
        account,
        text,
        None,
        limit=10,
        min_similarity=0.3,
        mode=mode,
    )
    assert result is not None
    return [h.title for h in result.hits]


async def test_created_changed_and_deleted_records(
    settings: Settings, counting: type[Counting]
) -> None:
    async with open_runtime(settings) as rt:
        ws = await make_workspace(rt)
        account, module = ws.account_id, await tasks_module(rt, ws.account_id)
        made = await rt.actors.ask(
            account,
            CreateRecord(module, "Repaint the boathouse", task("Repaint the boathouse"), None, "T"),
        )
        assert await found(rt, account, "boathouse") == ["Repaint the boathouse"]
        assert await found(rt, account, "repaint boathouse", "vector") == ["Repaint the boathouse"]
        await rt.actors.ask(
            account,
            UpdateRecord(module, made.record_id, "Tar the canoe", task("Tar the canoe"), "T"),
        )
        assert await found(rt, account, "boathouse") == []
        assert await found(rt, account, "canoe") == ["Tar the canoe"]
        await rt.actors.ask(account, DeleteRecords(module, (made.record_id,), "T"))
        assert await found(rt, account, "canoe") == []
        assert await found(rt, account, "tar the canoe", "vector") == []
        index = search(rt).indexes[account]
        assert len(index.vectors) == 0
        # each version embedded once (two versions), plus the two semantic queries
        assert titles(counting.texts) == ["Repaint the boathouse", "Tar the canoe"]


async def test_a_version_is_embedded_once_across_processes(
    settings: Settings, counting: type[Counting]
) -> None:
    """With several processes on one store, the vector of a record version is stored once and
    read by every other process; a rebuild here embeds nothing that is already stored."""
    settings = replace(settings, workers=2)
    async with open_runtime(replace(settings, search_enabled=False)) as rt:
        ws = await make_workspace(rt)
        module = await tasks_module(rt, ws.account_id)
        for title in ("Sharpen the saws", "Count the nails", "Sweep the loft"):
            await rt.actors.ask(ws.account_id, CreateRecord(module, title, task(title), None, "T"))
    async with open_database(settings.resolved_database_url) as store:
        assert shares_vectors(settings, store)
        assert await rebuild_indexes(settings, store, [ws.account_id]) == 3
        assert sorted(titles(counting.texts)) == [
            "Count the nails",
            "Sharpen the saws",
            "Sweep the loft",
        ]
        counting.texts.clear()
        assert await rebuild_indexes(settings, store, [ws.account_id]) == 3
        assert counting.texts == []  # every vector read back from the store
    async with open_runtime(settings) as rt:
        assert await found(rt, ws.account_id, "sweep loft", "vector") == ["Sweep the loft"]
        assert counting.texts == ["sweep loft"]  # the query only


def test_a_vector_file_is_saved_less_often_the_larger_it_is() -> None:
    # each save rewrites the whole file: the interval grows with it, so the bytes written per
    # second stay bounded, up to the cap for large workspaces
    assert save_interval(0) == 0.0  # a new workspace's first vectors are saved at once
    assert save_interval(SAVE_EVERY_ROWS // 2) == SAVE_SECONDS / 2
    assert save_interval(SAVE_EVERY_ROWS) == save_interval(10 * SAVE_EVERY_ROWS) == SAVE_SECONDS
    sizes = [100, 1_000, 10_000, SAVE_EVERY_ROWS]
    rates = [rows / save_interval(rows) for rows in sizes]  # rows rewritten a second
    assert rates == pytest.approx([SAVE_EVERY_ROWS / SAVE_SECONDS] * len(sizes))
