"""The list-query compiler, executed against a real records table on both backends: an
in-memory SQLite database and a throwaway PostgreSQL database (which must be reachable)."""

from __future__ import annotations

import asyncio
import json
import secrets
import sqlite3
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import replace
from typing import Any, TypeVar

import asyncpg
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from fieldhouse.model.listquery import Condition, Group, ListQuery, parse_list_query
from fieldhouse.model.schema import FieldDef, ModuleDef, ModuleSchema
from fieldhouse.storage.migrations import migrate_postgres
from fieldhouse.storage.sqldialect import POSTGRES, SQLITE, Dialect, check_key
from fieldhouse.storage.sqlquery import compile_list
from tests.pgtools import database_url, run_admin

T = TypeVar("T")

ACCOUNT, MODULE = "acct-1", "mod-1"
L1, L2, L3 = (f"00000000-0000-4000-8000-00000000000{i}" for i in (1, 2, 3))
T1, T2 = (f"00000000-0000-4000-9000-00000000000{i}" for i in (1, 2))
C1, C2 = "11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222"
O1, O2 = "33333333-3333-4333-8333-333333333333", "44444444-4444-4444-8444-444444444444"


def _field(slug: str, data_type: str, config: Mapping[str, Any] | None = None) -> FieldDef:
    return FieldDef(f"f-{slug}", MODULE, slug, slug, slug, data_type, config or {})


SCHEMA = ModuleSchema(
    module=ModuleDef(MODULE, ACCOUNT, "Deals", "deals"),
    fields=(
        _field("title", "text"),
        _field("status", "select", {"options": ["open", "closed", "won"]}),
        _field("tags", "multi_select", {"options": ["a", "b", "c"]}),
        _field("amount", "number"),
        _field("price", "currency", {"currency": {"defaultCurrency": "USD"}}),
        _field("active", "boolean"),
        _field("due", "date"),
        _field("period", "date_range"),
        _field("at", "time"),
        _field("company", "reference", {"reference": {"selectionMode": "single"}}),
        _field("owners", "reference", {"reference": {"selectionMode": "multi"}}),
        _field("emails", "email", {"email": {"allowMultiple": True}}),
        _field("website", "url"),
        _field("deal-number", "autonumber"),
        _field("score", "formula", {"formula": {"resultType": "number"}}),
        _field("count", "rollup"),
        _field("addr", "address"),
        _field("seq", "number"),
    ),
    views=(),
    references=(),
)

FIELDS: dict[str, dict[str, Any]] = {
    "r01": {
        "title": "Hello World",
        "status": "open",
        "tags": ["a", "b"],
        "amount": 10,
        "price": {"amount": 100, "currency": "USD"},
        "active": True,
        "due": "2026-01-05",
        "period": {"start": "2026-01-01", "end": "2026-01-10"},
        "at": "09:00",
        "company": {"recordId": C1, "displayName": "Acme"},
        "owners": [{"recordId": O1, "displayName": "Zed"}, {"recordId": O2, "displayName": "Amy"}],
        "emails": [{"id": "e1", "value": "x@ex.com", "isPrimary": True}],
        "website": "https://a.example",
        "deal-number": "DEAL-00001",
        "score": 5,
        "count": 2,
        "addr": {"city": "Paris", "country": "FR"},
    },
    "r02": {
        "title": "hello there",
        "status": "closed",
        "tags": ["b"],
        "amount": 2.5,
        "price": {"amount": 50, "currency": "USD"},
        "active": False,
        "due": "2026-02-01",
        "at": "13:30",
        "company": {"recordId": C2, "displayName": "Beta Corp"},
        "owners": [{"recordId": O2, "displayName": "Amy"}],
        "emails": [{"id": "e2", "value": "Y@EX.com"}, {"id": "e3", "value": "z@other.org"}],
        "deal-number": "DEAL-00002",
        "score": 1.5,
        "count": 0,
    },
    "r03": {
        "title": "100% sure_thing",
        "status": "open",
        "tags": [],
        "amount": -3,
        "price": {"amount": 75.5, "currency": "EUR"},
        "active": True,
        "due": "2025-12-31",
        "company": None,
        "deal-number": "DEAL-00003",
    },
    "r04": {"title": "", "amount": 0, "active": False},
    "r05": {
        "title": "back\\slash",
        "status": "won",
        "tags": ["c"],
        "amount": 1000,
        "price": {"amount": 1000, "currency": "USD"},
        "due": "2026-01-05",
        "period": {"start": "2026-03-01", "end": "2026-03-02"},
        "at": "23:59",
    },
    "r06": {
        "title": 'Quote\'s "x"',
        "amount": 10,
        "tags": ["a"],
        "company": {"recordId": C1, "displayName": "Acme"},
    },
    "r07": {"title": "ÉCOLE", "status": "open"},
    "r08": {},
    "r09": {"title": None, "amount": None, "tags": None},
    "r10": {
        "title": "under_score",
        "amount": 7,
        "price": {"amount": 7, "currency": "USD"},
        "active": True,
        "due": "2026-01-06",
    },
    **{f"r{n}": {"title": f"Item {n}", "seq": n} for n in range(11, 21)},
}
NAMES = dict(
    zip(
        [f"r{n:02d}" for n in range(1, 11)],
        [
            "Alpha deal",
            "beta",
            "Gamma",
            "delta",
            "Epsilon",
            "zeta",
            "Eta",
            "theta",
            "Iota",
            "kappa",
        ],
        strict=True,
    )
)
LABELS = {"r01": [L1], "r02": [L1, L2], "r03": [L2], "r05": [L3]}
TYPES = {"r01": [T1], "r03": [T1], "r02": [T2]}
ALL = set(FIELDS)


