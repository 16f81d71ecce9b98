"""Filling the search index from the records: `fieldhouse search rebuild`, and the one
rebuild a migration asks the next start for (the meta key ``search_rebuild``)."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
import trio

from fieldhouse.actors.record_ops import CreateRecord
from fieldhouse.cli import main
from fieldhouse.config import Settings
from fieldhouse.model.principal import SystemActor
from fieldhouse.runtime import Runtime, open_runtime
from fieldhouse.search import build
from fieldhouse.search.build import REBUILD_KEY, build_if_needed
from fieldhouse.storage import Store, open_database
from fieldhouse.storage.fulltext import query_words
from tests.conftest import make_workspace

TITLES = ("Paint the fence", "Fix the roof", "Clean the gutters")


@pytest.fixture
def quiet(settings: Settings) -> Settings:
    """No search service: records are written (their text with them) and nothing embeds."""
    return replace(settings, search_enabled=False)


async def add_task(rt: Runtime, account: str, title: str) -> None:
    tasks = (await rt.actors.schemas.get(account)).get("tasks")
    assert tasks is not None
    await rt.actors.ask(
        CreateRecord(
            tasks.module.module_id,
            title,
            {"title": title, "status": "todo"},
            None,
            by=SystemActor(account, "test"),
        ),
    )


async def seed(settings: Settings) -> tuple[str, str]:
    """A workspace with three tasks, and one with none."""
    async with open_runtime(settings) as rt:
        ws = await make_workspace(rt)
        for title in TITLES:
            await add_task(rt, ws.account_id, title)
        empty = await make_workspace(rt, "Empty")
        return ws.account_id, empty.account_id


async def found(store: Store, account: str, text: str) -> list[str]:
    stats = await store.keyword_stats(account)
    hits = await store.keyword_search(account, query_words(text), stats, None, 10)
    titles = await store.search_docs(account, [rid for rid, _ in hits.ranked])
    return [titles[rid]["title"] for rid, _ in hits.ranked]


def test_search_rebuild_makes_the_index_again_from_the_records(
    quiet: Settings, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(build, "PAGE", 2)  # the records are read in pages
    account, empty = trio.run(seed, quiet)

    async def forget(account: str) -> list[str]:
        async with open_database(quiet.resolved_database_url) as store:
            await store.reindex(account, [], first=True)  # every document out
            return await found(store, account, "roof")

    assert trio.run(forget, account) == []
    where = ["--data-dir", str(quiet.data_dir)]
    if quiet.database_url:
        where += ["--database-url", quiet.database_url]
    assert main(["search", "rebuild", *where]) == 0
    assert json.loads(capsys.readouterr().out) == {"rebuilt": 3}
    trio.run(forget, account)
    assert main(["search", "rebuild", *where, "--workspace", empty]) == 0
    assert json.loads(capsys.readouterr().out) == {"rebuilt": 0}
    assert main(["search", "rebuild", *where, "--workspace", account]) == 0
    assert json.loads(capsys.readouterr().out) == {"rebuilt": 3}
    assert main(["search", "rebuild", *where, "--workspace", "nope"]) == 1
    assert "nope" in capsys.readouterr().err

    async def check() -> tuple[list[str], list[str], int, int]:
        async with open_database(quiet.resolved_database_url) as store:
            return (
                await found(store, account, "roof"),
                await found(store, empty, "roof"),
                (await store.keyword_stats(account)).records,
                (await store.vector_backlog(account)).waiting,  # and wait for their vectors
            )

    assert trio.run(check) == (["Fix the roof"], [], 3, 3)


async def test_a_rebuild_a_migration_asked_for_runs_once(quiet: Settings) -> None:
    account, _ = await seed(quiet)
    async with open_database(quiet.resolved_database_url) as store:
        assert await store.get_meta(REBUILD_KEY) == "needed"  # the migration's request
        await store.reindex(account, [], first=True)
        await build_if_needed(store)
        assert await found(store, account, "gutters") == ["Clean the gutters"]
        assert await store.get_meta(REBUILD_KEY) is None
        await store.reindex(account, [], first=True)
        await build_if_needed(store)  # asked once: done
        assert await found(store, account, "gutters") == []
