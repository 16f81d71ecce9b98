"""Rows (``sqlite3.Row`` or ``asyncpg.Record``) to domain values and back, and JSON both ways.

A :class:`Table` says how one kind of domain value maps to its table's columns; the statements
of ``schemas`` and ``records`` are built from it, so a new column is one entry here (and its
migration).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

import orjson

from fieldhouse.model.records import RecordRow
from fieldhouse.model.schema import FieldDef, ModuleDef, ModuleSchema, ReferenceDef, ViewDef
from fieldhouse.storage.base import AccountRow, ApiKeyRow, UserRow

R = TypeVar("R")


def _thaw(value: Any) -> Any:
    # frozen (pyrsistent) structures in schema configs: orjson asks for what it cannot write
    if isinstance(value, Mapping):
        return dict(value)
    if type(value).__name__ == "PVector":
        return list(value)
    raise TypeError(f"{type(value).__name__} is not JSON")


def dumps(value: Any) -> str:
    return orjson.dumps(value, default=_thaw).decode()


def loads(text: str | bytes | None) -> Any:
    return None if text is None else orjson.loads(text)


class ColumnRow(Protocol):
    """What both drivers' rows offer: values by column name or position, and the names."""

    def __getitem__(self, key: str | int, /) -> Any: ...

    def keys(self) -> Any: ...


@dataclass(frozen=True)
class Table(Generic[R]):
    """How a domain value maps to the columns of its table.

    ``columns`` maps each column to the attribute holding it ("" for a column the value does
    not hold, such as the account of a field: the caller gives it). JSON columns travel as JSON
    text (None as SQL NULL); boolean columns read back as booleans (SQLite stores 0 and 1).
    """

    name: str
    make: Callable[..., R]
    columns: Mapping[str, str]
    json: frozenset[str] = frozenset()
    bools: frozenset[str] = frozenset()
    names: str = field(init=False)
    #: per set of column names a row comes with: the function that reads such a row
    _readers: dict[tuple[str, ...], Callable[[ColumnRow], R]] = field(
        init=False, default_factory=dict, compare=False, repr=False
    )

    def __post_init__(self) -> None:
        object.__setattr__(self, "names", ", ".join(self.columns))

    def read(self, r: ColumnRow) -> R:
        return self.reader(tuple(r.keys()))(r)

    def read_all(self, found: Sequence[ColumnRow]) -> list[R]:
        """The values of rows that all come with the same columns (one statement's)."""
        if not found:
            return []
        read = self.reader(tuple(found[0].keys()))
        return [read(r) for r in found]

    def reader(self, keys: tuple[str, ...]) -> Callable[[ColumnRow], R]:
        """What reads a row with these columns: by position (a name look-up in an
        sqlite3.Row compares it with every column name: 25 records took 441 us by name, 140
        by position), and, when the row holds every field of a plain dataclass, straight into
        a new instance's ``__dict__`` (a frozen dataclass's ``__init__`` sets each field
        through ``object.__setattr__``: 25 records 184 us through it, 76 without)."""
        read = self._readers.get(keys)
        if read is None:
            read = self._readers[keys] = self._reader(self._plan(keys))
        return read

    def _reader(
        self, plan: list[tuple[int, str, Callable[[Any], Any] | None]]
    ) -> Callable[[ColumnRow], R]:
        make = self.make
        if not _fills_directly(make, {attr for _, attr, _ in plan}):

            def by_init(r: ColumnRow) -> R:
                return make(**{a: r[i] if conv is None else conv(r[i]) for i, a, conv in plan})

            return by_init
        # in the order __init__ sets them: instances then share their attribute names' table
        # (key-sharing dicts), and reading an attribute stays as fast as on a constructed one
        order = {f.name: n for n, f in enumerate(dataclasses.fields(make))}  # type: ignore[arg-type]
        ordered = sorted(plan, key=lambda step: order[step[1]])
        new = object.__new__

        def direct(r: ColumnRow) -> R:
            value: R = new(make)  # type: ignore[arg-type]
            attrs = value.__dict__
            for i, attr, conv in ordered:
                attrs[attr] = r[i] if conv is None else conv(r[i])
            return value

        return direct

    def _plan(self, keys: tuple[str, ...]) -> list[tuple[int, str, Callable[[Any], Any] | None]]:
        position: dict[str, int] = {}
        for i, k in enumerate(keys):  # the first of a repeated name, as a look-up by name
            position.setdefault(k.lower(), i)
        plan: list[tuple[int, str, Callable[[Any], Any] | None]] = []
        for column, attr in self.columns.items():
            if attr:
                conv = loads if column in self.json else bool if column in self.bools else None
                plan.append((position[column.lower()], attr, conv))
        return plan

    def values(self, obj: R, **given: Any) -> list[Any]:
        """The column values of ``obj``, in column order; ``given`` holds the others."""
        out = []
        for column, attr in self.columns.items():
            v = getattr(obj, attr) if attr else given[column]
            out.append(None if v is None else dumps(v) if column in self.json else v)
        return out

    def insert(self, upsert_keep: Sequence[str] | None = None) -> str:
        """INSERT of every column; with ``upsert_keep``, an existing (account_id, id) is
        updated instead, in every column but those two and ``upsert_keep``."""
        sql = (
            f"INSERT INTO {self.name} ({self.names}) VALUES ({', '.join('?' * len(self.columns))})"
        )
        if upsert_keep is None:
            return sql
        keep = ("id", "account_id", *upsert_keep)
        sets = ", ".join(f"{c} = excluded.{c}" for c in self.columns if c not in keep)
        return f"{sql} ON CONFLICT (account_id, id) DO UPDATE SET {sets}"


