"""Many records in one message (no HTTP), on both backends: all or nothing for the batch
endpoint, each item alone for imports, and upserts only by a unique field."""

from __future__ import annotations

from typing import Any

import pytest

from fieldhouse.actors.batch_ops import BatchItem, BatchWrite
from fieldhouse.model.errors import BadRequest, ValidationFailed
from fieldhouse.model.listquery import parse_list_query
from fieldhouse.runtime import Runtime
from tests.conftest import Workspace


async def deals(runtime: Runtime, ws: Workspace) -> Any:
    schema = (await runtime.actors.schemas.get(ws.account_id)).get("deals")
    assert schema is not None
    return schema


def item(name: str, stage: str = "lead") -> BatchItem:
    return BatchItem(name, {"name": name, "stage": stage})


async def names(runtime: Runtime, ws: Workspace) -> list[str]:
    schema = await deals(runtime, ws)
    rows, _ = await runtime.store.list_records(ws.account_id, schema, parse_list_query({}, schema))
    return sorted(r.display_name for r in rows)


async def test_one_invalid_item_fails_the_whole_batch(runtime: Runtime, ws: Workspace) -> None:
    schema = await deals(runtime, ws)
    batch = BatchWrite(
        schema.module.module_id, (item("A"), item("B", "nope"), item("C")), by=ws.system
    )
    with pytest.raises(ValidationFailed) as caught:
        await runtime.actors.ask(batch)
    assert caught.value.message == "1 of 3 records are invalid; none was written"
    assert caught.value.data == {"invalidIndexes": [1]}
    assert caught.value.issues[0].path[:2] == ("records", 1)
    assert await names(runtime, ws) == []


async def test_an_import_writes_the_valid_items_and_reports_the_rest(
    runtime: Runtime, ws: Workspace
) -> None:
    schema = await deals(runtime, ws)
    batch = BatchWrite(
        schema.module.module_id,
        (item("A"), item("B", "nope"), item("C")),
        all_or_nothing=False,
        by=ws.system,
    )
    outcome = await runtime.actors.ask(batch)
    assert [(index, created) for index, _, created in outcome.written] == [(0, True), (2, True)]
    assert [index for index, _ in outcome.rejected] == [1]
    assert await names(runtime, ws) == ["A", "C"]


async def test_upserts_need_a_unique_field(runtime: Runtime, ws: Workspace) -> None:
    schema = await deals(runtime, ws)
    module_id = schema.module.module_id
    with pytest.raises(BadRequest, match="upsertBy: module 'deals' has no field 'nope'"):
        await runtime.actors.ask(BatchWrite(module_id, (item("A"),), "nope", by=ws.system))
    with pytest.raises(BadRequest, match="upsertBy: field 'name' is not unique"):
        await runtime.actors.ask(BatchWrite(module_id, (item("A"),), "name", by=ws.system))