def _created(rid: str) -> str:
    n = int(rid[1:])
    return f"2026-01-{n:02d}T10:00:00.000000Z" if n <= 10 else "2026-02-01T00:00:00.000000Z"


def _rows() -> list[tuple[str, str, str, str, str, str, str, str, str, str | None]]:
    """Every records row: (id, account, module, name, fields, labels, types, created, updated,
    deleted), JSON documents as text."""
    rows: list[tuple[str, str, str, str, dict[str, Any], str, str, str | None]] = []
    for rid, fields in FIELDS.items():
        created = _created(rid)
        updated = "2026-03-01T00:00:00.000000Z" if rid == "r01" else created
        name = NAMES.get(rid, f"Item {rid[1:]}")
        rows.append((rid, ACCOUNT, MODULE, name, fields, created, updated, None))
    # Copies of r01 that scoping must hide: other account, other module, deleted.
    r01 = FIELDS["r01"]
    rows += [
        ("x1", "acct-2", MODULE, "Alpha deal", r01, _created("r01"), _created("r01"), None),
        ("x2", ACCOUNT, "mod-2", "Alpha deal", r01, _created("r01"), _created("r01"), None),
        ("x3", ACCOUNT, MODULE, "Alpha deal", r01, _created("r01"), _created("r01"), "2026-01"),
    ]
    return [
        (
            rid,
            acct,
            mod,
            name,
            json.dumps(fields, ensure_ascii=False),
            json.dumps(LABELS.get(rid, [])),
            json.dumps(TYPES.get(rid, [])),
            created,
            updated,
            deleted,
        )
        for rid, acct, mod, name, fields, created, updated, deleted in rows
    ]


class Backend(ABC):
    """A records table the compiled SQL runs against."""

    dialect: Dialect

    @abstractmethod
    def fetch_ids(self, sql: str, params: Sequence[Any]) -> list[str]:
        """The first column of every row ``sql`` returns."""

    @abstractmethod
    def insert_record(self, rid: str, fields: Mapping[str, Any]) -> None:
        """Insert a live record of ACCOUNT/MODULE (inside :meth:`savepoint`)."""

    @abstractmethod
    def savepoint(self) -> AbstractContextManager[None]:
        """Changes made inside are rolled back on exit."""


