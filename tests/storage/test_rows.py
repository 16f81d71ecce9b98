"""Domain values to columns and back: every column of a schema or a record survives a write
and a read on both backends (JSON as JSON, booleans as booleans, NULL as None), an upsert
keeps what it must, and auto-number counters advance from their start."""

from __future__ import annotations

import dataclasses

import pytest
from pyrsistent import freeze

from fieldhouse.model.records import RecordRow
from fieldhouse.model.schema import FieldDef, ModuleDef, ModuleSchema, ReferenceDef, ViewDef
from fieldhouse.storage import Store
from fieldhouse.storage.rows import FIELDS, Table, dumps, loads
from tests.storage.conftest import AT, A, B

LATER = "2026-02-02T00:00:00.000000Z"
MODULE = ModuleDef("mod-x", A, "Projects", "projects", True, "projects", "1.2.0", AT, AT)
CONFIG = {"options": ["ä", "✓"], "nested": {"n": 1.5, "flag": False, "none": None}}
FIELD_A = FieldDef(
    "f-a", "mod-x", "Alpha", "alpha", "Älpha", "select", CONFIG, True, True, "role", 2, True, AT, AT
)
FIELD_B = FieldDef("f-b", "mod-x", "Beta", "beta", "Beta", "text", {}, sort_order=1)
FIELD_C = FieldDef("f-c", "mod-x", "Gamma", "gamma", "Gamma", "number", {}, sort_order=1)
VIEWS = (
    ViewDef("v-2", "mod-x", "Board", "board", {"columns": ["alpha"]}, False, 0),
    ViewDef("v-1", "mod-x", "All", "all", {}, True, 5),
)
REFS = (
    ReferenceDef("r-1", "mod-x", "owner", "f-a", "alpha", "many_to_one", "module", "deals"),
    ReferenceDef(
        "r-2",
        "mod-x",
        "lead",
        None,
        None,
        "one_to_many",
        "user",
        None,
        {"role": ["admin"]},
        True,
        True,
        True,
        True,
    ),
)


async def write_schema(store: Store) -> None:
    async with store.write(A) as txn:
        await txn.insert_module(MODULE)
        await txn.upsert_fields([FIELD_A, FIELD_B, FIELD_C])
        await txn.upsert_views(list(VIEWS))
        await txn.upsert_references(list(REFS))


async def test_a_schema_reads_back_as_written(store: Store) -> None:
    await write_schema(store)
    _, schemas = await store.load_schemas(A)
    assert schemas["projects"] == ModuleSchema(
        MODULE,
        (FIELD_B, FIELD_C, FIELD_A),  # by sort order, then slug
        (VIEWS[0], VIEWS[1]),
        (REFS[1], REFS[0]),  # by slug
    )
    field = schemas["projects"].field("alpha")
    assert field is not None and field.is_required is True and field.config == CONFIG
    _, others = await store.load_schemas(B)
    assert "projects" not in others  # rows are read per workspace


async def test_an_upserted_field_keeps_its_module_and_creation(store: Store) -> None:
    await write_schema(store)
    changed = FieldDef(
        "f-a",
        "mod-elsewhere",
        "Alpha",
        "alpha",
        "Renamed",
        "select",
        {"options": []},
        created_at=LATER,
        updated_at=LATER,
    )
    async with store.write(A) as txn:
        await txn.upsert_fields([changed])
    _, schemas = await store.load_schemas(A)
    field = schemas["projects"].field("alpha")
    assert field is not None
    assert (field.label, field.config, field.is_required, field.updated_at) == (
        "Renamed",
        {"options": []},
        False,
        LATER,
    )
    assert (field.module_id, field.created_at) == ("mod-x", AT)


@pytest.mark.parametrize(
    "row",
    [
        RecordRow(
            "rec-full",
            A,
            "mod-1-acct-a",
            "Ünïcode ✓",
            {
                "title": "x",
                "amount": 1.25,
                "tags": ["a", "b"],
                "done": False,
                "gone": None,
                "who": {"userId": "u-1", "displayName": "Ann"},
            },
            AT,
            LATER,
            "u-1",
            "u-2",
            "Ann",
            "Bob",
            ["l-1"],
            ["t-1", "t-2"],
            "private",
            "<p>Hi</p>",
            "u-3",
        ),
        RecordRow("rec-bare", A, "mod-1-acct-a", "Bare", {}, AT, AT, None, None),
    ],
    ids=["every-column", "defaults"],
)
async def test_a_record_reads_back_as_written(store: Store, row: RecordRow) -> None:
    async with store.write(A) as txn:
        await txn.insert_record(row)
    assert await store.get_record(A, row.module_id, row.record_id) == row
    assert await store.get_record(B, row.module_id, row.record_id) is None


def test_frozen_configs_are_written_as_json() -> None:
    """Schemas the actors hold are frozen (pyrsistent); they go to the database as JSON."""
    frozen = freeze({"options": ["a", "b"], "nested": {"x": 1}})
    assert loads(dumps(frozen)) == {"options": ["a", "b"], "nested": {"x": 1}}
    assert FIELDS.values(FIELD_B, account_id=A)[1] == A  # the column the value does not hold
    assert loads(None) is None
    with pytest.raises(TypeError, match="not JSON serializable: set"):
        dumps({"s": {1}})


class _Row(tuple):  # type: ignore[type-arg]
    """A driver row: values by position, and the column names."""

    names: tuple[str, ...] = ()

    def keys(self) -> tuple[str, ...]:
        return self.names


def _row(**values: object) -> _Row:
    row = _Row(values.values())
    row.names = tuple(values)
    return row


@dataclasses.dataclass(frozen=True)
class _Pair:
    key: str
    tags: list[str] = dataclasses.field(default_factory=list)


@dataclasses.dataclass(frozen=True)
class _Checked:
    key: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "key", self.key.upper())


def test_rows_read_into_frozen_values_equal_to_constructed_ones() -> None:
    table = Table("pairs", _Pair, {"k": "key", "t": "tags"}, json=frozenset({"t"}))
    read = table.read_all([_row(k="a", t='["x"]'), _row(k="b", t=None)])
    assert read == [_Pair("a", ["x"]), _Pair("b", None)]  # type: ignore[arg-type]
    assert hash(read[0].key) == hash("a") and read[0] != _Pair("a")
    with pytest.raises(dataclasses.FrozenInstanceError):
        read[0].key = "c"  # type: ignore[misc]
    # a row without every field: the constructor fills in the defaults
    partial = Table("pairs", _Pair, {"k": "key"})
    assert partial.read(_row(k="a")) == _Pair("a", [])
    # a value that checks itself after __init__ goes through it
    checked = Table("checked", _Checked, {"k": "key"})
    assert checked.read_all([_row(k="a")]) == [_Checked("A")]
    assert checked.read_all([]) == []
