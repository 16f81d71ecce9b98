from __future__ import annotations

import math

import pytest

from tests.model.fields.support import bad, issue_json, ok

# --- number -----------------------------------------------------------------------------------


def test_number_valid() -> None:
    assert ok("number", 42) == 42
    assert ok("number", -1.25) == -1.25
    assert ok("number", 3.0, decimals=0) == 3
    assert isinstance(ok("number", 3.0, decimals=0), int)
    assert ok("number", 1.5, decimals=1) == 1.5
    assert ok("number", 100.0, decimals=0) == 100
    assert ok("number", 10, min=10, max=10) == 10


@pytest.mark.parametrize("value", ["1", True, [1], {"n": 1}])
def test_number_wrong_type(value: object) -> None:
    [found] = issue_json("number", value)
    assert found["code"] == "invalid_type"
    assert found["expected"] == "number"


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_number_rejects_non_finite(value: float) -> None:
    assert bad("number", value) == [("invalid_type", ())]


def test_number_decimals() -> None:
    [found] = issue_json("number", 1.234, decimals=2)
    assert found["code"] == "custom"
    assert "at most 2 decimal place" in found["message"]
    assert bad("number", 0.5, decimals=0) == [("custom", ())]
    assert bad("number", 1e-7, decimals=6) == [("custom", ())]


def test_number_bounds_and_negative() -> None:
    [low] = issue_json("number", 4, min=5)
    assert low == {
        "code": "too_small",
        "path": ["fields", "number"],
        "message": low["message"],
        "minimum": 5,
        "inclusive": True,
        "type": "number",
    }
    assert "greater than or equal to 5" in low["message"]
    [high] = issue_json("number", 11, max=10)
    assert high["code"] == "too_big"
    assert high["maximum"] == 10
    assert bad("number", -1, allowNegative=False) == [("too_small", ())]
    assert ok("number", 0, allowNegative=False) == 0


def test_number_collects_all() -> None:
    assert bad("number", -1.555, decimals=2, allowNegative=False, min=0) == [
        ("custom", ()),
        ("too_small", ()),
    ]
    # a positive minimum already excludes negatives: still one issue, naming the minimum
    assert bad("number", -1, allowNegative=False, min=5) == [("too_small", ())]


# --- currency ---------------------------------------------------------------------------------


def test_currency_valid() -> None:
    assert ok("currency", {"amount": 10.5, "currency": "eur"}) == {
        "amount": 10.5,
        "currency": "EUR",
    }
    config = {"currency": {"defaultCurrency": "USD"}}
    assert ok("currency", {"amount": 3}, **config) == {"amount": 3, "currency": "USD"}
    assert ok("currency", {"amount": 3, "currency": None}, **config)["currency"] == "USD"
    assert ok("currency", {"amount": 5.0, "currency": "JPY"}, currency={"precision": 0}) == {
        "amount": 5,
        "currency": "JPY",
    }


def test_currency_invalid() -> None:
    assert bad("currency", 10) == [("invalid_type", ())]
    assert bad("currency", {"amount": "10", "currency": "US", "fee": 1}) == [
        ("unrecognized_keys", ("fee",)),
        ("invalid_type", ("amount",)),
        ("invalid_string", ("currency",)),
    ]
    assert bad("currency", {"currency": "USD"}) == [("required", ("amount",))]
    assert bad("currency", {"amount": 1}) == [("required", ("currency",))]
    assert bad("currency", {"amount": 1.005, "currency": "USD"}) == [("custom", ("amount",))]
    assert bad("currency", {"amount": 1, "currency": 840}) == [("invalid_type", ("currency",))]


def test_currency_allowed_list() -> None:
    config = {"currency": {"defaultCurrency": "USD", "allowedCurrencies": ["USD", "EUR"]}}
    assert ok("currency", {"amount": 1, "currency": "eur"}, **config)["currency"] == "EUR"
    [found] = issue_json("currency", {"amount": 1, "currency": "GBP"}, **config)
    assert found["code"] == "invalid_enum_value"
    assert found["options"] == ["USD", "EUR"]
    assert found["path"] == ["fields", "currency", "currency"]


# --- rating -----------------------------------------------------------------------------------


def test_rating() -> None:
    assert ok("rating", 4) == 4
    assert ok("rating", 4.0) == 4
    assert ok("rating", 0) == 0
    assert ok("rating", 2.5, rating={"allowHalf": True}) == 2.5
    assert ok("rating", 10, rating={"maxRating": 10}) == 10
    [found] = issue_json("rating", 6)
    assert found["code"] == "too_big"
    assert found["maximum"] == 5
    assert bad("rating", -1) == [("too_small", ())]
    assert bad("rating", 2.5) == [("invalid_type", ())]
    assert bad("rating", 2.25, rating={"allowHalf": True}) == [("custom", ())]
    assert bad("rating", "5") == [("invalid_type", ())]
    assert bad("rating", 11, rating={"maxRating": 99}) == [("too_big", ())]


# --- progress ---------------------------------------------------------------------------------


def test_progress() -> None:
    assert ok("progress", 0) == 0
    assert ok("progress", 100.0) == 100
    assert ok("progress", 33.3) == 33.3
    assert bad("progress", 100.1) == [("too_big", ())]
    assert bad("progress", -0.1) == [("too_small", ())]
    assert bad("progress", "50%") == [("invalid_type", ())]
    assert bad("progress", False) == [("invalid_type", ())]


# --- duration ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        (90, 90),
        (90.0, 90),
        (1.5, 1.5),
        ("1:30", 5400),
        ("0:05", 300),
        ("1:30:15", 5415),
        ("1h 30m", 5400),
        ("2h", 7200),
        ("45m", 2700),
        ("1h 30m 15s", 5415),
        ("1.5h", 5400),
        ("0.25h", 900),
    ],
)
def test_duration_valid(value: object, seconds: float) -> None:
    assert ok("duration", value) == seconds


@pytest.mark.parametrize("value", ["", "abc", "1:60", "1:5", "h", "-1h", "1d", "1:30:99"])
def test_duration_bad_strings(value: str) -> None:
    [found] = issue_json("duration", value)
    assert found["code"] == "custom"
    assert "1h 30m" in found["message"]


def test_duration_other_invalid() -> None:
    assert bad("duration", -5) == [("too_small", ())]
    assert bad("duration", True) == [("invalid_type", ())]
    assert bad("duration", [1]) == [("invalid_type", ())]
    assert bad("duration", math.nan) == [("invalid_type", ())]