def _fills_directly(make: Callable[..., Any], attrs: set[str]) -> bool:
    """Whether ``make`` is a dataclass whose instances a reader may fill field by field in
    their ``__dict__``: every field given, nothing run after ``__init__``, no slots."""
    return (
        isinstance(make, type)
        and dataclasses.is_dataclass(make)
        and not hasattr(make, "__post_init__")
        and not hasattr(make, "__slots__")
        and {f.name for f in dataclasses.fields(make)} == attrs
    )


def _same(*names: str) -> dict[str, str]:
    return {n: n for n in names}


MODULES = Table(
    "modules",
    ModuleDef,
    {"id": "module_id", **_same("account_id", "name", "slug", "is_active", "template_slug")}
    | _same("template_version", "created_at", "updated_at"),
    bools=frozenset({"is_active"}),
)
FIELDS = Table(
    "fields",
    FieldDef,
    {"id": "field_id", "account_id": "", **_same("module_id", "name", "slug", "label")}
    | _same("data_type", "config", "is_required", "is_system", "privacy_level", "sort_order")
    | _same("vendor_managed", "created_at", "updated_at", "archived_at"),
    json=frozenset({"config"}),
    bools=frozenset({"is_required", "is_system", "vendor_managed"}),
)
VIEWS = Table(
    "views",
    ViewDef,
    {"id": "view_id", "account_id": "", **_same("module_id", "name", "slug", "config")}
    | _same("vendor_managed", "sort_order"),
    json=frozenset({"config"}),
    bools=frozenset({"vendor_managed"}),
)
REFERENCES = Table(
    "module_references",
    ReferenceDef,
    {"id": "reference_id", "account_id": "", **_same("source_module_id", "slug")}
    | _same("source_field_id", "source_field_slug", "relationship_type", "target_type")
    | _same("target_module_slug", "target_filters", "is_required", "cascade_delete")
    | _same("cascade_update", "vendor_managed"),
    json=frozenset({"target_filters"}),
    bools=frozenset({"is_required", "cascade_delete", "cascade_update", "vendor_managed"}),
)
RECORDS = Table(
    "records",
    RecordRow,
    {"id": "record_id", **_same("account_id", "module_id", "display_name", "fields")}
    | _same("label_ids", "type_ids", "privacy_level", "description_html", "owner_user_id")
    | _same("created_at", "updated_at", "created_by", "updated_by", "created_by_name")
    | _same("updated_by_name", "deleted_at"),
    json=frozenset({"fields", "label_ids", "type_ids"}),
)