class SQLiteBackend(Backend):
    dialect = SQLITE

    def __init__(self) -> None:
        self.conn = sqlite3.connect(":memory:")
        self.conn.execute(
            "CREATE TABLE records (id TEXT PRIMARY KEY, account_id TEXT, module_id TEXT,"
            " display_name TEXT, fields TEXT, label_ids TEXT, type_ids TEXT, created_at TEXT,"
            " updated_at TEXT, deleted_at TEXT NULL)"
        )
        self.conn.executemany(
            "INSERT INTO records (id, account_id, module_id, display_name, fields, label_ids,"
            " type_ids, created_at, updated_at, deleted_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            _rows(),
        )

    def fetch_ids(self, sql: str, params: Sequence[Any]) -> list[str]:
        return [row[0] for row in self.conn.execute(sql, list(params))]

    def insert_record(self, rid: str, fields: Mapping[str, Any]) -> None:
        self.conn.execute(
            "INSERT INTO records VALUES (?, ?, ?, ?, ?, '[]', '[]', 'z', 'z', NULL)",
            (rid, ACCOUNT, MODULE, rid, json.dumps(fields, ensure_ascii=False)),
        )

    @contextmanager
    def savepoint(self) -> Iterator[None]:
        self.conn.execute("SAVEPOINT hyp")
        try:
            yield
        finally:
            self.conn.execute("ROLLBACK TO hyp")
            self.conn.execute("RELEASE hyp")

    def close(self) -> None:
        self.conn.close()


