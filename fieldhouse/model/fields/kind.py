"""Filter kinds: how a field's stored value is compared, sorted and which operators apply.

Each field type answers one :class:`FilterKind` for a field (see ``FieldType.filter_kind``);
the list-query parser (``listquery``) and the SQL compiler (``storage.sqlquery``) both read it,
so they can never disagree.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

#: What operands mean for a kind. ``text`` compares case-insensitively, ``exact`` as stored.
Base = Literal["text", "exact", "ref", "number", "boolean", "date", "datetime", "time", "opaque"]

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
