"""How a field (or system key) behaves in list filters and sorts.

Every field of a module, and the system keys ``displayName``, ``created_at`` and ``updated_at``,
maps to one :class:`FilterKind`: which operators make sense, how operands are typed, and where
inside the stored JSON value the compared part lives (``amount`` of a currency, ``recordId`` of a
reference, ``start`` of a date range). A field's kind comes from its field type
(``fieldhouse.model.fields``); both the parser (``listquery``) and the SQL compiler
(``storage.sqlquery``) read it, so they can never disagree. The operators a condition on a field
may use come from its type too (``FieldType.operators``), so a type narrows or widens them in its
own module.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from fieldhouse.model.fields import field_type, type_of
from fieldhouse.model.fields.kind import (
    ALLOWED_OPS,
    LIST_OPS,
    NO_VALUE_OPS,
    SINGLE_VALUE_OPS,
    Base,
    FilterKind,
)
from fieldhouse.model.operators import OPERATORS
from fieldhouse.model.schema import FieldDef, ModuleSchema

__all__ = [
    "LIST_OPS",
    "NO_VALUE_OPS",
    "OPERATORS",
    "SINGLE_VALUE_OPS",
    "SYSTEM_KEYS",
    "Base",
    "FilterKind",
    "allowed_operators",
    "is_safe_slug",
    "kind_of_field",
    "resolve_key",
]

#: System sort/filter keys and the records column each one reads.
SYSTEM_KEYS: Mapping[str, str] = {
    "displayName": "display_name",
    "created_at": "created_at",
    "updated_at": "updated_at",
    "createdDateTime": "created_at",
    "updatedDateTime": "updated_at",
}

#: Slugs are embedded in SQL JSON paths; anything outside this set is never treated as a field.
_SAFE_SLUG = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_\-]{0,127}")


def is_safe_slug(slug: str) -> bool:
    return _SAFE_SLUG.fullmatch(slug) is not None


def kind_of_field(f: FieldDef) -> FilterKind:
    """The filter kind of one schema field: its field type decides (an unknown type is opaque)."""
    kind = field_type(f.data_type)
    return kind.filter_kind(f) if kind is not None else FilterKind("opaque", f.slug)


def resolve_key(slug: str, schema: ModuleSchema, *, system: bool = True) -> FilterKind | None:
    """The kind for a field slug or (when ``system``) a system key; ``None`` when unknown."""
    if system and slug in SYSTEM_KEYS:
        column = SYSTEM_KEYS[slug]
        base: Base = "text" if column == "display_name" else "datetime"
        return FilterKind(base, slug, column=column)
    if not is_safe_slug(slug):
        return None
    f = schema.field(slug)
    return kind_of_field(f) if f is not None else None


def allowed_operators(kind: FilterKind, schema: ModuleSchema) -> frozenset[str]:
    """The operators a condition on a resolved key may use. A field's type decides (its
    ``operators``); a system key, or a field of a type this server does not know, has its
    kind's."""
    f = schema.field(kind.slug) if kind.column is None else None
    ftype = type_of(f) if f is not None else None
    if f is None or ftype is None:
        return ALLOWED_OPS[kind.base]
    return ftype.operators(f)
