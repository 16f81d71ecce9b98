"""Operations on module schemas: modules, fields, views, references, the counters in field
configs (auto-numbers)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from fieldhouse.model.fields import COUNTING_TYPES
from fieldhouse.model.schema import FieldDef, ModuleDef, ModuleSchema, ReferenceDef, ViewDef
from fieldhouse.storage import accounts
from fieldhouse.storage.base import Op, execute, executemany, rows, value
from fieldhouse.storage.rows import (
    FIELDS,
    MODULES,
    REFERENCES,
    VIEWS,
    assemble_schemas,
    dumps,
    loads,
)

#: tables of module parts, and the column naming their module
_PARTS = {"fields": "module_id", "views": "module_id", "module_references": "source_module_id"}


def insert_module(m: ModuleDef) -> Op[None]:
    yield execute(MODULES.insert(), MODULES.values(m))


_UPSERT_FIELD = FIELDS.insert(upsert_keep=("module_id", "created_at"))
_UPSERT_VIEW = VIEWS.insert(upsert_keep=("module_id",))
_UPSERT_REFERENCE = REFERENCES.insert(upsert_keep=("source_module_id",))


def upsert_fields(account_id: str, fields: Sequence[FieldDef]) -> Op[None]:
    yield executemany(_UPSERT_FIELD, [FIELDS.values(f, account_id=account_id) for f in fields])


def upsert_views(account_id: str, views: Sequence[ViewDef]) -> Op[None]:
    yield executemany(_UPSERT_VIEW, [VIEWS.values(v, account_id=account_id) for v in views])


def upsert_references(account_id: str, refs: Sequence[ReferenceDef]) -> Op[None]:
    values = [REFERENCES.values(r, account_id=account_id) for r in refs]
    yield executemany(_UPSERT_REFERENCE, values)


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


def all_modules(account_id: str) -> Op[list[ModuleDef]]:
    """Every module of the workspace, archived ones too (slugs stay taken while archived)."""
    found = yield rows(
        "SELECT * FROM modules WHERE account_id = ? ORDER BY created_at, slug", (account_id,)
    )
    return MODULES.read_all(found)


def set_module_active(account_id: str, module_id: str, active: bool, at: str) -> Op[None]:
    yield execute(
        "UPDATE modules SET is_active = ?, updated_at = ? WHERE account_id = ? AND id = ?",
        (active, at, account_id, module_id),
    )


def module_fields(account_id: str, module_id: str) -> Op[list[FieldDef]]:
    """A module's fields, archived ones too (of a module that may be archived itself)."""
    found = yield rows(
        "SELECT * FROM fields WHERE account_id = ? AND module_id = ? ORDER BY sort_order, slug",
        (account_id, module_id),
    )
    return FIELDS.read_all(found)


def rename_module(account_id: str, module_id: str, name: str, at: str) -> Op[None]:
    yield execute(
        "UPDATE modules SET name = ?, updated_at = ? WHERE account_id = ? AND id = ?",
        (name, at, account_id, module_id),
    )


def field_config(account_id: str, field_id: str) -> Op[dict[str, Any]]:
    """A field's stored config, locked for the rest of the transaction on PostgreSQL."""
    raw = yield value(
        "SELECT config FROM fields WHERE account_id = ? AND id = ? FOR UPDATE",
        (account_id, field_id),
    )
    if raw is None:
        raise LookupError(f"field {field_id} does not exist")
    config: dict[str, Any] = loads(raw) or {}
    return config


def counters_and_configs(
    account_id: str,
) -> Op[tuple[int, int, dict[str, dict[str, Any]]]]:
    """:func:`~fieldhouse.storage.accounts.counters` and the config of every field whose type
    keeps a counter in it (``FieldType.counts``) by field id, locked like :func:`field_config`,
    in one statement (one round trip at the start of every write transaction); (-1, 0, {})
    when there is no such account."""
    found = yield rows(
        "WITH f AS (SELECT id, config FROM fields WHERE account_id = ? AND data_type IN "
        f"({', '.join('?' for _ in COUNTING_TYPES)}) FOR UPDATE)"
        " SELECT a.schema_version, a.activity_seq, f.id, f.config"
        " FROM accounts a LEFT JOIN f ON 1 = 1 WHERE a.id = ?",
        (account_id, *COUNTING_TYPES, account_id),
    )
    if not found:
        return -1, 0, {}
    configs = {r[2]: loads(r[3]) or {} for r in found if r[2] is not None}
    return int(found[0][0]), int(found[0][1]), configs


def set_field_config(account_id: str, field_id: str, config: Mapping[str, Any]) -> Op[None]:
    yield execute(
        "UPDATE fields SET config = ? WHERE account_id = ? AND id = ?",
        (dumps(config), account_id, field_id),
    )
