"""The search service over a real store: words at once, vectors after, a hybrid answer that is
never worse than its keyword half while vectors lag, names first, and what it says of them."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest

from fieldhouse.config import Settings
from fieldhouse.runtime import Runtime, open_runtime
from fieldhouse.search.background import LowPriorityThread
from fieldhouse.search.embedder import make_embedder
from fieldhouse.search.embedding import embed_once
from fieldhouse.search.query_embedder import LocalQueryEmbedder
from fieldhouse.search.service import SearchService
from tests.conftest import Workspace, make_workspace

EMBEDDER = make_embedder("minilm-int8")


@pytest.fixture
async def lagging(settings: Settings, tmp_path: Path) -> AsyncIterator[Runtime]:
    """A server whose embedding process is away (its socket does not exist): records get no
    vectors unless a test embeds them (``embed_once``)."""
    away = replace(settings, embed_socket=str(tmp_path / "away.sock"))
    async with open_runtime(away) as rt:
        yield rt


async def create(client: httpx.AsyncClient, ws: Workspace, name: str, notes: str = "") -> str:
    fields: dict[str, Any] = {"name": name}
    if notes:
        fields["description"] = notes
    resp = await client.post(
        "/v1/modules/companies/records",
        json={"displayName": name, "fields": fields},
        headers=ws.headers,
    )
    assert resp.status_code == 201, resp.text
    return str(resp.json()["record"]["recordId"])


def client_of(rt: Runtime) -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=rt.app)  # type: ignore[arg-type]
    return httpx.AsyncClient(transport=transport, base_url="http://t")


async def embed_all(rt: Runtime) -> None:
    thread = LowPriorityThread()
    try:
        while await embed_once(rt.store, EMBEDDER, thread.run):
            pass
    finally:
        thread.close()


async def test_a_record_without_its_vector_ranks_by_its_keyword_score(lagging: Runtime) -> None:
    ws = await make_workspace(lagging)
    service = SearchService(lagging.store, LocalQueryEmbedder(EMBEDDER), EMBEDDER.name)
    async with client_of(lagging) as client:
        await create(client, ws, "Northwind Traders", "quarterly invoice for shipping")
        await create(client, ws, "Contoso", "an invoice about freight")
        await embed_all(lagging)
        late = await create(client, ws, "Fabrikam", "borealis invoice overdue borealis")
    query = "borealis invoice overdue"
    keyword = await service.search(
        ws.account_id, query, None, limit=10, min_similarity=0.0, mode="keyword"
    )
    hybrid = await service.search(ws.account_id, query, None, limit=10, min_similarity=0.0)
    assert keyword is not None and hybrid is not None
    assert keyword.hits[0].record_id == late
    # not embedded yet, it keeps the place its words give it
    assert hybrid.hits[0].record_id == late
    assert hybrid.hits[0].similarity is None
    assert hybrid.coverage is not None
    assert hybrid.coverage.vectors and hybrid.coverage.pending == 1
    assert hybrid.coverage.share == pytest.approx(2 / 3, abs=0.01)
    await embed_all(lagging)
    after = await service.search(ws.account_id, query, None, limit=10, min_similarity=0.0)
    assert after is not None and after.coverage is not None
    assert after.coverage.pending == 0 and after.coverage.share == 1.0
    assert after.hits[0].similarity is not None


async def test_without_the_embedding_process_the_keyword_half_answers(lagging: Runtime) -> None:
    ws = await make_workspace(lagging)
    async with client_of(lagging) as client:
        rid = await create(client, ws, "Borealis Shipping")
        resp = await client.post("/v1/search", json={"query": "borealis"}, headers=ws.headers)
    body = resp.json()
    assert [r["sourceId"] for r in body["results"]] == [rid]
    assert body["coverage"] == {"vectors": False, "vectorsWaiting": 1, "vectorShare": 0.0}


async def test_a_word_of_one_record_s_name_finds_it_first(
    client: httpx.AsyncClient, runtime: Runtime, ws: Workspace
) -> None:
    named = await create(client, ws, "Zephyr")
    for i in range(3):
        await create(client, ws, f"Notes {i}", "zephyr " * 8 + "weather wind breeze")
    assert runtime.search is not None
    assert await runtime.search.wait_fresh(ws.account_id, 60.0)
    resp = await client.post("/v1/search", json={"query": "zephyr"}, headers=ws.headers)
    assert resp.json()["results"][0]["sourceId"] == named


async def test_a_word_in_every_record_after_deletes_still_answers(
    client: httpx.AsyncClient, runtime: Runtime, ws: Workspace
) -> None:
    ids = [await create(client, ws, f"Acme branch {i}", "acme acme") for i in range(6)]
    first = await client.post("/v1/search", json={"query": "acme branch"}, headers=ws.headers)
    assert len(first.json()["results"]) == 6  # (the word counts are taken now)
    for rid in ids[:4]:
        resp = await client.delete(f"/v1/modules/companies/records/{rid}", headers=ws.headers)
        assert resp.status_code in (200, 204), resp.text
    resp = await client.post("/v1/search", json={"query": "acme branch"}, headers=ws.headers)
    body = resp.json()
    assert body["fallback"] is False
    assert sorted(r["sourceId"] for r in body["results"]) == sorted(ids[4:])


async def test_vectors_of_follows_updates_and_deletes(
    client: httpx.AsyncClient, runtime: Runtime, ws: Workspace
) -> None:
    service = runtime.search
    assert service is not None
    a = await create(client, ws, "Alpha")
    b = await create(client, ws, "Beta")
    assert await service.wait_fresh(ws.account_id, 60.0)
    index = await service.vectors_of(ws.account_id)
    assert index is not None and index.has(a) and index.has(b)
    resp = await client.delete(f"/v1/modules/companies/records/{b}", headers=ws.headers)
    assert resp.status_code in (200, 204)
    index = await service.vectors_of(ws.account_id)
    assert index is not None and index.has(a) and not index.has(b)
