"""List totals from kept counts (PostgreSQL): always the number a count would give."""

from __future__ import annotations

from typing import Any

import asyncpg
import httpx
import pytest
import trio_asyncio

from fieldhouse.runtime import Runtime
from tests.conftest import Workspace
from tests.http.test_records_crud import create, records_url

URL = records_url("deals")


@pytest.fixture
def backend() -> str:
    return "postgres"  # kept counts are PostgreSQL's; SQLite counts (and both must agree)


async def total(client: httpx.AsyncClient, ws: Workspace, **params: Any) -> int:
    resp = await client.get(URL, headers=ws.headers, params={"pageSize": 1, **params})
    assert resp.status_code == 200, resp.text
    value: int = resp.json()["total"]
    return value


async def counted(runtime: Runtime) -> set[tuple[str, str]]:
    """The kept counts, read straight from the database."""
    conn = await trio_asyncio.aio_as_trio(asyncpg.connect)(runtime.settings.database_url)
    try:
        rows = await trio_asyncio.aio_as_trio(conn.fetch)(
            "SELECT facet, value FROM record_counts WHERE n <> 0"
        )
    finally:
        await trio_asyncio.aio_as_trio(conn.close)()
    return {(r["facet"], r["value"]) for r in rows}


async def test_totals_stay_exact_through_creates_updates_and_deletes(
    runtime: Runtime, client: httpx.AsyncClient, ws: Workspace, other_ws: Workspace
) -> None:
    ids = []
    for i, stage in enumerate(["lead", "lead", "won", "lost", "lead"]):
        made = await create(client, ws, "deals", {"name": f"D{i}", "stage": stage}, name=f"D{i}")
        ids.append(made["recordId"])
    await create(client, other_ws, "deals", {"name": "Elsewhere", "stage": "lead"})
    # the first lists start the counts (backfilled from what exists)
    assert await total(client, ws) == 5
    assert await total(client, ws, **{"filter[stage]": "lead"}) == 3
    assert ("stage", "lead") in await counted(runtime)
    # later writes move them in the same transaction
    await create(client, ws, "deals", {"name": "D5", "stage": "lead"}, name="D5")
    moved = await client.patch(
        f"{URL}/{ids[0]}", headers=ws.headers, json={"fields": {"stage": "won"}}
    )
    assert moved.status_code == 200, moved.text
    gone = await client.delete(f"{URL}/{ids[1]}", headers=ws.headers)
    assert gone.status_code in (200, 204), gone.text
    assert await total(client, ws) == 5
    assert await total(client, ws, **{"filter[stage]": "lead"}) == 2
    assert await total(client, ws, **{"filter[stage]": "won"}) == 2
    assert await total(client, ws, **{"filter[stage]": "won,lost"}) == 3
    assert await total(client, ws, **{"filter[stage]": ["won", "lost"]}) == 0  # both at once
    assert await total(client, ws, **{"filter[stage]": "proposal"}) == 0
    # another workspace's counts are its own
    assert await total(client, other_ws, **{"filter[stage]": "lead"}) == 1
    # and a filter that is not a kept count is still counted, with the same answer
    assert await total(client, ws, **{"filter[stage]": "lead", "search": "D"}) == 2
