"""What a server process's search service is made of: with the server's embedding process
(its socket set) it embeds nothing itself; without, it keeps the store's vectors current."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import trio

from fieldhouse.config import Settings
from fieldhouse.search.open import open_search_service, vector_model
from fieldhouse.storage import open_database
from fieldhouse.storage.vectors import Backlog
from tests.conftest import make_workspace
from tests.search.test_service import client_of, create, lagging  # noqa: F401


def test_the_vector_model_follows_the_settings(tmp_path: Path) -> None:
    base = Settings(data_dir=tmp_path)
    assert vector_model(base) is not None
    assert vector_model(replace(base, search_enabled=False)) is None
    assert vector_model(replace(base, embedder="none")) is None


async def test_with_the_process_away_records_wait_for_it(lagging) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    ws = await make_workspace(lagging)
    async with client_of(lagging) as client:
        await create(client, ws, "Waiting Ltd")
    assert lagging.search is not None
    assert (await lagging.search.backlog()).waiting == 1
    assert not await lagging.search.wait_fresh(ws.account_id, 0.5)


async def test_in_process_the_vectors_follow(settings: Settings) -> None:
    async with open_database(settings.resolved_database_url) as store:
        await store.create_account("acct", "A", "a", "2026-01-01T00:00:00.000000Z")
        async with open_search_service(settings, store) as service:
            assert store.vector_model == service.model
            assert await service.backlog() == Backlog(0, None)
            with trio.fail_after(5):
                assert await service.wait_fresh("acct", 5.0)
