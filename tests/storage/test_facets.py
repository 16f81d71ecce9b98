"""List totals from kept counts (both engines): always the number a count would give."""

from __future__ import annotations

import sqlite3
from typing import Any

import asyncpg
import httpx
import trio_asyncio

from fieldhouse.runtime import Runtime
from tests.conftest import Workspace
from tests.http.test_records_crud import create, records_url

URL = records_url("deals")


async def total(client: httpx.AsyncClient, ws: Workspace, **params: Any) -> int:
    resp = await client.get(URL, headers=ws.headers, params={"pageSize": 1, **params})
    assert resp.status_code == 200, resp.text
    value: int = resp.json()["total"]
    return value


async def sql(runtime: Runtime, statement: str, *args: Any) -> list[tuple[Any, ...]]:
    """Run one statement straight on the database (``?`` placeholders), as a tool beside
    the server would: no actor, no store."""
    url = runtime.settings.database_url
    if not url:
        with sqlite3.connect(runtime.settings.data_dir / "fieldhouse.sqlite3", timeout=10) as db:
            return db.execute(statement, args).fetchall()
    for n in range(len(args)):
        statement = statement.replace("?", f"${n + 1}", 1)
    conn = await trio_asyncio.aio_as_trio(asyncpg.connect)(url)
    try:
        found = await trio_asyncio.aio_as_trio(conn.fetch)(statement, *args)
    finally:
        await trio_asyncio.aio_as_trio(conn.close)()
    return [tuple(r) for r in found]


async def counted(runtime: Runtime) -> set[tuple[str, str]]:
    """The kept counts, read straight from the database."""
    found = await sql(runtime, "SELECT facet, value FROM record_counts WHERE n <> 0")
    return {(facet, value) for facet, value in found}


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


async def test_writes_made_beside_the_server_are_counted(
    runtime: Runtime, client: httpx.AsyncClient, ws: Workspace
) -> None:
    """The counts are kept by the database itself: an insert, an update and a delete made
    with plain SQL (a restore, an import, an operator's fix) move them as the API's do."""
    first = await create(client, ws, "deals", {"name": "A", "stage": "lead"}, name="A")
    await create(client, ws, "deals", {"name": "B", "stage": "won"}, name="B")
    assert await total(client, ws, **{"filter[stage]": "lead"}) == 1  # counted from here
    assert await total(client, ws) == 2
    columns = (
        "account_id, module_id, display_name, fields, label_ids, type_ids, privacy_level,"
        " description_html, owner_user_id, created_at, updated_at, created_by, updated_by,"
        " created_by_name, updated_by_name, deleted_at"
    )
    await sql(
        runtime,
        f"INSERT INTO records (id, {columns}) SELECT ?, {columns} FROM records WHERE id = ?",
        "copied-record",
        first["recordId"],
    )
    assert await total(client, ws, **{"filter[stage]": "lead"}) == 2
    assert await total(client, ws) == 3
    await sql(
        runtime,
        "UPDATE records SET fields = ? WHERE id = ?",
        '{"name": "A", "stage": "won"}',
        "copied-record",
    )
    assert await total(client, ws, **{"filter[stage]": "lead"}) == 1
    assert await total(client, ws, **{"filter[stage]": "won"}) == 2
    await sql(runtime, "UPDATE records SET deleted_at = updated_at WHERE id = ?", "copied-record")
    assert await total(client, ws, **{"filter[stage]": "won"}) == 1
    assert await total(client, ws) == 2
    await sql(runtime, "UPDATE records SET deleted_at = NULL WHERE id = ?", "copied-record")
    assert await total(client, ws, **{"filter[stage]": "won"}) == 2
    await sql(runtime, "DELETE FROM records WHERE id = ?", "copied-record")
    assert await total(client, ws, **{"filter[stage]": "won"}) == 1
    assert await total(client, ws) == 2
    live = await sql(
        runtime,
        "SELECT count(*) FROM records WHERE account_id = ? AND deleted_at IS NULL",
        ws.account_id,
    )
    assert live == [(2,)]
