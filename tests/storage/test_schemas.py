"""Module schemas through the Store, on both backends: upserts, deletes, auto-numbers."""

from __future__ import annotations

from dataclasses import replace

import pytest
from pyrsistent import freeze

from fieldhouse.model.schema import FieldDef, ReferenceDef, ViewDef
from fieldhouse.storage import Store
from tests.storage.conftest import MOD, A, B

M = f"{MOD}-{A}"


async def test_upserts_update_in_place_and_deletes_remove(store: Store) -> None:
    title = FieldDef(f"f-title-{A}", M, "Title", "title", "Title", "text", {}, is_required=True)
    view = ViewDef("v1", M, "All", "all", freeze({"columns": ("title",)}))
    ref = ReferenceDef("x1", M, "company", None, None, "many_to_one", "module", "companies")
    async with store.write(A) as txn:
        await txn.upsert_fields([replace(title, label="Name", sort_order=5)])
        await txn.upsert_views([view])
        await txn.upsert_references([ref, replace(ref, reference_id="x2", slug="owner")])
    version, schemas = await store.load_schemas(A)
    deals = schemas["deals"]
    assert [f.slug for f in deals.fields] == ["amount", "title"]  # by sort order
    assert deals.field("title") == replace(title, label="Name", sort_order=5)
    assert deals.views == (replace(view, config={"columns": ["title"]}),)
    assert [r.slug for r in deals.references] == ["company", "owner"]
    async with store.write(A) as txn:
        await txn.delete_fields(M, [f"f-amount-{A}"])
        await txn.delete_views(M, ["v1"])
        await txn.delete_references(M, ["x2"])
        assert [f.slug for f in (await txn.module_schemas())["deals"].fields] == ["title"]
        assert await txn.bump_schema_version() == version + 1
    _, schemas = await store.load_schemas(A)
    assert schemas["deals"].views == () and len(schemas["deals"].references) == 1
    _, others = await store.load_schemas(B)
    assert [f.slug for f in others["deals"].fields] == ["amount", "title"]


async def test_auto_numbers_count_per_field_and_sequence(store: Store) -> None:
    number = FieldDef("f-no", M, "No", "no", "No", "autonumber", {"autonumber": {"startFrom": 0}})
    async with store.write(A) as txn:
        await txn.upsert_fields([number])
        assert [await txn.take_number(number, None) for _ in range(3)] == [0, 1, 2]
        assert await txn.take_number(number, "2026") == 0
        assert await txn.take_number(number, None) == 3
        with pytest.raises(LookupError):
            await txn.take_number(replace(number, field_id="f-missing"), None)
        with pytest.raises(TypeError, match="keeps no counter"):  # its type counts nothing
            await txn.take_number(replace(number, data_type="text"), None)
    async with store.write(B) as txn:
        with pytest.raises(LookupError):  # another workspace's field
            await txn.take_number(number, None)
