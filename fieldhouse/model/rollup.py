"""Rollup fields: aggregate one field over the records linked through a reference field.

Pure functions: the database layer hands in the linked (non-deleted) records' ``fields``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from fieldhouse.model.errors import Issue
from fieldhouse.model.formula import check_decimal_places
from fieldhouse.model.formula_eval import FormulaEvalError, parse_moment, round_half_up
from fieldhouse.model.operators import OPERATORS

AGGREGATIONS: tuple[str, ...] = ("COUNT", "COUNTALL", "COUNTA", "SUM", "AVG", "MIN", "MAX")
#: Aggregations that may run without an aggregate field.
FIELDLESS_AGGREGATIONS: frozenset[str] = frozenset({"COUNT", "COUNTALL"})
_LIST_OPERATORS = frozenset({"in", "notIn", "between"})
#: Ordering operator -> the comparison results (-1, 0, 1) that satisfy it.
_ORDER_OPERATORS: dict[str, tuple[int, ...]] = {
    "gt": (1,),
    "after": (1,),
    "gte": (0, 1),
    "lt": (-1,),
    "before": (-1,),
    "lte": (-1, 0),
}
_BASE: tuple[str, ...] = ("config", "rollup")


# --- validation --------------------------------------------------------------------------------


@dataclass(frozen=True)
class RollupSource:
    """Where a rollup reads: the module's linking field, and the linked records' field."""

    linked_field_slug: str | None
    aggregate_field_slug: str | None


def rollup_source(config: Mapping[str, Any]) -> RollupSource:
    """A rollup config's sources (None where it names none)."""
    settings = config.get("rollup")
    if not isinstance(settings, Mapping):
        return RollupSource(None, None)
    linked, aggregate = settings.get("linkedFieldSlug"), settings.get("aggregateFieldSlug")
    return RollupSource(
        linked if isinstance(linked, str) else None,
        aggregate if isinstance(aggregate, str) else None,
    )


def validate_rollup_config(
    config: Mapping[str, Any], *, linked_field_slugs: Collection[str]
) -> list[Issue]:
    """Problems with a rollup field's config (paths start ``("config", "rollup")``)."""
    raw = config.get("rollup")
    if not isinstance(raw, Mapping):
        return [Issue("invalid_type", _BASE, "rollup settings must be an object")]
    issues: list[Issue] = []
    linked = raw.get("linkedFieldSlug")
    if not isinstance(linked, str) or not linked:
        issues.append(
            Issue("invalid_type", (*_BASE, "linkedFieldSlug"), "linkedFieldSlug is required")
        )
    elif linked not in linked_field_slugs:
        message = f"linkedFieldSlug {linked!r} is not a reference field of this module"
        issues.append(
            Issue("unknown_field", (*_BASE, "linkedFieldSlug"), message, {"fieldSlug": linked})
        )
    aggregation = raw.get("aggregation")
    if aggregation not in AGGREGATIONS:
        message = f"aggregation must be one of {', '.join(AGGREGATIONS)}"
        extra = {"options": list(AGGREGATIONS)}
        issues.append(Issue("invalid_enum_value", (*_BASE, "aggregation"), message, extra))
    target = raw.get("aggregateFieldSlug")
    target_path = (*_BASE, "aggregateFieldSlug")
    if target is None:
        if aggregation in AGGREGATIONS and aggregation not in FIELDLESS_AGGREGATIONS:
            message = f"aggregateFieldSlug is required for {aggregation}"
            issues.append(Issue("invalid_type", target_path, message))
    elif not isinstance(target, str) or not target:
        issues.append(Issue("invalid_type", target_path, "aggregateFieldSlug must be a string"))
    issues.extend(_check_filter(raw.get("filterCriteria"), (*_BASE, "filterCriteria")))
    issues.extend(check_decimal_places(raw.get("decimalPlaces"), _BASE))
    if raw.get("format") is not None and not isinstance(raw.get("format"), str):
        issues.append(Issue("invalid_type", (*_BASE, "format"), "format must be a string"))
    return issues


def _check_filter(criteria: Any, path: tuple[str | int, ...]) -> list[Issue]:
    if criteria is None:
        return []
    if not isinstance(criteria, Mapping):
        return [Issue("invalid_type", path, "filterCriteria must be an object or null")]
    if "conditions" not in criteria:
        return []
    issues: list[Issue] = []
    if criteria.get("conjunction", "AND") not in ("AND", "OR"):
        message = "conjunction must be AND or OR"
        issues.append(Issue("invalid_enum_value", (*path, "conjunction"), message))
    conditions = criteria["conditions"]
    if not isinstance(conditions, list):
        return [*issues, Issue("invalid_type", (*path, "conditions"), "conditions must be a list")]
    for i, cond in enumerate(conditions):
        where = (*path, "conditions", i)
        if isinstance(cond, Mapping) and "conditions" in cond:
            issues.extend(_check_filter(cond, where))
        elif not isinstance(cond, Mapping):
            issues.append(Issue("invalid_type", where, "condition must be an object"))
        elif not isinstance(cond.get("fieldSlug"), str) or not cond.get("fieldSlug"):
            issues.append(Issue("invalid_type", (*where, "fieldSlug"), "fieldSlug is required"))
        elif cond.get("operator") not in OPERATORS:
            message = f"operator must be one of {', '.join(OPERATORS)}"
            issues.append(Issue("invalid_enum_value", (*where, "operator"), message))
        elif cond["operator"] in _LIST_OPERATORS and not isinstance(_operands(cond), list):
            issues.append(Issue("invalid_type", (*where, "values"), "values must be a list"))
    return issues


