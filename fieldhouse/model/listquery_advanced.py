"""The ``advancedFilter`` tree of the list query: its AST and its validation.

``parse_advanced`` turns the raw JSON text into a :class:`Group` of :class:`Condition` leaves
whose operands are already typed for their field (``listquery_values``), or records zod-style
issues under ``("advancedFilter", "root", "conditions", i, ...)``. Invalid JSON is the one
exception: it raises at once, with the SPEC's exact message ``advancedFilter must be valid JSON``
and one issue at ``("advancedFilter",)``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from fieldhouse.model.errors import Issue, ValidationFailed
from fieldhouse.model.listquery_kinds import (
    LIST_OPS,
    NO_VALUE_OPS,
    OPERATORS,
    Base,
    allowed_operators,
    resolve_key,
)
from fieldhouse.model.listquery_values import coerce_operand
from fieldhouse.model.schema import ModuleSchema

MAX_DEPTH = 5
MAX_CONDITIONS = 50
MAX_LIST_VALUES = 100

Path = tuple[str | int, ...]


@dataclass(frozen=True)
class Condition:
    """One leaf of the advanced filter; operands already typed for the field's kind."""

    field: str
    operator: str
    value: Any
    values: tuple[Any, ...] | None


@dataclass(frozen=True)
class Group:
    conjunction: Literal["AND", "OR"]
    items: tuple[Condition | Group, ...]


# --- advanced filter ---------------------------------------------------------------------------


def parse_advanced(raw: str | None, schema: ModuleSchema, issues: list[Issue]) -> Group | None:
    if raw is None or raw.strip() == "":
        return None
    try:
        doc = json.loads(raw)
    except RecursionError:
        issues.append(_too_deep(("advancedFilter",)))
        return None
    except ValueError as exc:
        message = "advancedFilter must be valid JSON"
        issue = Issue("custom", ("advancedFilter",), message, {"validation": "json"})
        raise ValidationFailed([issue], message) from exc
    if doc is None:
        return None
    base: Path = ("advancedFilter",)
    if not isinstance(doc, dict):
        issues.append(_type_issue(base, "object", doc))
        return None
    if "root" not in doc:
        issues.append(_required((*base, "root")))
        return None
    total = _count_conditions(doc["root"], 1)
    if total > MAX_CONDITIONS:
        issues.append(
            Issue(
                "too_big",
                (*base, "root"),
                f"Advanced filter accepts at most {MAX_CONDITIONS} conditions",
                {"maximum": MAX_CONDITIONS, "inclusive": True, "type": "array"},
            )
        )
        return None
    before = len(issues)
    group = _group(doc["root"], (*base, "root"), 1, schema, issues)
    return group if len(issues) == before else None


def _count_conditions(node: Any, depth: int) -> int:
    if not isinstance(node, dict) or depth > MAX_DEPTH + 1:
        return 0
    items = node.get("conditions")
    if not isinstance(items, list):
        return 0
    total = 0
    for item in items:
        if isinstance(item, dict) and "conditions" in item:
            total += _count_conditions(item, depth + 1)
        else:
            total += 1
    return total


def _group(
    node: Any, path: Path, depth: int, schema: ModuleSchema, issues: list[Issue]
) -> Group | None:
    if not isinstance(node, dict):
        issues.append(_type_issue(path, "object", node))
        return None
    if depth > MAX_DEPTH:
        issues.append(_too_deep(path))
        return None
    conj = node.get("conjunction")
    if conj not in ("AND", "OR"):
        issues.append(
            Issue(
                "invalid_enum_value",
                (*path, "conjunction"),
                f"Invalid enum value. Expected 'AND' | 'OR', received {conj!r}",
                {"options": ["AND", "OR"], "received": conj},
            )
        )
    items_raw = node.get("conditions")
    if not isinstance(items_raw, list):
        issues.append(_type_issue((*path, "conditions"), "array", items_raw))
        return None
    items: list[Condition | Group] = []
    for i, item in enumerate(items_raw):
        where: Path = (*path, "conditions", i)
        parsed: Condition | Group | None
        if isinstance(item, dict) and "conditions" in item:
            parsed = _group(item, where, depth + 1, schema, issues)
        else:
            parsed = _condition(item, where, schema, issues)
        if parsed is not None:
            items.append(parsed)
    if conj not in ("AND", "OR"):
        return None
    return Group("AND" if conj == "AND" else "OR", tuple(items))


