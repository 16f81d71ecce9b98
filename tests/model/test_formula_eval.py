"""Evaluating formulas: operators, field references, functions, runtime errors."""

from __future__ import annotations

from typing import Any

import pytest

from fieldhouse.model.formula import (
    Formula,
    FormulaEvalError,
    compute_formula,
    parse_formula,
)
from tests.model.formula_support import NOW, VALUES, ev, fails_at_parse

# --- literals, operators, precedence -----------------------------------------------------------


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("42", 42),
        ("1.5", 1.5),
        (".5", 0.5),
        ("2e3", 2000.0),
        ("TRUE", True),
        ("false", False),
        ("1 + 2 * 3", 7),
        ("(1 + 2) * 3", 9),
        ("10 - 4 - 3", 3),
        ("2 * 3 / 4", 1.5),
        ("8 / 2 / 2", 2),
        ("-2 * -3", 6),
        ("-(1 + 2)", -3),
        ("+5", 5),
        ("--5", 5),
        ("1 + 2 = 3", True),
        ("1 & 2 + 3", "15"),
        ("'a' & 1 + 1 = 'a2'", True),
        ("2 * 3 > 5", True),
        ("1 < 2 = TRUE", True),
        ("{a} * {b} + {price}", 22.5),
    ],
)
def test_literals_operators_and_precedence(expression: str, expected: Any) -> None:
    result = ev(expression)
    assert result == expected
    assert type(result) is type(expected)


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ('"plain"', "plain"),
        ("'single'", "single"),
        (r'"say \"hi\""', 'say "hi"'),
        (r"'it\'s'", "it's"),
        (r"'a\nb\tc\\d'", "a\nb\tc\\d"),
        (r"'mixed \"quotes\"'", 'mixed "quotes"'),
        ('"it\'s"', "it's"),
        (r"'\q'", "q"),
    ],
)
def test_string_escapes(expression: str, expected: str) -> None:
    assert ev(expression) == expected


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("{a} = 3", True),
        ("{a} != 3", False),
        ("{a} <> 4", True),
        ("{a} < {b}", True),
        ("{a} <= 3", True),
        ("{a} > 3", False),
        ("{a} >= 3", True),
        ("'abc' < 'abd'", True),
        ("'Ada' = 'ada'", False),
        ("{name} = 'Ada'", True),
        ("{num-text} = 12", True),
        ("{num-text} > 9", True),
        ("'12' > '9'", False),  # both strings: lexicographic
        ("{company} = 'Acme'", True),
        ("{blank} = ''", True),
        ("{blank} = 0", False),
        ("{flag} = TRUE", True),
        ("{start} < {stamp}", True),
    ],
)
def test_comparisons(expression: str, expected: bool) -> None:
    assert ev(expression) is expected


def test_ordering_incomparable_values_is_a_runtime_error() -> None:
    with pytest.raises(FormulaEvalError):
        ev("'abc' < 3")
    with pytest.raises(FormulaEvalError):
        ev("{blank} < 3")


# --- field references -------------------------------------------------------------------------


def test_referenced_fields_are_distinct_in_order_of_first_appearance() -> None:
    formula = parse_formula("{b} + IF({a} > 1, {b}, {c-1}) + {a} + {x_y}")
    assert isinstance(formula, Formula)
    assert formula.expression == "{b} + IF({a} > 1, {b}, {c-1}) + {a} + {x_y}"
    assert formula.referenced_fields == ("b", "a", "c-1", "x_y")


def test_value_conventions() -> None:
    assert ev("{price} * 2") == 21.0
    assert ev("{company} & '!'") == "Acme!"
    assert ev("{tags} & ''") == "x, y, z"
    assert ev("{missing} & 'x'") == "x"


@pytest.mark.parametrize("expression", ["{Bad}", "{}", "{a b}", "{a", "{a.b}"])
def test_malformed_field_reference(expression: str) -> None:
    assert fails_at_parse(expression).position == 0


