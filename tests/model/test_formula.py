from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fieldhouse.model.formula import (
    Formula,
    FormulaError,
    FormulaEvalError,
    compute_formula,
    parse_formula,
    validate_formula_config,
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


# --- config validation ------------------------------------------------------------------------


def validate(formula: dict[str, Any]) -> tuple[dict[str, Any], list[Any]]:
    known = {"a", "b", "total", "name"}
    return validate_formula_config({"formula": formula, "other": 1}, known, self_slug="total")


def test_valid_config_fills_referenced_fields() -> None:
    config, issues = validate(
        {"expression": "{b} * {a} + {b}", "resultType": "number", "decimalPlaces": 2}
    )
    assert issues == []
    assert config["other"] == 1
    assert config["formula"]["referencedFields"] == ["b", "a"]
    assert config["formula"]["resultType"] == "number"


def test_result_type_defaults_to_text_and_stale_references_are_replaced() -> None:
    config, issues = validate({"expression": "UPPER({name})", "referencedFields": ["zzz"]})
    assert issues == []
    assert config["formula"] == {
        "expression": "UPPER({name})",
        "referencedFields": ["name"],
        "resultType": "text",
    }


@pytest.mark.parametrize("expression", [None, "", "  ", 5])
def test_missing_expression_is_refused(expression: Any) -> None:
    _, issues = validate({"expression": expression})
    assert [(i.code, i.path) for i in issues] == [
        ("invalid_formula", ("config", "formula", "expression"))
    ]


def test_broken_expression_is_refused_with_its_position() -> None:
    _, issues = validate({"expression": "{a} + + "})
    assert len(issues) == 1
    assert issues[0].code == "invalid_formula"
    assert issues[0].path == ("config", "formula", "expression")
    assert "position 8" in issues[0].message
    assert issues[0].to_json()["position"] == 8


def test_unknown_and_self_references_are_refused() -> None:
    _, issues = validate({"expression": "{a} + {total} + {ghost}"})
    assert [(i.code, i.extra["fieldSlug"]) for i in issues] == [
        ("self_reference", "total"),
        ("unknown_field", "ghost"),
    ]
    assert all(i.path == ("config", "formula", "expression") for i in issues)


@pytest.mark.parametrize(
    ("settings", "path", "code"),
    [
        ({"resultType": "currency"}, "resultType", "invalid_enum_value"),
        ({"decimalPlaces": -1}, "decimalPlaces", "too_small"),
        ({"decimalPlaces": 11}, "decimalPlaces", "too_big"),
        ({"decimalPlaces": 1.5}, "decimalPlaces", "invalid_type"),
        ({"decimalPlaces": True}, "decimalPlaces", "invalid_type"),
        ({"format": 3}, "format", "invalid_type"),
    ],
)
def test_bad_settings(settings: dict[str, Any], path: str, code: str) -> None:
    _, issues = validate({"expression": "1", **settings})
    assert [(i.code, i.path) for i in issues] == [(code, ("config", "formula", path))]


def test_formula_settings_must_be_an_object() -> None:
    config, issues = validate_formula_config({"formula": "1+1"}, [], self_slug="x")
    assert config == {"formula": "1+1"}
    assert [(i.code, i.path) for i in issues] == [("invalid_type", ("config", "formula"))]


# --- compute_formula and result coercion ------------------------------------------------------


@pytest.mark.parametrize(
    ("expression", "result_type", "extra", "expected"),
    [
        ("{a} / {b}", "number", {}, 0.75),
        ("2 / 3", "number", {"decimalPlaces": 2}, 0.67),
        ("2 / 3", "number", {"decimalPlaces": 0}, 1),
        ("7", "number", {"decimalPlaces": 2}, 7.0),
        ("0.1 + 0.2", "number", {}, 0.3),
        ("{num-text}", "number", {}, 12),
        ("TRUE", "number", {}, 1),
        ("'abc'", "number", {}, None),
        ("{a} * 2", "text", {}, "6"),
        ("{half} * 2", "text", {}, "5"),
        ("{flag}", "text", {}, "TRUE"),
        ("{tags}", "text", {}, "x, y, z"),
        ("{a} > 1", "boolean", {}, True),
        ("0", "boolean", {}, False),
        ("'false'", "boolean", {}, False),
        ("{name}", "boolean", {}, True),
        ("{start}", "date", {}, "2024-01-31"),
        ("{stamp}", "date", {}, "2024-02-01T06:15:00Z"),
        ("'2024-02-01T08:15:00+02:00'", "date", {}, "2024-02-01T06:15:00Z"),
        ("NOW()", "date", {}, "2024-03-15T12:30:05Z"),
        ("'whenever'", "date", {}, None),
        ("{blank}", "text", {}, None),
        ("IF(FALSE, 1)", "number", {}, None),
    ],
)
def test_compute_coerces_to_result_type(
    expression: str, result_type: str, extra: dict[str, Any], expected: Any
) -> None:
    result = compute(expression, result_type, **extra)
    assert result == expected
    assert type(result) is type(expected)


def test_compute_defaults_to_text_and_tolerates_bad_configs() -> None:
    assert compute_formula({"formula": {"expression": "1 + 1"}}, {}, now=NOW) == "2"
    assert compute_formula({"formula": {"expression": "1 +"}}, {}, now=NOW) is None
    assert compute_formula({"formula": {"expression": 7}}, {}, now=NOW) is None
    assert compute_formula({}, {}, now=NOW) is None


def test_naive_now_is_taken_as_utc() -> None:
    config = {"formula": {"expression": "NOW()"}}
    assert compute_formula(config, {}, now=datetime(2024, 1, 2, 3, 4, 5)) == "2024-01-02T03:04:05Z"


def test_formula_source_never_uses_python_eval() -> None:
    import fieldhouse.model.formula_eval as ev_mod
    import fieldhouse.model.formula_parse as parse_mod

    for module in (ev_mod, parse_mod):
        source = Path(module.__file__ or "").read_text(encoding="utf-8")
        assert "eval(" not in source
        assert "exec(" not in source and "literal_eval" not in source


# --- properties -------------------------------------------------------------------------------

_ALPHABET = st.sampled_from(list("{}()'\",\\ +-*/&=!<>.0123456789abcdefxyzIFSUMRONDLEAT_e\n"))
_TOKENS = st.sampled_from(
    [
        "{a}",
        "{name}",
        "{blank}",
        "{tags}",
        "{price}",
        "{start}",
        "{zero}",
        "1",
        "0",
        "2.5",
        "'x'",
        '"2024-01-01"',
        "TRUE",
        "+",
        "-",
        "*",
        "/",
        "&",
        "=",
        "<",
        ">=",
        "<>",
        "(",
        ")",
        ",",
        "IF(",
        "SUM(",
        "CONCAT(",
        "LEN(",
        "ROUND(",
        "DATEADD(",
        "DATEDIFF(",
        "MIN(",
        "LEFT(",
        "ISBLANK(",
        "AND(",
        "NOT(",
        "YEAR(",
        "TODAY()",
        "NOW()",
        "'months'",
        "1e308",
    ]
)


@settings(max_examples=400, deadline=None)
@given(st.one_of(st.text(max_size=80), st.text(_ALPHABET, max_size=80)))
def test_parse_arbitrary_text_returns_formula_or_raises_formula_error(text: str) -> None:
    try:
        formula = parse_formula(text)
    except FormulaError as error:
        assert 0 <= error.position <= len(text)
    else:
        assert isinstance(formula, Formula)


@settings(max_examples=600, deadline=None)
@given(
    st.lists(_TOKENS, min_size=1, max_size=25).map(" ".join),
    st.sampled_from(["text", "number", "date", "boolean", "bogus"]),
    st.one_of(st.none(), st.integers(-2, 12)),
)
def test_compute_never_raises(expression: str, result_type: str, places: int | None) -> None:
    config = {
        "formula": {"expression": expression, "resultType": result_type, "decimalPlaces": places}
    }
    compute_formula(config, VALUES, now=NOW)


@settings(max_examples=200, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(["a", "name", "blank", "tags"]),
        st.recursive(
            st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=10),
            lambda inner: (
                st.lists(inner, max_size=3)
                | st.dictionaries(st.sampled_from(["amount", "displayName", "x"]), inner)
            ),
            max_leaves=6,
        ),
    ),
    st.sampled_from(
        [
            "{a} + {name}",
            "CONCAT({a}, {tags})",
            "SUM({a}, {tags})",
            "{a} < {name}",
            "LEN({tags}) & UPPER({name})",
            "ROUND({a}, 2)",
            "DATEADD({name}, {a}, 'months')",
            "MAX({tags}, {a})",
            "IF({blank}, {a}, {name})",
            "FLOOR({a} / {name})",
            "DATEDIFF({a}, {name}, 'years')",
            "{a} = {tags}",
            "LEFT({name}, {a})",
        ]
    ),
)
def test_compute_never_raises_on_arbitrary_values(values: dict[str, Any], expression: str) -> None:
    for result_type in ("text", "number", "date", "boolean"):
        config = {"formula": {"expression": expression, "resultType": result_type}}
        compute_formula(config, values, now=NOW)
