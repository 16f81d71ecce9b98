"""Rows (``sqlite3.Row`` or ``asyncpg.Record``) to domain values, and JSON both ways."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

import orjson

from fieldhouse.model.schema import FieldDef, ModuleDef, ModuleSchema, ReferenceDef, ViewDef
from fieldhouse.storage.base import AccountRow, ApiKeyRow, UserRow


def dumps(value: Any) -> str:
    return orjson.dumps(value).decode()


def loads(text: str | bytes | None) -> Any:
    return None if text is None else orjson.loads(text)


def thaw_json(value: Any) -> Any:
    """A JSON-serialisable copy of a (possibly frozen) structure."""
    if isinstance(value, Mapping):
        return {k: thaw_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)) or type(value).__name__ == "PVector":
        return [thaw_json(v) for v in value]
    return value


def module_from_row(r: Mapping[str, Any]) -> ModuleDef:
    return ModuleDef(
        module_id=r["id"],
        account_id=r["account_id"],
        name=r["name"],
        slug=r["slug"],
        is_active=bool(r["is_active"]),
        template_slug=r["template_slug"],
        template_version=r["template_version"],
        created_at=r["created_at"],
        updated_at=r["updated_at"],
    )


def field_from_row(r: Mapping[str, Any]) -> FieldDef:
    return FieldDef(
        field_id=r["id"],
        module_id=r["module_id"],
        name=r["name"],
        slug=r["slug"],
        label=r["label"],
        data_type=r["data_type"],
        config=loads(r["config"]),
        is_required=bool(r["is_required"]),
        is_system=bool(r["is_system"]),
        privacy_level=r["privacy_level"],
        sort_order=int(r["sort_order"]),
        vendor_managed=bool(r["vendor_managed"]),
        created_at=r["created_at"],
        updated_at=r["updated_at"],
    )


def view_from_row(r: Mapping[str, Any]) -> ViewDef:
    return ViewDef(
        view_id=r["id"],
        module_id=r["module_id"],
        name=r["name"],
        slug=r["slug"],
        config=loads(r["config"]),
        vendor_managed=bool(r["vendor_managed"]),
        sort_order=int(r["sort_order"]),
    )


def reference_from_row(r: Mapping[str, Any]) -> ReferenceDef:
    filters = loads(r["target_filters"])
    return ReferenceDef(
        reference_id=r["id"],
        source_module_id=r["source_module_id"],
        slug=r["slug"],
        source_field_id=r["source_field_id"],
        source_field_slug=r["source_field_slug"],
        relationship_type=r["relationship_type"],
        target_type=r["target_type"],
        target_module_slug=r["target_module_slug"],
        target_filters=filters,
        is_required=bool(r["is_required"]),
        cascade_delete=bool(r["cascade_delete"]),
        cascade_update=bool(r["cascade_update"]),
        vendor_managed=bool(r["vendor_managed"]),
    )


def assemble_schemas(
    modules: Sequence[Mapping[str, Any]],
    fields: Sequence[Mapping[str, Any]],
    views: Sequence[Mapping[str, Any]],
    refs: Sequence[Mapping[str, Any]],
) -> dict[str, ModuleSchema]:
    """Group rows of one workspace into ModuleSchema values keyed by module slug."""
    by_module: dict[str, tuple[list[FieldDef], list[ViewDef], list[ReferenceDef]]] = {
        m["id"]: ([], [], []) for m in modules
    }
    for f in fields:
        if f["module_id"] in by_module:
            by_module[f["module_id"]][0].append(field_from_row(f))
    for v in views:
        if v["module_id"] in by_module:
            by_module[v["module_id"]][1].append(view_from_row(v))
    for ref in refs:
        if ref["source_module_id"] in by_module:
            by_module[ref["source_module_id"]][2].append(reference_from_row(ref))
    out: dict[str, ModuleSchema] = {}
    for m in modules:
        fs, vs, rs = by_module[m["id"]]
        fs.sort(key=lambda f: (f.sort_order, f.slug))
        vs.sort(key=lambda v: (v.sort_order, v.slug))
        rs.sort(key=lambda r: r.slug)
        out[m["slug"]] = ModuleSchema(module_from_row(m), tuple(fs), tuple(vs), tuple(rs))
    return out


def advance_autonumber(config: dict[str, Any], sequence: str | None) -> int:
    """Take the next number from an auto-number field's config (in place) and advance it.

    ``nextValue`` (or ``sequenceCounters[sequence]``) holds the next number; ``startFrom``
    (default 1, and 0 is a valid start) seeds a counter that has none yet.
    """
    auto = config.setdefault("autonumber", {})
    start = auto.get("startFrom")
    start = 1 if start is None else int(start)
    if sequence is None:
        holder, key = auto, "nextValue"
    else:
        holder, key = auto.setdefault("sequenceCounters", {}), sequence
    current = holder.get(key)
    value = start if current is None else int(current)
    holder[key] = value + 1
    return value


class ColumnRow(Protocol):
    """What both drivers' rows offer: values by column name."""

    def __getitem__(self, key: str, /) -> Any: ...


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
    )
