"""Operations on module schemas: modules, fields, views, references, auto-number counters."""

from __future__ import annotations

from collections.abc import Sequence

from fieldhouse.model.schema import FieldDef, ModuleDef, ModuleSchema, ReferenceDef, ViewDef
from fieldhouse.storage import accounts
from fieldhouse.storage.base import Op, execute, executemany, rows, value
from fieldhouse.storage.rows import advance_autonumber, assemble_schemas, dumps, loads, thaw_json

#: tables of module parts, and the column naming their module
_PARTS = {"fields": "module_id", "views": "module_id", "module_references": "source_module_id"}


def insert_module(m: ModuleDef) -> Op[None]:
    yield execute(
        "INSERT INTO modules (id, account_id, name, slug, is_active, template_slug,"
        " template_version, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            m.module_id,
            m.account_id,
            m.name,
            m.slug,
            m.is_active,
            m.template_slug,
            m.template_version,
            m.created_at,
            m.updated_at,
        ),
    )


def _upsert(table: str, columns: Sequence[str], keep: Sequence[str] = ()) -> str:
    """INSERT, or on an existing (account_id, id) UPDATE every column but those and ``keep``."""
    marks = ", ".join("?" * len(columns))
    updates = ", ".join(
        f"{c} = excluded.{c}" for c in columns if c not in ("id", "account_id", *keep)
    )
    return (
        f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})"
        f" ON CONFLICT (account_id, id) DO UPDATE SET {updates}"
    )


_FIELDS = _upsert(
    "fields",
    [
        "id",
        "account_id",
        "module_id",
        "name",
        "slug",
        "label",
        "data_type",
        "config",
        "is_required",
        "is_system",
        "privacy_level",
        "sort_order",
        "vendor_managed",
        "created_at",
        "updated_at",
    ],
    keep=("module_id", "created_at"),
)
_VIEWS = _upsert(
    "views",
    ["id", "account_id", "module_id", "name", "slug", "config", "vendor_managed", "sort_order"],
    keep=("module_id",),
)
_REFERENCES = _upsert(
    "module_references",
    [
        "id",
        "account_id",
        "source_module_id",
        "slug",
        "source_field_id",
        "source_field_slug",
        "relationship_type",
        "target_type",
        "target_module_slug",
        "target_filters",
        "is_required",
        "cascade_delete",
        "cascade_update",
        "vendor_managed",
    ],
    keep=("source_module_id",),
)


def upsert_fields(account_id: str, fields: Sequence[FieldDef]) -> Op[None]:
    yield executemany(
        _FIELDS,
        [
            (
                f.field_id,
                account_id,
                f.module_id,
                f.name,
                f.slug,
                f.label,
                f.data_type,
                dumps(thaw_json(f.config)),
                f.is_required,
                f.is_system,
                f.privacy_level,
                f.sort_order,
                f.vendor_managed,
                f.created_at,
                f.updated_at,
            )
            for f in fields
        ],
    )


def upsert_views(account_id: str, views: Sequence[ViewDef]) -> Op[None]:
    yield executemany(
        _VIEWS,
        [
            (
                v.view_id,
                account_id,
                v.module_id,
                v.name,
                v.slug,
                dumps(thaw_json(v.config)),
                v.vendor_managed,
                v.sort_order,
            )
            for v in views
        ],
    )


def upsert_references(account_id: str, refs: Sequence[ReferenceDef]) -> Op[None]:
    yield executemany(
        _REFERENCES,
        [
            (
                r.reference_id,
                account_id,
                r.source_module_id,
                r.slug,
                r.source_field_id,
                r.source_field_slug,
                r.relationship_type,
                r.target_type,
                r.target_module_slug,
                None if r.target_filters is None else dumps(thaw_json(r.target_filters)),
                r.is_required,
                r.cascade_delete,
                r.cascade_update,
                r.vendor_managed,
            )
            for r in refs
        ],
    )


def delete_parts(table: str, account_id: str, module_id: str, ids: Sequence[str]) -> Op[None]:
    """Delete fields, views or references of one module by id."""
    column = _PARTS[table]
    yield execute(
        f"DELETE FROM {table} WHERE account_id = ? AND {column} = ? AND id = ANY(?)",
        (account_id, module_id, list(ids)),
    )


def load_schemas(account_id: str) -> Op[tuple[int, dict[str, ModuleSchema]]]:
    """The schema version and every active module's schema, keyed by module slug."""
    version = yield from accounts.schema_version(account_id)
    modules = yield rows(
        "SELECT * FROM modules WHERE account_id = ? AND is_active ORDER BY created_at, slug",
        (account_id,),
    )
    parts = []
    for table in _PARTS:
        parts.append((yield rows(f"SELECT * FROM {table} WHERE account_id = ?", (account_id,))))
    return version, assemble_schemas(modules, *parts)


def take_autonumber(account_id: str, field_id: str, sequence: str | None) -> Op[int]:
    """The field's next number (per sequence when given), advancing the stored counter.

    The caller holds the workspace's write lock, so read-modify-write is safe across
    processes; ``FOR UPDATE`` keeps it safe on PostgreSQL even for a caller that forgot.
    """
    raw = yield value(
        "SELECT config FROM fields WHERE account_id = ? AND id = ? FOR UPDATE",
        (account_id, field_id),
    )
    if raw is None:
        raise LookupError(f"field {field_id} does not exist")
    config = loads(raw) or {}
    number = advance_autonumber(config, sequence)
    yield execute(
        "UPDATE fields SET config = ? WHERE account_id = ? AND id = ?",
        (dumps(config), account_id, field_id),
    )
    return number