def assemble_schemas(
    modules: Sequence[ColumnRow],
    fields: Sequence[ColumnRow],
    views: Sequence[ColumnRow],
    refs: Sequence[ColumnRow],
) -> dict[str, ModuleSchema]:
    """Group rows of one workspace into ModuleSchema values keyed by module slug."""
    by_module: dict[str, tuple[list[FieldDef], list[ViewDef], list[ReferenceDef]]] = {
        m["id"]: ([], [], []) for m in modules
    }
    for f in fields:
        if f["module_id"] in by_module:
            by_module[f["module_id"]][0].append(FIELDS.read(f))
    for v in views:
        if v["module_id"] in by_module:
            by_module[v["module_id"]][1].append(VIEWS.read(v))
    for ref in refs:
        if ref["source_module_id"] in by_module:
            by_module[ref["source_module_id"]][2].append(REFERENCES.read(ref))
    out: dict[str, ModuleSchema] = {}
    for m in modules:
        fs, vs, rs = by_module[m["id"]]
        fs.sort(key=lambda f: (f.sort_order, f.slug))
        vs.sort(key=lambda v: (v.sort_order, v.slug))
        rs.sort(key=lambda r: r.slug)
        archived = tuple(f for f in fs if f.archived_at is not None)
        hidden = {f.field_id for f in archived} | {f.slug for f in archived}
        shown: list[ReferenceDef] = []
        kept: list[ReferenceDef] = []
        for r in rs:
            source = r.source_field_id if r.source_field_id is not None else r.source_field_slug
            (kept if source in hidden else shown).append(r)
        out[m["slug"]] = ModuleSchema(
            MODULES.read(m),
            tuple(f for f in fs if f.archived_at is None),
            tuple(vs),
            tuple(shown),
            archived,
            tuple(kept),
        )
    return out


def account_from_row(r: ColumnRow) -> AccountRow:
    return AccountRow(r["id"], r["name"], r["slug"], int(r["schema_version"]), r["created_at"])


def user_from_row(r: ColumnRow, prefix: str = "") -> UserRow:
    """A users row; ``prefix`` reads the columns of a join that aliased them (``u_id``, ...)."""
    return UserRow(
        user_id=r[f"{prefix}id"],
        account_id=r[f"{prefix}account_id"],
        email=r[f"{prefix}email"],
        display_name=r[f"{prefix}display_name"],
        role_slug=r[f"{prefix}role_slug"],
        deleted=r[f"{prefix}deleted_at"] is not None,
    )


#: the columns an API key listing reads: never the hash
KEY_LISTING = "id, user_id, name, prefix, scopes, role_slug, created_at, revoked_at"
USER_LISTING = "id, email, display_name, role_slug, created_at, deleted_at"


def key_listing(r: ColumnRow) -> dict[str, Any]:
    """An API key as ``fieldhouse key list`` shows it: no secret, no hash."""
    scopes = loads(r["scopes"])
    return {
        "apiKeyId": r["id"],
        "userId": r["user_id"],
        "name": r["name"],
        "prefix": r["prefix"],
        "scopes": None if scopes is None else list(scopes),
        "role": r["role_slug"],
        "createdAt": r["created_at"],
        "revoked": r["revoked_at"] is not None,
        "revokedAt": r["revoked_at"],
    }


def user_listing(r: ColumnRow) -> dict[str, Any]:
    return {
        "userId": r["id"],
        "email": r["email"],
        "displayName": r["display_name"],
        "role": r["role_slug"],
        "createdAt": r["created_at"],
        "deleted": r["deleted_at"] is not None,
    }


def key_from_row(r: ColumnRow) -> ApiKeyRow:
    scopes = loads(r["scopes"])
    return ApiKeyRow(
        key_id=r["id"],
        account_id=r["account_id"],
        user_id=r["user_id"],
        name=r["name"],
        key_hash=r["key_hash"],
        scopes=None if scopes is None else tuple(scopes),
        revoked=r["revoked_at"] is not None,
        role_slug=r["role_slug"],
    )
