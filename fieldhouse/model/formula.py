"""Formula fields: parse, validate a field's formula config and compute its value.

The language (see SPEC "Field types", formula) is parsed by :mod:`formula_parse` into a tree and
evaluated by :mod:`formula_eval`; nothing here ever uses ``eval``/``exec``.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from typing import Any, Literal, get_args

from fieldhouse.model.errors import Issue
from fieldhouse.model.formula_eval import (
    FormulaEvalError,
    format_moment,
    parse_moment,
    round_half_up,
    to_bool,
    to_number,
    to_text,
)
from fieldhouse.model.formula_eval import evaluate as _evaluate
from fieldhouse.model.formula_parse import (
    FUNCTIONS,
    MAX_DEPTH,
    MAX_LENGTH,
    FormulaError,
    Node,
    parse,
)

__all__ = [
    "FUNCTIONS",
    "MAX_DEPTH",
    "MAX_LENGTH",
    "RESULT_TYPES",
    "Formula",
    "FormulaError",
    "FormulaEvalError",
    "check_decimal_places",
    "coerce_result",
    "compute_formula",
    "formula_refs",
    "parse_formula",
    "validate_formula_config",
]

#: What a formula's ``resultType`` may be: the formula's own small vocabulary (a formula yields
#: text, a number, a date or a yes/no), not field types, though four words are the same.
ResultType = Literal["text", "number", "date", "boolean"]
RESULT_TYPES: tuple[ResultType, ...] = get_args(ResultType)
_BASE: tuple[str, ...] = ("config", "formula")


@dataclass(frozen=True)
class Formula:
    """A parsed formula. Build it with :func:`parse_formula`."""

    expression: str
    referenced_fields: tuple[str, ...]
    root: Node = field(repr=False, compare=False)

    def evaluate(self, values: Mapping[str, Any], *, now: datetime) -> Any:
        """The raw result; raises :class:`FormulaEvalError` on a runtime problem."""
        return _evaluate(self.root, values, now)


def parse_formula(expression: str) -> Formula:
    """Parse ``expression``; raises :class:`FormulaError` (with ``.position``) when broken."""
    if not isinstance(expression, str):
        raise FormulaError("expression must be a string", 0)
    root, refs = parse(expression)
    return Formula(expression, refs, root)


@lru_cache(maxsize=512)
def _cached_parse(expression: str) -> Formula:
    return parse_formula(expression)


def validate_formula_config(
    config: Mapping[str, Any], known_slugs: Collection[str], *, self_slug: str
) -> tuple[dict[str, Any], list[Issue]]:
    """Check a formula field's config; fill ``formula.referencedFields`` from the expression."""
    out = dict(config)
    raw = config.get("formula")
    if not isinstance(raw, Mapping):
        return out, [Issue("invalid_type", _BASE, "formula settings must be an object")]
    settings = dict(raw)
    issues: list[Issue] = []
    expr_path = (*_BASE, "expression")
    expression = settings.get("expression")
    if not isinstance(expression, str) or not expression.strip():
        issues.append(
            Issue(
                "invalid_formula",
                expr_path,
                "expression is required (at position 0)",
                {"position": 0},
            )
        )
    else:
        try:
            formula = parse_formula(expression)
        except FormulaError as exc:
            message = f"invalid expression: {exc.message} at position {exc.position}"
            issues.append(Issue("invalid_formula", expr_path, message, {"position": exc.position}))
        else:
            settings["referencedFields"] = list(formula.referenced_fields)
            for slug in formula.referenced_fields:
                if slug == self_slug:
                    message = f"a formula cannot reference its own field {{{slug}}}"
                    issues.append(Issue("self_reference", expr_path, message, {"fieldSlug": slug}))
                elif slug not in known_slugs:
                    message = f"unknown field {{{slug}}}"
                    issues.append(Issue("unknown_field", expr_path, message, {"fieldSlug": slug}))
    result_type = settings.get("resultType")
    if result_type is None:
        settings["resultType"] = "text"
    elif result_type not in RESULT_TYPES:
        issues.append(
            Issue(
                "invalid_enum_value",
                (*_BASE, "resultType"),
                f"resultType must be one of {', '.join(RESULT_TYPES)}",
                {"options": list(RESULT_TYPES)},
            )
        )
    issues.extend(check_decimal_places(settings.get("decimalPlaces"), _BASE))
    fmt = settings.get("format")
    if fmt is not None and not isinstance(fmt, str):
        issues.append(Issue("invalid_type", (*_BASE, "format"), "format must be a string"))
    out["formula"] = settings
    return out, issues


def check_decimal_places(value: Any, base: tuple[str, ...]) -> list[Issue]:
    path = (*base, "decimalPlaces")
    if value is None:
        return []
    if isinstance(value, bool) or not isinstance(value, int):
        return [Issue("invalid_type", path, "decimalPlaces must be an integer")]
    if value < 0:
        return [Issue("too_small", path, "decimalPlaces must be at least 0", {"minimum": 0})]
    if value > 10:
        return [Issue("too_big", path, "decimalPlaces must be at most 10", {"maximum": 10})]
    return []


def compute_formula(config: Mapping[str, Any], values: Mapping[str, Any], *, now: datetime) -> Any:
    """The formula field's value for one record, coerced to its resultType; never raises."""
    settings = config.get("formula")
    if not isinstance(settings, Mapping):
        return None
    expression = settings.get("expression")
    if not isinstance(expression, str):
        return None
    try:
        value = _cached_parse(expression).evaluate(values, now=now)
        return coerce_result(value, settings.get("resultType"), settings.get("decimalPlaces"))
    except (FormulaError, ArithmeticError, ValueError, TypeError):
        return None


def coerce_result(value: Any, result_type: Any, decimal_places: Any = None) -> Any:
    """Coerce an evaluated value to ``result_type``; raises :class:`FormulaEvalError`."""
    if value is None:
        return None
    if result_type == "number":
        number = to_number(value, 0)
        if isinstance(decimal_places, int) and not isinstance(decimal_places, bool):
            return round_half_up(number, min(max(decimal_places, 0), 10), 0)
        return round_half_up(number, 10, 0) if isinstance(number, float) else number
    if result_type == "boolean":
        return to_bool(value)
    if result_type == "date":
        moment, has_time = parse_moment(value, 0)
        return format_moment(moment, has_time=has_time)
    return to_text(value, 0)


def formula_refs(config: Mapping[str, Any]) -> list[str]:
    """The fields a formula config reads: its expression's references (or, when the expression
    does not parse, the ``referencedFields`` it lists)."""
    settings = config.get("formula") or {}
    expression = settings.get("expression")
    if isinstance(expression, str):
        try:
            return list(parse_formula(expression).referenced_fields)
        except FormulaError:
            pass
    return list(settings.get("referencedFields") or [])
