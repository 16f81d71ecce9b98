"""Shared values and helpers of the formula tests."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from fieldhouse.model.formula import (
    FormulaError,
    FormulaEvalError,
    compute_formula,
    parse_formula,
)

NOW = datetime(2024, 3, 15, 12, 30, 5, tzinfo=UTC)
VALUES: dict[str, Any] = {
    "a": 3,
    "b": 4,
    "zero": 0,
    "half": 2.5,
    "name": "Ada",
    "pad": "  lots   of  space ",
    "price": {"amount": 10.5, "currency": "USD"},
    "tags": ["x", "y", "z"],
    "company": {"recordId": "6f1c", "displayName": "Acme"},
    "start": "2024-01-31",
    "stamp": "2024-02-01T06:15:00Z",
    "flag": True,
    "status": "open",
    "num-text": "12",
    "blank": None,
    "empty": "",
}


def ev(expression: str, values: dict[str, Any] | None = None) -> Any:
    return parse_formula(expression).evaluate(VALUES if values is None else values, now=NOW)


def fails_at_parse(expression: str) -> FormulaError:
    with pytest.raises(FormulaError) as info:
        parse_formula(expression)
    assert not isinstance(info.value, FormulaEvalError)
    return info.value


def compute(expression: str, result_type: str = "text", **extra: Any) -> Any:
    config = {"formula": {"expression": expression, "resultType": result_type, **extra}}
    return compute_formula(config, VALUES, now=NOW)
