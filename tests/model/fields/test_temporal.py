from __future__ import annotations

import pytest

from tests.model.fields.support import bad, issue_json, ok

# --- date -------------------------------------------------------------------------------------


def test_date_valid() -> None:
    assert ok("date", "2024-02-29") == "2024-02-29"
    assert ok("date", "2024-01-01", minDate="2024-01-01", maxDate="2024-01-01") == "2024-01-01"


@pytest.mark.parametrize(
    "value", ["2023-02-29", "2024-1-01", "20240101", "2024-01-01T00:00:00", "01/02/2024", ""]
)
def test_date_invalid_format(value: str) -> None:
    [found] = issue_json("date", value)
    assert found["code"] == "invalid_string"
    assert found["validation"] == "iso_date"


def test_date_bounds_and_type() -> None:
    [low] = issue_json("date", "2023-12-31", minDate="2024-01-01")
    assert low["code"] == "too_small"
    assert low["minimum"] == "2024-01-01"
    assert "on or after 2024-01-01" in low["message"]
    [high] = issue_json("date", "2025-01-01", maxDate="2024-12-31")
    assert high["code"] == "too_big"
    assert high["maximum"] == "2024-12-31"
    assert bad("date", 20240101) == [("invalid_type", ())]


# --- time -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "normalised"),
    [("09:30", "09:30:00"), ("23:59:59", "23:59:59"), ("00:00", "00:00:00")],
)
def test_time_valid(value: str, normalised: str) -> None:
    assert ok("time", value) == normalised


@pytest.mark.parametrize("value", ["24:00", "9:30", "12:60", "12:30:60", "12:30pm", "1230", ""])
def test_time_invalid(value: str) -> None:
    [found] = issue_json("time", value)
    assert found["code"] == "invalid_string"
    assert found["validation"] == "iso_time"


@pytest.mark.parametrize(
    ("value", "normalised"),
    [("T09:30:00", "09:30:00"), ("T09:30", "09:30:00"), ("T23:59:59.25", "23:59:59.25")],
)
def test_time_after_the_iso_8601_time_designator(value: str, normalised: str) -> None:
    """ISO 8601 lets a time of day start with its designator T; the value is stored without."""
    assert ok("time", value) == normalised


@pytest.mark.parametrize("value", ["09:30Z", "09:30+02:00", "t09:30", "TT09:30", "0930"])
def test_a_refused_time_says_which_forms_are_taken(value: str) -> None:
    [found] = issue_json("time", value)
    assert found["message"] == (
        f"Invalid time {value!r}: expected a 24-hour time of day HH:MM, HH:MM:SS or "
        "HH:MM:SS.ffffff, optionally after T (T09:30:00), without a time zone"
    )


def test_time_type() -> None:
    assert bad("time", 930) == [("invalid_type", ())]


# --- date_range -------------------------------------------------------------------------------


def test_date_range_dates() -> None:
    value = {"start": "2024-01-01", "end": "2024-01-31"}
    assert ok("date_range", value) == value
    same = {"start": "2024-01-01", "end": "2024-01-01"}
    assert ok("date_range", same) == same


def test_date_range_invalid() -> None:
    assert bad("date_range", {"start": "2024-02-01", "end": "2024-01-01"}) == [("custom", ("end",))]
    assert bad("date_range", {"start": "2024-13-01", "end": 5, "x": 1}) == [
        ("unrecognized_keys", ("x",)),
        ("invalid_string", ("start",)),
        ("invalid_type", ("end",)),
    ]
    assert bad("date_range", {"start": "2024-01-01"}) == [("required", ("end",))]
    assert bad("date_range", "2024-01-01/2024-01-02") == [("invalid_type", ())]
    assert bad("date_range", {"start": "2024-01-01T00:00Z", "end": "2024-01-02"}) == [
        ("invalid_string", ("start",))
    ]


def test_date_range_with_time_normalises_to_utc() -> None:
    config = {"dateRange": {"includeTime": True}}
    value = {"start": "2024-01-01T10:00+02:00", "end": "2024-01-01T09:00:30.5Z"}
    assert ok("date_range", value, **config) == {
        "start": "2024-01-01T08:00:00Z",
        "end": "2024-01-01T09:00:30.500000Z",
    }


def test_date_range_with_time_invalid() -> None:
    config = {"dateRange": {"includeTime": True}}
    [found] = issue_json(
        "date_range", {"start": "2024-01-01T10:00", "end": "2024-01-02"}, **config
    )[:1]
    assert found["code"] == "invalid_string"
    assert found["validation"] == "iso_datetime"
    assert found["path"] == ["fields", "date-range", "start"]
    later = {"start": "2024-01-01T10:00:00+00:00", "end": "2024-01-01T11:00:00+02:00"}
    assert bad("date_range", later, **config) == [("custom", ("end",))]
