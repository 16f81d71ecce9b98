"""How a field (or system key) behaves in list filters and sorts.

Every field of a module, and the system keys ``displayName``, ``created_at`` and ``updated_at``,
maps to one :class:`FilterKind`: which operators make sense, how operands are typed, and where
inside the stored JSON value the compared part lives (``amount`` of a currency, ``recordId`` of a
reference, ``start`` of a date range). Both the parser (``listquery``) and the SQL compiler
(``storage.sqlquery``) read it, so they can never disagree.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from fieldhouse.model.schema import FieldDef, ModuleSchema

#: What operands mean for a kind. ``text`` compares case-insensitively, ``exact`` as stored.
Base = Literal["text", "exact", "ref", "number", "boolean", "date", "datetime", "time", "opaque"]

OPERATORS: tuple[str, ...] = (
    "eq",
    "neq",
    "gt",
    "gte",
    "lt",
    "lte",
    "contains",
    "notContains",
    "startsWith",
    "endsWith",
    "in",
    "notIn",
    "isNull",
    "isNotNull",
    "between",
    "before",
    "after",
)
SINGLE_VALUE_OPS = frozenset(
    {"eq", "neq", "gt", "gte", "lt", "lte", "contains", "notContains", "startsWith", "endsWith"}
    | {"before", "after"}
)
LIST_OPS = frozenset({"in", "notIn"})
NO_VALUE_OPS = frozenset({"isNull", "isNotNull"})

_EMPTY = frozenset({"isNull", "isNotNull"})
_EQ_LIST = frozenset({"eq", "neq", "in", "notIn"})
_SUBSTR = frozenset({"contains", "notContains", "startsWith", "endsWith"})
_ORDER = frozenset({"gt", "gte", "lt", "lte", "between"})

ALLOWED_OPS: Mapping[Base, frozenset[str]] = {
    "text": _EMPTY | _EQ_LIST | _SUBSTR,
    "exact": _EMPTY | _EQ_LIST | _SUBSTR,
    "ref": _EMPTY | _EQ_LIST | _SUBSTR,
    "number": _EMPTY | _EQ_LIST | _ORDER,
    "date": _EMPTY | _EQ_LIST | _ORDER | {"before", "after"},
    "datetime": _EMPTY | _EQ_LIST | _ORDER | {"before", "after"},
    "time": _EMPTY | _EQ_LIST | _ORDER,
    "boolean": _EMPTY | {"eq", "neq"},
    "opaque": _EMPTY | {"contains", "notContains"},
}

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


_NAME = ("displayName",)
_FORMULA_BASES: Mapping[str, Base] = {"number": "number", "date": "date", "boolean": "boolean"}


def is_safe_slug(slug: str) -> bool:
    return _SAFE_SLUG.fullmatch(slug) is not None


@dataclass(frozen=True)
class FilterKind:
    """Where and how a filter or sort reads one field.

    ``column`` is set for system keys (the value is a records column, not JSON). Otherwise the
    value lives at ``fields -> slug``; ``multi`` means it is an array and a condition holds when
    ANY element satisfies it. ``value_key`` is the sub-path compared by equality/order operators
    and ``label_key`` the sub-path used by substring operators and sorting (references).
    """

    base: Base
    slug: str
    column: str | None = None
    multi: bool = False
    value_key: tuple[str, ...] = ()
    label_key: tuple[str, ...] | None = None

    @property
    def text_key(self) -> tuple[str, ...]:
        """Sub-path read by substring operators and by sorting."""
        return self.label_key if self.label_key is not None else self.value_key


def _sub(config: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    inner = config.get(key)
    return inner if isinstance(inner, Mapping) else {}


def _flag(config: Mapping[str, Any], key: str, flag: str) -> bool:
    return bool(_sub(config, key).get(flag) or False)


def kind_of_field(f: FieldDef) -> FilterKind:
    """The filter kind of one schema field (its dataType and config decide)."""
    t, cfg, slug = f.data_type, f.config, f.slug
    if t in ("email", "phone", "url"):
        if _flag(cfg, t, "allowMultiple"):
            return FilterKind("text", slug, multi=True, value_key=("value",))
        return FilterKind("text", slug)
    if t in ("text", "textarea", "rich_text", "autonumber"):
        return FilterKind("text", slug)
    if t in ("select", "parent_record"):
        return FilterKind("exact", slug)
    if t == "multi_select":
        return FilterKind("exact", slug, multi=True)
    if t in ("number", "rating", "progress", "duration", "rollup"):
        return FilterKind("number", slug)
    if t == "currency":
        return FilterKind("number", slug, value_key=("amount",))
    if t == "boolean":
        return FilterKind("boolean", slug)
    if t == "date":
        return FilterKind("date", slug)
    if t == "date_range":
        return FilterKind("date", slug, value_key=("start",))
    if t == "time":
        return FilterKind("time", slug)
    if t == "reference":
        multi = _sub(cfg, "reference").get("selectionMode") == "multi"
        return FilterKind("ref", slug, multi=multi, value_key=("recordId",), label_key=_NAME)
    if t == "person":
        multi = _flag(cfg, "person", "allowMultiple")
        return FilterKind("ref", slug, multi=multi, value_key=("userId",), label_key=_NAME)
    if t == "formula":
        result = _sub(cfg, "formula").get("resultType")
        return FilterKind(_FORMULA_BASES.get(str(result), "text"), slug)
    # address, image, social_profile and anything unknown: only emptiness and JSON substring.
    return FilterKind("opaque", slug)


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