class PostgresBackend(Backend):
    """A fresh database with the real schema, driven synchronously on a private event loop
    (these tests are plain functions: no trio or asyncio loop is running)."""

    dialect = POSTGRES

    def __init__(self, name: str) -> None:
        self.loop = asyncio.new_event_loop()
        self.conn: asyncpg.Connection = self.run(asyncpg.connect(database_url(name), timeout=10))
        self.run(migrate_postgres(self.conn))
        self.run(
            self.conn.executemany(
                "INSERT INTO records (id, account_id, module_id, display_name, fields,"
                " label_ids, type_ids, created_at, updated_at, deleted_at)"
                " VALUES ($1, $2, $3, $4, $5::jsonb, $6::jsonb, $7::jsonb, $8, $9, $10)",
                _rows(),
            )
        )

    def run(self, aw: Awaitable[T]) -> T:
        async def wrapped() -> T:
            return await aw

        return self.loop.run_until_complete(wrapped())

    def fetch_ids(self, sql: str, params: Sequence[Any]) -> list[str]:
        return [row[0] for row in self.run(self.conn.fetch(POSTGRES.native(sql), *params))]

    def insert_record(self, rid: str, fields: Mapping[str, Any]) -> None:
        self.run(
            self.conn.execute(
                "INSERT INTO records (id, account_id, module_id, display_name, fields,"
                " created_at, updated_at) VALUES ($1, $2, $3, $1, $4::jsonb, 'z', 'z')",
                rid,
                ACCOUNT,
                MODULE,
                json.dumps(fields, ensure_ascii=False),
            )
        )

    @contextmanager
    def savepoint(self) -> Iterator[None]:
        tr = self.conn.transaction()
        self.run(tr.start())
        try:
            yield
        finally:
            self.run(tr.rollback())

    def close(self) -> None:
        try:
            self.run(self.conn.close())
        finally:
            self.loop.close()


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def db(request: pytest.FixtureRequest) -> Iterator[Backend]:
    """The records table on SQLite and on a real PostgreSQL (which must be reachable)."""
    if request.param == "sqlite":
        lite = SQLiteBackend()
        yield lite
        lite.close()
        return
    name = f"fh_sqlq_{secrets.token_hex(6)}"
    run_admin(f"CREATE DATABASE {name}")
    try:
        pg = PostgresBackend(name)
        try:
            yield pg
        finally:
            pg.close()
    finally:
        run_admin(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


Args = Mapping[str, str] | Sequence[tuple[str, str]]


def run(db: Backend, args: Args, *, limit: int | None = None) -> list[str]:
    query = parse_list_query(args, SCHEMA)
    return run_query(db, query, limit=limit)


def run_query(db: Backend, query: ListQuery, *, limit: int | None = None) -> list[str]:
    c = compile_list(query, SCHEMA, db.dialect, account_id=ACCOUNT, module_id=MODULE)
    assert c.where.count("?") == len(c.params)
    sql = f"SELECT r.id FROM records r WHERE {c.where} ORDER BY {c.order_by}"
    params = list(c.params)
    if limit is not None:
        sql += " LIMIT ? OFFSET ?"
        params += [query.page_size, query.offset]
    return db.fetch_ids(sql, params)


def adv(field: str, op: str, value: Any = None, values: Any = None) -> dict[str, str]:
    cond: dict[str, Any] = {"id": "c1", "fieldSlug": field, "operator": op}
    if value is not None:
        cond["value"] = value
    if values is not None:
        cond["values"] = values
    return {"advancedFilter": json.dumps({"root": {"conjunction": "AND", "conditions": [cond]}})}


def rs(*ids: str) -> set[str]:
    return set(ids)


ITEMS = {f"r{n}" for n in range(11, 21)}

# (field, operator, value, values, expected ids)
OPERATOR_CASES: list[tuple[str, str, Any, Any, set[str]]] = [
    # text: case-insensitive eq, LIKE with escaping
    ("title", "eq", "hello WORLD", None, rs("r01")),
    ("title", "neq", "hello world", None, ALL - rs("r01")),
    ("title", "contains", "HELLO", None, rs("r01", "r02")),
    ("title", "contains", "%", None, rs("r03")),
    ("title", "contains", "_", None, rs("r03", "r10")),
    ("title", "contains", "\\", None, rs("r05")),
    ("title", "contains", "'", None, rs("r06")),
    ("title", "contains", '"x"', None, rs("r06")),
    ("title", "contains", "cole", None, rs("r07")),
    ("title", "notContains", "hello", None, ALL - rs("r01", "r02")),
    ("title", "startsWith", "hello", None, rs("r01", "r02")),
    ("title", "startsWith", "100%", None, rs("r03")),
    ("title", "startsWith", "100_", None, set()),
    ("title", "endsWith", "WORLD", None, rs("r01")),
    ("title", "endsWith", "_thing", None, rs("r03")),
    ("title", "in", None, ["HELLO THERE", "under_score"], rs("r02", "r10")),
    ("title", "notIn", None, ["HELLO THERE", "under_score"], ALL - rs("r02", "r10")),
    ("title", "isNull", None, None, rs("r04", "r08", "r09")),
    ("title", "isNotNull", None, None, ALL - rs("r04", "r08", "r09")),
    # select: exact
    ("status", "eq", "open", None, rs("r01", "r03", "r07")),
    ("status", "eq", "OPEN", None, set()),
    ("status", "neq", "open", None, ALL - rs("r01", "r03", "r07")),
    ("status", "in", None, ["won", "closed"], rs("r02", "r05")),
    # numbers
    ("amount", "eq", 10, None, rs("r01", "r06")),
    ("amount", "eq", "10", None, rs("r01", "r06")),
    ("amount", "neq", 10, None, ALL - rs("r01", "r06")),
    ("amount", "gt", 7, None, rs("r01", "r05", "r06")),
    ("amount", "gte", 7, None, rs("r01", "r05", "r06", "r10")),
    ("amount", "lt", 0, None, rs("r03")),
    ("amount", "lte", 0, None, rs("r03", "r04")),
    ("amount", "between", None, [0, 10], rs("r01", "r02", "r04", "r06", "r10")),
    ("amount", "in", None, [10, -3], rs("r01", "r03", "r06")),
    ("amount", "notIn", None, [10, -3], ALL - rs("r01", "r03", "r06")),
    ("amount", "isNull", None, None, ALL - rs("r01", "r02", "r03", "r04", "r05", "r06", "r10")),
    ("amount", "isNotNull", None, None, rs("r01", "r02", "r03", "r04", "r05", "r06", "r10")),
    ("price", "gt", 60, None, rs("r01", "r03", "r05")),
    ("price", "eq", 50, None, rs("r02")),
    ("price", "between", None, [7, 75.5], rs("r02", "r03", "r10")),
    ("score", "gte", 5, None, rs("r01")),
    ("score", "lt", 2, None, rs("r02")),
    ("count", "eq", 0, None, rs("r02")),
    # boolean
    ("active", "eq", True, None, rs("r01", "r03", "r10")),
    ("active", "eq", "false", None, rs("r02", "r04")),
    ("active", "neq", True, None, ALL - rs("r01", "r03", "r10")),
    ("active", "isNull", None, None, ALL - rs("r01", "r02", "r03", "r04", "r10")),
    # dates, date ranges, times
    ("due", "before", "2026-01-05", None, rs("r03")),
    ("due", "after", "2026-01-05", None, rs("r02", "r10")),
    ("due", "eq", "2026-01-05", None, rs("r01", "r05")),
    ("due", "gte", "2026-01-06", None, rs("r02", "r10")),
    ("due", "lte", "2026-01-05T23:00:00Z", None, rs("r01", "r03", "r05")),
    ("due", "between", None, ["2026-01-01", "2026-01-31"], rs("r01", "r05", "r10")),
    ("period", "after", "2026-01-15", None, rs("r05")),
    ("period", "isNull", None, None, ALL - rs("r01", "r05")),
    ("at", "gt", "12:00", None, rs("r02", "r05")),
    ("at", "between", None, ["09:00", "14:00"], rs("r01", "r02")),
    # created_at / updated_at (date-only operand = the whole UTC day)
    ("created_at", "before", "2026-01-03", None, rs("r01", "r02")),
    ("created_at", "after", "2026-01-09", None, rs("r10") | ITEMS),
    ("created_at", "eq", "2026-01-05", None, rs("r05")),
    ("created_at", "lte", "2026-01-02", None, rs("r01", "r02")),
    ("created_at", "gte", "2026-01-10", None, rs("r10") | ITEMS),
    ("created_at", "between", None, ["2026-01-02", "2026-01-03"], rs("r02", "r03")),
    (
        "createdDateTime",
        "after",
        "2026-01-05T10:00:00Z",
        None,
        ITEMS | rs("r06", "r07", "r08", "r09", "r10"),
    ),
    ("updated_at", "after", "2026-02-15", None, rs("r01")),
    ("displayName", "contains", "TA", None, rs("r02", "r04", "r06", "r07", "r08", "r09")),
    # multi_select: any element
    ("tags", "eq", "a", None, rs("r01", "r06")),
    ("tags", "neq", "a", None, ALL - rs("r01", "r06")),
    ("tags", "in", None, ["b", "c"], rs("r01", "r02", "r05")),
    ("tags", "notIn", None, ["b", "c"], ALL - rs("r01", "r02", "r05")),
    ("tags", "contains", "A", None, rs("r01", "r06")),
    ("tags", "isNull", None, None, ALL - rs("r01", "r02", "r05", "r06")),
    ("tags", "isNotNull", None, None, rs("r01", "r02", "r05", "r06")),
    # references: recordId for equality, displayName for substrings
    ("company", "eq", C1, None, rs("r01", "r06")),
    ("company", "eq", C1.upper(), None, rs("r01", "r06")),
    ("company", "neq", C1, None, ALL - rs("r01", "r06")),
    ("company", "contains", "corp", None, rs("r02")),
    ("company", "isNull", None, None, ALL - rs("r01", "r02", "r06")),
    ("owners", "eq", O2, None, rs("r01", "r02")),
    ("owners", "eq", O1, None, rs("r01")),
    ("owners", "contains", "zed", None, rs("r01")),
    ("owners", "notIn", None, [O1], ALL - rs("r01")),
    # multi email entries: any entry's value
    ("emails", "eq", "y@ex.com", None, rs("r02")),
    ("emails", "contains", "@ex.com", None, rs("r01", "r02")),
    ("emails", "endsWith", ".org", None, rs("r02")),
    ("website", "eq", "https://a.example", None, rs("r01")),
    ("deal-number", "eq", "deal-00002", None, rs("r02")),
    ("deal-number", "startsWith", "DEAL-0000", None, rs("r01", "r02", "r03")),
    # opaque: JSON text
    ("addr", "contains", "paris", None, rs("r01")),
    ("addr", "notContains", "paris", None, ALL - rs("r01")),
    ("addr", "isNull", None, None, ALL - rs("r01")),
]


@pytest.mark.parametrize(("field", "op", "value", "values", "expected"), OPERATOR_CASES)
def test_operator(
    db: Backend, field: str, op: str, value: Any, values: Any, expected: set[str]
) -> None:
    assert set(run(db, adv(field, op, value, values))) == expected


def test_every_operator_is_covered() -> None:
    from fieldhouse.model.listquery_kinds import OPERATORS

    assert {case[1] for case in OPERATOR_CASES} == set(OPERATORS)


def _tree(root: dict[str, Any]) -> dict[str, str]:
    return {"advancedFilter": json.dumps({"root": root})}


def _c(field: str, op: str, value: Any) -> dict[str, Any]:
    return {"id": "x", "fieldSlug": field, "operator": op, "value": value}


def test_nested_groups(db: Backend) -> None:
    won_big = {
        "conjunction": "AND",
        "conditions": [_c("amount", "gt", 100), _c("status", "eq", "won")],
    }
    root = {"conjunction": "OR", "conditions": [_c("title", "contains", "hello"), won_big]}
    assert set(run(db, _tree(root))) == rs("r01", "r02", "r05")

    either = {
        "conjunction": "OR",
        "conditions": [_c("status", "eq", "open"), _c("status", "eq", "closed")],
    }
    root = {"conjunction": "AND", "conditions": [either, _c("active", "eq", True)]}
    assert set(run(db, _tree(root))) == rs("r01", "r03")

    deep = {"conjunction": "AND", "conditions": [_c("company", "eq", C1)]}
    mid = {"conjunction": "OR", "conditions": [_c("amount", "eq", 2.5), deep]}
    root = {"conjunction": "AND", "conditions": [_c("tags", "isNotNull", None), mid]}
    assert set(run(db, _tree(root))) == rs("r01", "r02", "r06")


def test_empty_groups_match_everything(db: Backend) -> None:
    assert set(run(db, _tree({"conjunction": "OR", "conditions": []}))) == ALL
    empty = {"conjunction": "AND", "conditions": []}
    assert set(run(db, _tree({"conjunction": "OR", "conditions": [empty]}))) == ALL


def test_scoping_hides_other_accounts_modules_and_deleted(db: Backend) -> None:
    assert set(run(db, {})) == ALL
    assert set(run(db, adv("title", "eq", "Hello World"))) == rs("r01")


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ([("filter[status]", "open,won")], rs("r01", "r03", "r05", "r07")),
        ([("filter[status]", "open,won"), ("filter[tags]", "a")], rs("r01")),
        ([("filter[status]", "open"), ("filter[status]", "won")], set()),
        ([("filter[tags]", "b,c")], rs("r01", "r02", "r05")),
        ([("filter[amount]", "10,2.5")], rs("r01", "r02", "r06")),
        ([("filter[amount]", "abc")], set()),
        ([("filter[active]", "TRUE")], rs("r01", "r03", "r10")),
        ([("filter[company]", C1)], rs("r01", "r06")),
        ([("filter[owners]", O1)], rs("r01")),
        ([("filter[price]", "100")], rs("r01")),
        ([("filter[displayName]", "beta")], rs("r02")),
        ([("filter[due]", "2026-01-05")], rs("r01", "r05")),
        ([("filter[title]", "hello world")], set()),  # exact, case-sensitive
        ([("filter[emails]", "z@other.org")], rs("r02")),
        ([("filter[period]", "2026-03-01")], rs("r05")),
    ],
)
def test_simple_filters(db: Backend, args: list[tuple[str, str]], expected: set[str]) -> None:
    assert set(run(db, args)) == expected


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"labelIds": L1}, rs("r01", "r02")),
        ({"labelIds": f"{L1},{L3}"}, rs("r01", "r02", "r05")),
        ({"labelIds": L1.upper()}, rs("r01", "r02")),
        ({"typeIds": T1}, rs("r01", "r03")),
        ({"labelIds": L2, "typeIds": T1}, rs("r03")),
        ({"labelIds": L1, "filter[status]": "closed"}, rs("r02")),
        ({"labelIds": L1, **adv("amount", "gt", 5)}, rs("r01")),
    ],
)
def test_labels_and_types(db: Backend, args: dict[str, str], expected: set[str]) -> None:
    assert set(run(db, args)) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("hello", rs("r01", "r02")),
        ("ALPHA", rs("r01")),
        ("paris", rs("r01")),
        ("100%", rs("r03")),
        ("%", rs("r03")),
        ("_", rs("r03", "r10")),
        ("École", rs("r07")),
        ("item 1", {f"r{n}" for n in range(11, 20)}),
        ("nothing-like-this", set()),
    ],
)
def test_search(db: Backend, text: str, expected: set[str]) -> None:
    assert set(run(db, {"search": text})) == expected