def _condition(
    node: Any, path: Path, schema: ModuleSchema, issues: list[Issue]
) -> Condition | None:
    if not isinstance(node, dict):
        issues.append(_type_issue(path, "object", node))
        return None
    slug, op = node.get("fieldSlug"), node.get("operator")
    kind = None
    if not isinstance(slug, str):
        issues.append(_type_issue((*path, "fieldSlug"), "string", slug))
    else:
        kind = resolve_key(slug, schema)
        if kind is None:
            issues.append(Issue("custom", (*path, "fieldSlug"), f"Unknown field {slug!r}"))
    if op not in OPERATORS:
        issues.append(
            Issue(
                "invalid_enum_value",
                (*path, "operator"),
                f"Unknown operator {op!r}",
                {"options": list(OPERATORS), "received": op},
            )
        )
        return None
    if kind is None:
        return None
    assert isinstance(slug, str) and isinstance(op, str)
    allowed = allowed_operators(kind, schema)
    if op not in allowed:
        issues.append(
            Issue(
                "custom",
                (*path, "operator"),
                f"Operator {op!r} is not supported for field {slug!r} ({kind.base})",
                {"allowed": sorted(allowed)},
            )
        )
        return None
    if op in NO_VALUE_OPS:
        return Condition(slug, op, None, None)
    if op in LIST_OPS or op == "between":
        return _list_condition(node, path, slug, op, kind.base, issues)
    if node.get("value") is None:
        issues.append(_required((*path, "value")))
        return None
    value, err = coerce_operand(kind.base, node["value"])
    if err is not None:
        issues.append(Issue("invalid_type", (*path, "value"), err, {"received": _tname(value)}))
        return None
    return Condition(slug, op, value, None)


def _list_condition(
    node: Mapping[str, Any], path: Path, slug: str, op: str, base: Base, issues: list[Issue]
) -> Condition | None:
    raw = node.get("values")
    if raw is None and op == "between" and isinstance(node.get("value"), list):
        raw = node["value"]  # tolerated: between with value [low, high]
    if not isinstance(raw, list):
        issues.append(_type_issue((*path, "values"), "array", raw))
        return None
    low, high = (2, 2) if op == "between" else (1, MAX_LIST_VALUES)
    extra = {"inclusive": True, "type": "array", "exact": low == high}
    if len(raw) < low:
        issues.append(
            Issue(
                "too_small",
                (*path, "values"),
                f"{op} needs {'exactly' if low == high else 'at least'} {low} value(s)",
                {"minimum": low, **extra},
            )
        )
        return None
    if len(raw) > high:
        issues.append(
            Issue(
                "too_big",
                (*path, "values"),
                f"{op} accepts {'exactly' if low == high else 'at most'} {high} value(s)",
                {"maximum": high, **extra},
            )
        )
        return None
    values: list[Any] = []
    ok = True
    for j, item in enumerate(raw):
        value, err = coerce_operand(base, item)
        if err is not None:
            issues.append(Issue("invalid_type", (*path, "values", j), err))
            ok = False
        values.append(value)
    return Condition(slug, op, None, tuple(values)) if ok else None


def _type_issue(path: Path, expected: str, got: Any) -> Issue:
    received = _tname(got)
    return Issue(
        "invalid_type",
        path,
        "Required" if got is None else f"Expected {expected}, received {received}",
        {"expected": expected, "received": received},
    )


def _required(path: Path) -> Issue:
    return Issue("invalid_type", path, "Required", {"expected": "value", "received": "undefined"})


def _too_deep(path: Path) -> Issue:
    return Issue(
        "too_big",
        path,
        f"Filter groups nest at most {MAX_DEPTH} levels deep",
        {"maximum": MAX_DEPTH, "inclusive": True, "type": "depth"},
    )


def _tname(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int | float):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    return "object"
