"""Parsing formulas: errors with their position, names, length and depth limits."""

from __future__ import annotations

import pytest

from tests.model.formula_support import ev, fails_at_parse

# --- parse errors -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("expression", "position"),
    [
        ("", 0),
        ("   ", 0),
        ("1 +", 3),
        ("(1 + 2", 6),
        ("1 2", 2),
        ("FOO(1)", 0),
        ("bar", 0),
        ("'open", 0),
        ("1 # 2", 2),
        ("1 == 2", 3),
        ("IF(1, 2", 7),
        ("MAX(1,)", 6),
        ("DATEDIFF('2024-01-01', '2024-02-01', 'weeks')", 37),
        ("DATEADD('2024-01-01', 1, 3)", 25),
    ],
)
def test_parse_errors_carry_a_position(expression: str, position: int) -> None:
    error = fails_at_parse(expression)
    assert error.position == position
    assert f"position {position}" in str(error)


def test_function_names_are_case_insensitive() -> None:
    assert ev("uPpEr('a')") == "A"
    assert ev("Round(2.45, 1)") == 2.5


def test_length_and_depth_limits() -> None:
    assert fails_at_parse("1+" * 1000 + "11").position == 2000
    assert ev("1+" * 999 + "1") == 1000  # 1999 chars, flat: fine
    assert ev("(" * 64 + "1" + ")" * 64) == 1
    assert "deeper" in fails_at_parse("(" * 65 + "1" + ")" * 65).message
    assert "deeper" in fails_at_parse("-" * 65 + "1").message
    assert "deeper" in fails_at_parse("ABS(" * 65 + "1" + ")" * 65).message
    assert ev("-" * 64 + "1") == 1
    assert ev("1+ABS(" * 64 + "1" + ")" * 64) == 65
    assert ev("IF(TRUE, " * 64 + "'deep'" + ")" * 64) == "deep"
    # within the nesting limit, but too many operations on one path for the evaluator
    assert "too deeply" in fails_at_parse("1=1&1+1*(" * 40 + "1" + ")" * 40).message