def test_search_combines_with_filters(db: Backend) -> None:
    assert set(run(db, {"search": "hello", "filter[status]": "open"})) == rs("r01")


ITEM_IDS = [f"r{n}" for n in range(11, 21)]
NULL_TITLE = ["r09", "r08", "r04"]  # "", missing and null are all empty; id DESC among them
NULL_AMOUNT = ["r07", "r08", "r09", *ITEM_IDS]


@pytest.mark.parametrize(
    ("field", "direction", "expected"),
    [
        ("amount", "asc", ["r03", "r04", "r02", "r10", "r01", "r06", "r05", *NULL_AMOUNT]),
        (
            "amount",
            "desc",
            ["r05", "r06", "r01", "r10", "r02", "r04", "r03", *reversed(NULL_AMOUNT)],
        ),
        (
            "title",
            "asc",
            ["r03", "r05", "r02", "r01", *ITEM_IDS, "r06", "r10", "r07", "r04", "r08", "r09"],
        ),
        (
            "title",
            "desc",
            ["r07", "r10", "r06", *reversed(ITEM_IDS), "r01", "r02", "r05", "r03", *NULL_TITLE],
        ),
        ("price", "asc", ["r10", "r02", "r03", "r01", "r05"]),
        ("tags", "asc", ["r01", "r06", "r02", "r05"]),
        ("company", "asc", ["r01", "r06", "r02"]),
        ("company", "desc", ["r02", "r06", "r01"]),
        ("due", "desc", ["r02", "r10", "r05", "r01", "r03"]),
        ("active", "asc", ["r02", "r04", "r01", "r03", "r10"]),
        ("seq", "desc", list(reversed(ITEM_IDS))),
        (
            "displayName",
            "asc",
            ["r01", "r02", "r04", "r05", "r07", "r03", "r09", *ITEM_IDS, "r10", "r08", "r06"],
        ),
        ("created_at", "asc", sorted(ALL)),
        ("createdDateTime", "desc", sorted(ALL, reverse=True)),
        ("updated_at", "desc", ["r01", *sorted(ALL - rs("r01"), reverse=True)]),
    ],
)
def test_sort(db: Backend, field: str, direction: str, expected: list[str]) -> None:
    got = run(db, {"sortField": field, "sortDirection": direction})
    assert got[: len(expected)] == expected
    assert len(got) == len(ALL)