# --- filtering ---------------------------------------------------------------------------------


def _is_blank(v: Any) -> bool:
    return v is None or (isinstance(v, str | list | dict) and len(v) == 0)


def _candidates(v: Any) -> list[Any]:
    """The comparable scalars a stored value stands for."""
    if isinstance(v, Mapping):
        if "amount" in v:
            return [v["amount"]]
        return [
            x for x in (v.get("recordId"), v.get("displayName"), v.get("value")) if x is not None
        ]
    if isinstance(v, list):
        return [c for item in v for c in _candidates(item)]
    return [] if v is None else [v]


def _number(v: Any) -> float | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, int | float):
        return float(v) if math.isfinite(v) else None
    if isinstance(v, str):
        try:
            f = float(v)
        except ValueError:
            return None
        return f if math.isfinite(f) else None
    return None


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    x, y = _number(a), _number(b)
    if (
        x is not None
        and y is not None
        and (isinstance(a, int | float) or isinstance(b, int | float))
    ):
        return x == y
    return bool(a == b)


def _cmp(a: Any, b: Any) -> int | None:
    x, y = _number(a), _number(b)
    if x is not None and y is not None:
        return (x > y) - (x < y)
    if isinstance(a, str) and isinstance(b, str):
        try:
            ma, mb = parse_moment(a, 0)[0], parse_moment(b, 0)[0]
        except FormulaEvalError:
            return (a > b) - (a < b)
        return (ma > mb) - (ma < mb)
    return None


def _operands(cond: Mapping[str, Any]) -> Any:
    values = cond.get("values")
    return values if values is not None else cond.get("value")


#: a condition's test: its settings and the linked record's value of its field
_Test = Callable[[Mapping[str, Any], Any], bool]


def _negated(test: _Test) -> _Test:
    return lambda cond, actual: not test(cond, actual)


def _blank(cond: Mapping[str, Any], actual: Any) -> bool:
    return _is_blank(actual)


def _equal(cond: Mapping[str, Any], actual: Any) -> bool:
    """Any of the value's scalars equals ``value``; no value: the value is blank."""
    value = cond.get("value")
    if value is None:
        return _is_blank(actual)
    return any(_same(c, value) for c in _candidates(actual))


def _among(cond: Mapping[str, Any], actual: Any) -> bool:
    pool = _operands(cond)
    pool = pool if isinstance(pool, list) else [pool]
    return any(_same(c, v) for c in _candidates(actual) for v in pool)


def _text_test(match: Callable[[str, str], bool]) -> _Test:
    """A test of the value's scalars as lower-case text against ``value``, also lower-cased."""

    def test(cond: Mapping[str, Any], actual: Any) -> bool:
        needle = str(cond.get("value")).lower()
        return any(match(str(c).lower(), needle) for c in _candidates(actual))

    return test


def _between(cond: Mapping[str, Any], actual: Any) -> bool:
    bounds = _operands(cond)
    if not isinstance(bounds, list) or len(bounds) != 2:
        return False
    return any(_within(c, bounds[0], bounds[1]) for c in _candidates(actual))


def _ordered(wanted: tuple[int, ...]) -> _Test:
    """A test that the value's scalars compare with ``value`` as ``wanted`` says."""
    return lambda cond, actual: any(
        _cmp(c, cond.get("value")) in wanted for c in _candidates(actual)
    )


_contains = _text_test(lambda text, needle: needle in text)
#: operator -> its test; an operator not here matches nothing
_TESTS: dict[str, _Test] = {
    "isNull": _blank,
    "isNotNull": _negated(_blank),
    "eq": _equal,
    "neq": _negated(_equal),
    "in": _among,
    "notIn": _negated(_among),
    "contains": _contains,
    "notContains": _negated(_contains),
    "startsWith": _text_test(str.startswith),
    "endsWith": _text_test(str.endswith),
    "between": _between,
    **{op: _ordered(wanted) for op, wanted in _ORDER_OPERATORS.items()},
}


def _test(cond: Mapping[str, Any], fields: Mapping[str, Any]) -> bool:
    if "conditions" in cond:
        return rollup_matches(cond, fields)
    op = cond.get("operator")
    test = _TESTS.get(op) if isinstance(op, str) else None
    return test is not None and test(cond, fields.get(str(cond.get("fieldSlug"))))


