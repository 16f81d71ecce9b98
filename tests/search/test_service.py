"""The search service with its indexer over a real store: restart, rebuild, overflow."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest
import trio

from fieldhouse.actors.record_ops import CreateRecord, DeleteRecords, UpdateRecord
from fieldhouse.config import Settings
from fieldhouse.runtime import Runtime, open_runtime
from fieldhouse.search.embedder import Matrix, make_embedder
from fieldhouse.search.indexer import Indexer
from fieldhouse.search.service import SearchService
from tests.conftest import make_workspace

WAIT = 30.0


def svc(rt: Runtime) -> SearchService:
    assert rt.search is not None
    return rt.search


async def add_task(rt: Runtime, account: str, title: str) -> str:
    schemas = await rt.actors.schemas.get(account)
    tasks = schemas.get("tasks")
    assert tasks is not None
    row = await rt.actors.ask(
        account,
        CreateRecord(tasks.module.module_id, title, {"title": title, "status": "todo"}, None, "T"),
    )
    return str(row.record_id)


async def update_title(rt: Runtime, account: str, record_id: str, title: str) -> None:
    tasks = (await rt.actors.schemas.get(account)).get("tasks")
    assert tasks is not None
    await rt.actors.ask(
        account, UpdateRecord(tasks.module.module_id, record_id, title, {"title": title}, "T")
    )


async def titles(rt: Runtime, account: str, text: str, module_ids: object = None) -> list[str]:
    assert await svc(rt).wait_fresh(account, WAIT)
    found = await svc(rt).search(
        account,
        text,
        module_ids,
        limit=10,
        min_similarity=0.5,  # type: ignore[arg-type]
    )
    assert found is not None
    return [h.title for h in found.hits]


class Counting:
    """The configured embedder (same name, same vectors), counting the texts it embeds."""

    calls = 0

    def __init__(self, choice: str) -> None:
        self._inner = make_embedder(choice)
        self.name = self._inner.name
        self.dim = self._inner.dim

    def embed(self, texts: Sequence[str]) -> Matrix:
        Counting.calls += len(texts)
        return self._inner.embed(texts)

    def embed_windows(self, texts: Sequence[str]) -> list[Matrix]:
        Counting.calls += len(texts)
        return self._inner.embed_windows(texts)

    def load(self) -> None:
        self._inner.load()


async def test_index_survives_restart_without_reembedding(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with open_runtime(settings) as rt:
        ws = await make_workspace(rt)
        await add_task(rt, ws.account_id, "Migrate the mail server")
        assert await titles(rt, ws.account_id, "mail server") == ["Migrate the mail server"]
    Counting.calls = 0
    monkeypatch.setattr("fieldhouse.search.indexer.make_embedder", Counting)
    async with open_runtime(settings) as rt:
        assert await titles(rt, ws.account_id, "mail server") == ["Migrate the mail server"]
        assert Counting.calls == 1  # the query only: the records were not embedded again


async def test_changes_while_stopped_are_caught_up(settings: Settings) -> None:
    async with open_runtime(settings) as rt:
        ws = await make_workspace(rt)
        rid = await add_task(rt, ws.account_id, "Feed the office cat")
        assert await titles(rt, ws.account_id, "cat") == ["Feed the office cat"]
    # a process without search changes the store
    async with open_runtime(settings.with_overrides(search_enabled=False)) as rt:
        tasks = (await rt.actors.schemas.get(ws.account_id)).get("tasks")
        assert tasks is not None
        await rt.actors.ask(
            ws.account_id, DeleteRecords(tasks.module.module_id, (rid,), "T", actor_user_id=None)
        )
        await add_task(rt, ws.account_id, "Feed the office dog")
    async with open_runtime(settings) as rt:
        assert await titles(rt, ws.account_id, "feed office") == ["Feed the office dog"]


@pytest.mark.parametrize("damage", ["missing", "corrupt"])
async def test_missing_or_corrupt_index_is_rebuilt(settings: Settings, damage: str) -> None:
    async with open_runtime(settings) as rt:
        ws = await make_workspace(rt)
        await add_task(rt, ws.account_id, "Order more coffee beans")
        assert await titles(rt, ws.account_id, "coffee") == ["Order more coffee beans"]
        folder = svc(rt).path(ws.account_id)
    if damage == "missing":
        for path in sorted(folder.rglob("*"), reverse=True):
            path.unlink() if path.is_file() else path.rmdir()
        folder.rmdir()
    else:
        for seg in (folder / "keyword").iterdir():
            seg.write_bytes(b"garbage")
    async with open_runtime(settings) as rt:
        assert await titles(rt, ws.account_id, "coffee") == ["Order more coffee beans"]


async def test_burst_of_creates_is_indexed_once_without_a_resync(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    Counting.calls = 0
    monkeypatch.setattr("fieldhouse.search.indexer.make_embedder", Counting)
    resyncs: list[str] = []
    real_sync = Indexer.sync

    async def sync(self: Indexer, account: str) -> int:
        resyncs.append(account)
        return await real_sync(self, account)

    monkeypatch.setattr(Indexer, "sync", sync)
    n = 300  # more changes than one indexer batch: the burst queues up behind it
    async with open_runtime(settings) as rt:
        ws = await make_workspace(rt)
        assert await svc(rt).wait_fresh(ws.account_id, WAIT)  # its (empty) index is built
        before = list(resyncs)
        async with trio.open_nursery() as nursery:
            for i in range(n):
                nursery.start_soon(add_task, rt, ws.account_id, f"Water plant number {i}")
        assert await svc(rt).wait_fresh(ws.account_id, WAIT)
        found = await svc(rt).search(
            ws.account_id, "water plant", None, limit=5, min_similarity=0.3, mode="keyword"
        )
        assert found is not None and found.total == n
        assert (await titles(rt, ws.account_id, "plant number 123"))[0] == "Water plant number 123"
        assert Counting.calls == n + 1  # every record embedded once, plus the one query
        assert resyncs == before  # no workspace was compared with the store again


async def test_workspaces_are_isolated(settings: Settings) -> None:
    async with open_runtime(settings) as rt:
        a = await make_workspace(rt, "A")
        b = await make_workspace(rt, "B")
        await add_task(rt, a.account_id, "Secret project Nightingale")
        await add_task(rt, b.account_id, "Public roadmap")
        assert await titles(rt, a.account_id, "nightingale") == ["Secret project Nightingale"]
        assert await titles(rt, b.account_id, "nightingale") == []


async def test_unknown_workspace_is_unavailable(runtime: Runtime) -> None:
    found = await svc(runtime).search("no-such", "x", None, limit=5, min_similarity=0.3)
    assert found is None


async def test_poller_indexes_writes_made_through_another_process(settings: Settings) -> None:
    async with open_runtime(settings) as rt:
        ws = await make_workspace(rt)
        await add_task(rt, ws.account_id, "Oil the garden gate")
        assert await titles(rt, ws.account_id, "doorknobs") == []
        # another server on the same database (without search): no event reaches this one
        async with open_runtime(settings.with_overrides(search_enabled=False)) as other:
            await add_task(other, ws.account_id, "Polish the brass doorknobs")
        poller = Indexer(svc(rt), poll_seconds=None)
        await poller.poll()  # reads the activity after the index's sequence number
        assert await titles(rt, ws.account_id, "doorknobs") == ["Polish the brass doorknobs"]
        seq = svc(rt).indexes[ws.account_id].seq
        assert seq >= 2
    # the applied sequence is saved with the index: a restart reads only what came later
    async with open_runtime(settings) as rt:
        assert await titles(rt, ws.account_id, "doorknobs") == ["Polish the brass doorknobs"]
        assert svc(rt).indexes[ws.account_id].seq >= seq


async def test_the_first_list_search_has_the_trigram_index_filled(settings: Settings) -> None:
    async with open_runtime(settings) as rt:
        ws = await make_workspace(rt)
        rid = await add_task(rt, ws.account_id, "Renew the Borealis lease")
        assert await svc(rt).wait_fresh(ws.account_id, WAIT, vectors=False)
        module = (await rt.actors.schemas.get(ws.account_id)).get("tasks")
        assert module is not None
        module_id = module.module.module_id
        index = svc(rt).indexes[ws.account_id]
        # records are indexed by their words, without trigrams, until a list search asks
        assert not index.grams_filled
        # with no time to wait the list answers by SQL alone, and the indexer fills them
        assert await svc(rt).filter_ids(ws.account_id, module_id, "realis", within=0) is None
        assert await svc(rt).filter_ids(ws.account_id, module_id, "realis", within=WAIT) == [rid]
        assert index.grams_filled
        # from then on they follow every write
        other = await add_task(rt, ws.account_id, "Aurora Borealis tour")
        found = await svc(rt).filter_ids(ws.account_id, module_id, "realis", within=WAIT)
        assert sorted(found or []) == sorted([rid, other])


async def test_the_poller_skips_this_process_own_writes_but_not_another_process_change_of_them(
    settings: Settings, tmp_path: Path
) -> None:
    """A server process indexes its own writes from their events; when its poller then reads
    the same activity entries it does not read those records again, while a change another
    process made (to one of those records too) is taken and searchable."""
    quiet = settings.with_overrides(search_enabled=False)
    async with open_runtime(quiet) as rt, trio.open_nursery() as nursery:
        ws = await make_workspace(rt)
        account = ws.account_id
        service = SearchService(tmp_path / "index", rt.store, make_embedder("none"))
        rt.actors.subscribe(service.notify)  # this process's events, as the server wires them
        indexer = Indexer(service, poll_seconds=3600.0)  # the test calls poll() itself
        await nursery.start(indexer.run)
        assert await service.wait_fresh(account, WAIT)  # the index is built
        await indexer.poll()  # what came before is read
        mine = await add_task(rt, account, "Sweep the loading dock")
        assert await service.wait_fresh(account, WAIT)
        async with open_runtime(quiet) as other:  # no event of these reaches this process
            theirs = await add_task(other, account, "Paint the loading ramp")
            await update_title(other, account, mine, "Sweep the loading bay")
        service.pending.clear()
        await indexer.poll()
        polled = [e.record_id for e in service.pending if e.record_id is not None]
        # the entries of the other process's two writes, none of this process's own create
        assert sorted(polled) == sorted([theirs, mine])
        assert len(polled) == 2
        assert await service.wait_fresh(account, WAIT)
        found = await service.search(account, "loading", None, limit=10, min_similarity=0.5)
        assert found is not None
        assert sorted(h.title for h in found.hits) == [
            "Paint the loading ramp",
            "Sweep the loading bay",
        ]
        await service.aclose()
        nursery.cancel_scope.cancel()