def test_nulls_last_both_ways(db: Backend) -> None:
    for direction in ("asc", "desc"):
        got = run(db, {"sortField": "price", "sortDirection": direction})
        assert set(got[5:]) == ALL - rs("r01", "r02", "r03", "r05", "r10")


def test_default_order_and_sort_direction_default(db: Backend) -> None:
    assert run(db, {}) == sorted(ALL, reverse=True)  # created_at DESC, id DESC
    assert run(db, {"sortDirection": "asc"}) == sorted(ALL)
    assert run(db, {"sortField": "seq"})[:3] == ["r11", "r12", "r13"]  # asc by default


@pytest.mark.parametrize(
    "sort", [{}, {"sortField": "amount"}, {"sortField": "tags", "sortDirection": "desc"}]
)
def test_pagination_is_stable(db: Backend, sort: dict[str, str]) -> None:
    full = run(db, sort)
    pages: list[str] = []
    for page in range(1, 9):
        pages += run(db, {**sort, "page": str(page), "pageSize": "3"}, limit=3)
    assert pages == full
    assert run(db, {**sort, "page": "99", "pageSize": "3"}, limit=3) == []


def test_placeholders_and_scoping_prefix() -> None:
    query = parse_list_query({**adv("amount", "in", values=[1, 2]), "search": "x"}, SCHEMA)
    c = compile_list(query, SCHEMA, SQLITE, account_id=ACCOUNT, module_id=MODULE)
    assert c.where.startswith("r.account_id = ? AND r.module_id = ? AND r.deleted_at IS NULL")
    assert c.params[:2] == [ACCOUNT, MODULE]
    assert c.params[2:] == ["%x%", "%x%", 1, 2]
    assert '"amount"' in c.where