def _within(v: Any, low: Any, high: Any) -> bool:
    a, b = _cmp(v, low), _cmp(v, high)
    return a is not None and b is not None and a >= 0 and b <= 0


def rollup_matches(filter_criteria: Mapping[str, Any] | None, fields: Mapping[str, Any]) -> bool:
    """Whether a linked record's ``fields`` pass a rollup's filterCriteria."""
    if not filter_criteria:
        return True
    if "conditions" in filter_criteria:
        conditions = filter_criteria.get("conditions")
        tests = [
            _test(c, fields)
            for c in (conditions if isinstance(conditions, list) else [])
            if isinstance(c, Mapping)
        ]
        if str(filter_criteria.get("conjunction", "AND")).upper() == "OR":
            return any(tests) if tests else True
        return all(tests)
    for slug, expected in filter_criteria.items():
        cands = _candidates(fields.get(slug))
        pool = expected if isinstance(expected, list) else [expected]
        if expected is None:
            if not _is_blank(fields.get(slug)):
                return False
        elif not any(_same(c, e) for c in cands for e in pool):
            return False
    return True


# --- aggregation -------------------------------------------------------------------------------


def _numeric_values(values: list[Any]) -> list[int | float]:
    out: list[int | float] = []
    for v in values:
        if isinstance(v, Mapping) and "amount" in v:
            v = v["amount"]
        if isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v):
            out.append(v)
    return out


def _flat(values: list[Any]) -> list[Any]:
    return [x for v in values for x in (v if isinstance(v, list) else [v]) if not _is_blank(x)]


def _key(v: Any) -> str:
    if isinstance(v, Mapping) and "recordId" in v:
        v = v["recordId"]
    if isinstance(v, int | float) and not isinstance(v, bool):
        v = float(v)
    return json.dumps(v, sort_keys=True, default=str)


def _extreme(values: list[Any], agg: str) -> int | float | str | None:
    numbers = _numeric_values(values)
    if numbers:
        return min(numbers) if agg == "MIN" else max(numbers)
    dated: list[tuple[datetime, str]] = []
    for v in values:
        if isinstance(v, str):
            try:
                dated.append((parse_moment(v, 0)[0], v))
            except FormulaEvalError:
                continue
    if not dated:
        return None
    pick = min(dated, key=lambda p: p[0]) if agg == "MIN" else max(dated, key=lambda p: p[0])
    return pick[1]


def compute_rollup(
    config: Mapping[str, Any], linked: Sequence[Mapping[str, Any]]
) -> int | float | str | None:
    """Aggregate the linked records' values as the rollup config says; never raises."""
    settings = config.get("rollup")
    if not isinstance(settings, Mapping):
        return None
    agg, slug = settings.get("aggregation"), settings.get("aggregateFieldSlug")
    criteria = settings.get("filterCriteria")
    records = [
        f for f in linked if rollup_matches(criteria if isinstance(criteria, Mapping) else None, f)
    ]
    counted = _counted(agg, slug, records)
    if counted is not None:
        return counted
    calculate = _CALCULATIONS.get(agg) if isinstance(agg, str) else None
    if calculate is None or not isinstance(slug, str):
        return None
    values = _flat([f.get(slug) for f in records])
    return _rounded(calculate(values), settings.get("decimalPlaces"))


def _counted(agg: Any, slug: Any, records: list[Mapping[str, Any]]) -> int | None:
    """What a counting aggregation answers: COUNTALL (or COUNT without a field) the records,
    COUNT those with a value, COUNTA the distinct values; None for another aggregation."""
    if agg == "COUNTALL" or (agg == "COUNT" and not isinstance(slug, str)):
        return len(records)
    if not isinstance(slug, str):
        return None
    if agg == "COUNT":
        return sum(1 for f in records if not _is_blank(f.get(slug)))
    if agg == "COUNTA":
        return len({_key(v) for v in _flat([f.get(slug) for f in records])})
    return None


def _average(values: list[Any]) -> float | None:
    numbers = _numeric_values(values)
    return sum(numbers) / len(numbers) if numbers else None


#: the aggregations of the linked values that are rounded as ``decimalPlaces`` says
_CALCULATIONS: dict[str, Callable[[list[Any]], int | float | str | None]] = {
    "MIN": lambda values: _extreme(values, "MIN"),
    "MAX": lambda values: _extreme(values, "MAX"),
    "SUM": lambda values: sum(_numeric_values(values)),
    "AVG": _average,
}


def _rounded(result: int | float | str | None, places: Any) -> int | float | str | None:
    """A number rounded to ``places`` (0-10) decimal places; a float without places loses only
    binary noise such as 0.30000000000000004; anything else, and an int without places, as it
    is. Infinite or NaN: None."""
    if not isinstance(result, int | float):
        return result
    if isinstance(result, float) and not math.isfinite(result):
        return None
    if isinstance(places, int) and not isinstance(places, bool):
        places = min(max(places, 0), 10)
    elif isinstance(result, float):
        places = 10
    else:
        return result
    try:
        return round_half_up(result, places, 0)
    except FormulaEvalError:
        return result