# --- functions --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("CONCAT('a', 1, TRUE)", "a1TRUE"),
        ("CONCAT({name}, {blank}, '-', {tags})", "Ada-x, y, z"),
        ("UPPER({name})", "ADA"),
        ("lower('MiXed')", "mixed"),
        ("LEFT('hello', 2)", "he"),
        ("RIGHT('hello', 3)", "llo"),
        ("RIGHT('hello', 0)", ""),
        ("LEFT('hi', 10)", "hi"),
        ("TRIM({pad})", "lots of space"),
        ("LEN('hello')", 5),
        ("LEN({tags})", 3),
        ("SUM(1, 2, {price})", 13.5),
        ("SUM({a}, {blank}, {empty})", 3),
        ("ROUND(2.5)", 3),
        ("ROUND(-2.5)", -3),
        ("ROUND(1.005, 2)", 1.01),
        ("ROUND(1234, -2)", 1200),
        ("ABS(-4)", 4),
        ("FLOOR(2.7)", 2),
        ("FLOOR(-2.1)", -3),
        ("CEIL(2.1)", 3),
        ("MIN(3, 1, 2)", 1),
        ("MAX(3, {b}, 2)", 4),
        ("DATEDIFF({start}, '2024-03-01')", 30),
        ("DATEDIFF('2024-03-01', {start})", -30),
        ("DATEDIFF({start}, {stamp}, 'hours')", 30),
        ("DATEDIFF({start}, {stamp}, 'minutes')", 30 * 60 + 15),
        ("DATEDIFF({start}, '2024-02-29', 'months')", 0),
        ("DATEDIFF({start}, '2024-03-31', 'months')", 2),
        ("DATEDIFF('2020-06-01', '2024-05-31', 'years')", 3),
        ("DATEADD({start}, 1)", "2024-02-01"),
        ("DATEADD({start}, 1, 'months')", "2024-02-29"),
        ("DATEADD({start}, -1, 'years')", "2023-01-31"),
        ("DATEADD({start}, 90, 'minutes')", "2024-01-31T01:30:00Z"),
        ("DATEADD({stamp}, 2, 'hours')", "2024-02-01T08:15:00Z"),
        ("TODAY()", "2024-03-15"),
        ("NOW()", "2024-03-15T12:30:05Z"),
        ("YEAR({start})", 2024),
        ("MONTH({stamp})", 2),
        ("DAY(TODAY())", 15),
        ("IF({a} > 2, 'big', 'small')", "big"),
        ("IF({a} > 5, 'big', 'small')", "small"),
        ("IF(FALSE, 1)", None),
        ("IF(TRUE, 1, 1 / 0)", 1),
        ("AND({flag}, {a} = 3)", True),
        ("AND(TRUE, 0)", False),
        ("OR(FALSE, {blank}, 'x' = 'x')", True),
        ("OR(FALSE, 0)", False),
        ("NOT({flag})", False),
        ("ISBLANK({blank})", True),
        ("ISBLANK({empty})", True),
        ("ISBLANK({unknown})", True),
        ("ISBLANK({name})", False),
    ],
)
def test_functions(expression: str, expected: Any) -> None:
    assert ev(expression) == expected


@pytest.mark.parametrize(
    "expression",
    [
        "CONCAT()",
        "UPPER()",
        "LOWER('a', 'b')",
        "LEFT('a')",
        "RIGHT('a', 1, 2)",
        "TRIM()",
        "LEN('a', 'b')",
        "SUM()",
        "ROUND(1, 2, 3)",
        "ABS()",
        "FLOOR(1, 2)",
        "CEIL()",
        "MIN()",
        "MAX()",
        "DATEDIFF('2024-01-01')",
        "DATEDIFF('2024-01-01', '2024-01-02', 'days', 1)",
        "DATEADD('2024-01-01')",
        "TODAY(1)",
        "NOW(1)",
        "YEAR()",
        "MONTH('2024-01-01', 1)",
        "DAY()",
        "IF(TRUE)",
        "IF(TRUE, 1, 2, 3)",
        "AND()",
        "OR()",
        "NOT(1, 2)",
        "ISBLANK()",
    ],
)
def test_arity_is_checked_at_parse_time(expression: str) -> None:
    error = fails_at_parse(expression)
    assert "argument" in error.message
    assert error.position == 0


@pytest.mark.parametrize(
    "expression",
    [
        "CONCAT({price2})",  # an object that is neither currency nor reference
        "UPPER({blank})",
        "LOWER({price2})",
        "LEFT('abc', -1)",
        "RIGHT({blank}, 1)",
        "TRIM({blank})",
        "LEN({blank})",
        "SUM('x', 1)",
        "ROUND('x')",
        "ABS({blank})",
        "FLOOR('abc')",
        "CEIL({tags})",
        "MIN({blank}, 1)",
        "MAX('a')",
        "DATEDIFF('not a date', {start})",
        "DATEDIFF({start}, {start}, {name})",
        "DATEADD({start}, 'x')",
        "DATEADD({start}, 1.5, 'months')",
        "DATEADD('9999-12-31', 1)",
        "YEAR('soon')",
        "MONTH(3)",
        "DAY({blank})",
        "IF(1 / 0, 1, 2)",
        "AND(1 / {zero})",
        "OR({a} - 'x')",
        "NOT({blank} * 2)",
        "ISBLANK(1 / 0)",
        "TODAY() + 1",
        "NOW() * 2",
        "{a} / {zero}",
        "{blank} + 1",
        "{name} - 1",
        "-{name}",
    ],
)
def test_runtime_errors_raise_from_evaluate_and_compute_to_none(expression: str) -> None:
    values = {**VALUES, "price2": {"street": "1 Main"}}
    with pytest.raises(FormulaEvalError):
        parse_formula(expression).evaluate(values, now=NOW)
    for result_type in ("text", "number", "date", "boolean"):
        config = {"formula": {"expression": expression, "resultType": result_type}}
        assert compute_formula(config, values, now=NOW) is None