def test_postgres_dialect_numbers_the_placeholders_in_order() -> None:
    query = parse_list_query(
        {**adv("price", "between", values=[1, 2]), "labelIds": L1, "sortField": "tags"}, SCHEMA
    )
    c = compile_list(query, SCHEMA, POSTGRES, account_id=ACCOUNT, module_id=MODULE)
    where = POSTGRES.native(c.where)
    assert where.startswith("r.account_id = $1::text AND r.module_id = $2::text")
    assert "$3::text" in where and "$5::numeric" in where and "$6" not in where
    assert "?" not in where and len(c.params) == 5
    assert "NULLS LAST" in c.order_by


def test_unsafe_keys_never_reach_sql() -> None:
    for bad in ['a"b', "a'b", "a\\b", "", "a\nb", "-x"]:
        with pytest.raises(ValueError):
            check_key(bad)
    schema = ModuleSchema(SCHEMA.module, (_field('x"y', "text"),), (), ())
    query = parse_list_query({}, SCHEMA)
    bad_query = replace(query, advanced=Group("AND", (Condition('x"y', "eq", "v", None),)))
    with pytest.raises(ValueError):
        compile_list(bad_query, schema, SQLITE, account_id=ACCOUNT, module_id=MODULE)


_TEXT = st.text(alphabet=st.characters(codec="utf-8", exclude_characters="\x00"))


