"""Formula fields: their config, a value of the result type, properties of the whole."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fieldhouse.model.formula import (
    Formula,
    FormulaError,
    compute_formula,
    parse_formula,
    validate_formula_config,
)
from tests.model.formula_support import NOW, VALUES, compute

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
