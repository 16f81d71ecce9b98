"""Advanced-filter operands typed by kind: what each kind accepts, how it is normalised for
the SQL compiler, and the message for what it refuses."""

from __future__ import annotations

import math
from typing import Any

import pytest

from fieldhouse.model.listquery_values import coerce_operand

ACCEPTED = [
    ("text", "abc", "abc"),
    ("text", 3, "3"),
    ("exact", 2.5, "2.5"),
    ("ref", "0a1b", "0a1b"),
    ("number", 7, 7),
    ("number", " 42 ", 42),
    ("number", "-1.5", -1.5),
    ("number", "1e3", 1000.0),
    ("number", 2**60, float(2**60)),  # beyond 2^53: a double, as JSON numbers are
    ("boolean", True, True),
    ("boolean", "FALSE", False),
    ("date", "2026-02-03", "2026-02-03"),
    ("date", "2026-02-03T23:30:00-02:00", "2026-02-04"),  # the UTC day
    ("datetime", "2026-02-03", "2026-02-03"),  # a whole UTC day
    ("datetime", "2026-02-03T10:00:00+02:00", "2026-02-03T08:00:00.000000Z"),
    ("datetime", "2026-02-03 10:00", "2026-02-03T10:00:00.000000Z"),  # no zone: UTC
    ("time", "09:30", "09:30"),
    ("time", "23:59:59.5", "23:59:59.5"),
    ("time", "T09:30:00", "09:30:00"),  # ISO 8601's time designator, as time values take it
]

REFUSED = [
    ("text", True, "Expected string"),
    ("text", math.inf, "Expected string"),
    ("text", "\ud800", "Expected valid UTF-8 text"),
    ("number", True, "Expected number, received boolean"),
    ("number", "abc", "Expected number"),
    ("number", "1e999", "Expected a finite number"),
    ("number", "9" * 5000, "Expected a finite number"),  # past int()'s digit limit
    ("number", math.nan, "Expected a finite number"),
    ("boolean", 1, "Expected boolean"),
    ("boolean", "yes", "Expected boolean"),
    ("date", "2026-02-30", "Expected a date string (YYYY-MM-DD)"),
    ("date", "03/02/2026", "Expected a date string (YYYY-MM-DD)"),
    ("datetime", "2026-13-01", "Expected an ISO 8601 date or date-time string"),
    ("datetime", "9999-12-31T23:00:00-05:00", "Expected an ISO 8601 date or date-time string"),
    ("datetime", 1700000000, "Expected an ISO 8601 date or date-time string"),
    ("time", "24:00", "Expected a time (HH:MM or HH:MM:SS, optionally after T)"),
    ("time", "9:30", "Expected a time (HH:MM or HH:MM:SS, optionally after T)"),
    ("hologram", "x", "Unsupported field kind 'hologram'"),
]


@pytest.mark.parametrize(("base", "raw", "value"), ACCEPTED)
def test_accepted_operands_are_normalised(base: str, raw: Any, value: Any) -> None:
    got, message = coerce_operand(base, raw)
    assert message is None
    assert got == value and type(got) is type(value)


@pytest.mark.parametrize(("base", "raw", "message"), REFUSED)
def test_refused_operands_say_what_was_expected(base: str, raw: Any, message: str) -> None:
    got, said = coerce_operand(base, raw)
    assert said == message
    assert got is raw  # handed back untouched, for the issue's ``received``


def test_datetime_text_sorts_as_time() -> None:
    """Normalised date-times are the records' own text form, so text order is time order."""
    times = ["2026-02-03T10:00:00+05:00", "2026-02-03T04:59:59.5Z", "2026-02-03T05:00:00Z"]
    texts = [coerce_operand("datetime", t)[0] for t in times]
    assert sorted(texts) == [texts[1], texts[0], texts[2]]
    assert texts[0] == texts[2]
