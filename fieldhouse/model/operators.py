"""The filter operators of list queries (SPEC section 7), which rollup conditions use too."""

from __future__ import annotations

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