def _where(value: str, dialect: Dialect = SQLITE) -> tuple[str, list[Any]]:
    conditions = [
        {"fieldSlug": "title", "operator": op, "value": value}
        for op in ("eq", "neq", "contains", "notContains", "startsWith", "endsWith")
    ] + [
        {"fieldSlug": "title", "operator": "in", "values": [value, "x"]},
        {"fieldSlug": "tags", "operator": "contains", "value": value},
        {"fieldSlug": "emails", "operator": "eq", "value": value},
    ]
    args = [
        ("advancedFilter", json.dumps({"root": {"conjunction": "OR", "conditions": conditions}})),
        ("filter[title]", value.replace(",", "") or "x"),
        ("search", value if value.strip() else "x"),
    ]
    c = compile_list(
        parse_list_query(args, SCHEMA), SCHEMA, dialect, account_id=ACCOUNT, module_id=MODULE
    )
    return c.where, c.params


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(value=st.text())
def test_arbitrary_values_never_change_sql_or_error(db: Backend, value: str) -> None:
    # PostgreSQL text cannot hold NUL at all (the server rejects it before any SQL runs)
    assume(db.dialect is SQLITE or "\x00" not in value)
    reference_sql, _ = _where("plain", db.dialect)
    sql, params = _where(value, db.dialect)
    assert sql == reference_sql
    assert value == "" or any(value in p for p in params if isinstance(p, str))
    rows = db.fetch_ids(f"SELECT r.id FROM records r WHERE {sql}", params)
    assert isinstance(rows, list)


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(value=_TEXT.filter(bool))
def test_a_stored_value_matches_itself(db: Backend, value: str) -> None:
    with db.savepoint():
        db.insert_record("hyp", {"title": value, "tags": [value]})
        for op in ("eq", "contains", "startsWith", "endsWith"):
            assert "hyp" in run(db, adv("title", op, value))
            assert "hyp" in run(db, adv("tags", op, value))
            assert "hyp" not in run(db, adv("title", "notContains", value))
        if "," not in value:
            assert "hyp" in run(db, {"filter[tags]": value})
