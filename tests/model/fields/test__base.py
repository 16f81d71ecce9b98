"""The normalisers' building blocks: zod-style type names and issues, the safe-number bound,
canonical UUIDs, config readers that fall back instead of failing, and list normalising."""

from __future__ import annotations

import math
from typing import Any

import pytest

from fieldhouse.model.errors import Issue
from fieldhouse.model.fields._base import (
    MAX_SAFE_NUMBER,
    Result,
    cfg_int,
    cfg_number,
    cfg_str_list,
    decimal_places,
    finite_number,
    invalid_enum,
    invalid_type,
    normalise_list,
    optional_string,
    parse_uuid,
    show,
    sub,
    type_name,
    unknown_keys,
)


def shown(issues: list[Issue]) -> list[tuple[str, tuple[str | int, ...], str]]:
    return [(i.code, i.path, i.message) for i in issues]


@pytest.mark.parametrize(
    ("value", "name"),
    [
        (None, "null"),
        (True, "boolean"),
        (1, "number"),
        (1.5, "number"),
        (math.nan, "nan"),
        (-math.inf, "infinity"),
        ("x", "string"),
        ({}, "object"),
        ((), "array"),
        (b"x", "bytes"),
    ],
)
def test_type_names(value: Any, name: str) -> None:
    assert type_name(value) == name


@pytest.mark.parametrize(
    ("value", "places"), [(1.50, 1), (100.0, 0), (1e-7, 7), (3, 0), (0.125, 3)]
)
def test_decimal_places(value: float, places: int) -> None:
    assert decimal_places(value) == places


def test_parse_uuid_takes_only_the_hyphenated_form() -> None:
    text = "0B5D6C1E-8F4A-4C39-9F57-2F2F5B1A0C11"
    assert parse_uuid(text) == text.lower()
    assert parse_uuid(text.replace("-", "")) is None
    assert parse_uuid("{" + text[1:-1] + "}") is None
    assert parse_uuid("z" * 36) is None


def test_finite_number_keeps_within_the_safe_integers() -> None:
    assert finite_number(MAX_SAFE_NUMBER) == (MAX_SAFE_NUMBER, [])
    assert finite_number(-2.5) == (-2.5, [])
    _, big = finite_number(MAX_SAFE_NUMBER + 1)
    assert shown(big) == [
        (
            "too_big",
            (),
            f"Number must be less than or equal to {MAX_SAFE_NUMBER}, received 9007199254740992.0",
        )
    ]
    _, huge = finite_number(-(10**400), ("amount",))  # no float holds it: shown as -inf
    assert shown(huge) == [
        (
            "too_small",
            ("amount",),
            f"Number must be greater than or equal to -{MAX_SAFE_NUMBER}, received -inf",
        )
    ]
    assert shown(finite_number(True)[1]) == [
        ("invalid_type", (), "Expected number, received boolean")
    ]
    assert shown(finite_number(math.nan)[1]) == [
        ("invalid_type", (), "Expected finite number, received nan")
    ]


def test_issue_messages() -> None:
    assert invalid_type("string", 3, ("a",)).to_json()["received"] == "number"
    assert (
        invalid_enum(["a", "b"], "c").message
        == "Invalid option: expected one of 'a' | 'b', received 'c'"
    )
    assert (
        invalid_enum([], 5).message
        == "Invalid option: expected one of (no options configured), received 5"
    )
    assert shown(unknown_keys({"a": 1, "z": 2}, frozenset({"a", "b"}), ("cfg",))) == [
        ("unrecognized_keys", ("cfg", "z"), "Unrecognized key 'z'; allowed keys are a, b")
    ]
    assert show("x" * 100) == "'" + "x" * 56 + "..."
    assert shown(optional_string({"k": "xxxxx"}, "k", 3)[1]) == [
        ("too_big", ("k",), "String must contain at most 3 character(s), received 5")
    ]
    assert optional_string({"k": None}, "k", 3) == (None, [])
    assert shown(optional_string({"k": 1}, "k", 3, ("p",))[1]) == [
        ("invalid_type", ("p", "k"), "Expected string, received number")
    ]


def test_config_readers_fall_back() -> None:
    assert cfg_int({"n": 5.0}, "n", 1, 0, 3) == 3  # clamped; an integral float counts
    assert cfg_int({"n": -9}, "n", 1, 0, 3) == 0
    assert cfg_int({"n": True}, "n", 1, 0, 3) == 1  # a boolean is not an integer
    assert cfg_int({}, "n", 2, 0, 3) == 2
    assert cfg_number({"n": math.inf}, "n") is None and cfg_number({"n": 0}, "n") == 0
    assert cfg_str_list({"o": ["x", 1]}, "o") == ("x",) and cfg_str_list({"o": [1]}, "o") is None
    assert sub({"a": 3}, "a") == {} and sub({"a": {"b": 1}}, "a") == {"b": 1}


def ints(value: Any) -> Result:
    if isinstance(value, int) and not isinstance(value, bool):
        return value, []
    return None, [invalid_type("number", value)]


def test_normalise_list() -> None:
    assert normalise_list([1, 2, 1, 3], ints, key=lambda v: v) == ([1, 2, 3], [])
    assert normalise_list([1, 1], ints) == ([1, 1], [])  # no key: duplicates stay
    value, issues = normalise_list([1, "x", True], ints)
    assert value is None
    assert [(i.path, i.message) for i in issues] == [
        ((1,), "Expected number, received string"),
        ((2,), "Expected number, received boolean"),
    ]
    assert shown(normalise_list([1, 2, 3], ints, max_items=2)[1]) == [
        ("too_big", (), "Array must contain at most 2 item(s), received 3")
    ]
    assert shown(normalise_list("x", ints)[1]) == [
        ("invalid_type", (), "Expected array, received string")
    ]
