"""Typed values the offline planner reads from everyday text: dates relative to today,
times, amounts, e-mails and phones."""

from __future__ import annotations

from datetime import date

import pytest

from fieldhouse.agents.providers.offline_values import (
    find_amounts,
    find_date,
    find_email,
    find_phone,
    find_range,
    find_time,
)

#: a Saturday
TODAY = date(2026, 11, 28)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("call hedy tmrw", date(2026, 11, 29)),
        ("send pricing by fri", date(2026, 12, 4)),
        ("due next Friday", date(2026, 12, 4)),
        ("the workshop on saturday", date(2026, 12, 5)),  # today is Saturday: a week on
        ("in 3 days", date(2026, 12, 1)),
        ("due in two weeks", date(2026, 12, 12)),
        ("next week", date(2026, 12, 5)),
        ("to the 15th of next month", date(2026, 12, 15)),
        ("to the fourteenth of next month", date(2026, 12, 14)),  # an ordinal in words
        ("on the twenty-first day of next month", date(2026, 12, 21)),
        ("on the last day of next month", date(2026, 12, 31)),  # not "next month" alone
        ("by the end of the month", date(2026, 11, 30)),
        ("on dec 15", date(2026, 12, 15)),
        ("on 3 january", date(2027, 1, 3)),
        ("on 2027-02-01", date(2027, 2, 1)),
        ("today", TODAY),
        # office shorthand: "EOD" and "COB" today unless a day follows, "EOW" Friday
        ("due EOD", TODAY),
        ("due EOD tomorrow", date(2026, 11, 29)),
        ("by COB Thursday", date(2026, 12, 3)),
        ("due EOW", date(2026, 12, 4)),
    ],
)
def test_dates_relative_to_today(text: str, expected: date) -> None:
    found = find_date(text, TODAY)
    assert found is not None and found.value == expected, text


def test_a_date_span_takes_its_lead_word_and_nothing_else() -> None:
    found = find_date("book the venue due in two weeks", TODAY)
    assert found is not None
    assert "book the venue due in two weeks"[found.start : found.end] == "due in two weeks"
    assert find_date("prepare the board slides", TODAY) is None


def test_periods() -> None:
    span, _ = find_range("deals closing in the next 30 days", TODAY) or (None, None)
    assert span is not None and (span.first, span.last) == (TODAY, date(2026, 12, 28))
    span, _ = find_range("deals that closed last month", TODAY) or (None, None)
    assert span is not None and (span.first, span.last) == (date(2026, 10, 1), date(2026, 10, 31))


@pytest.mark.parametrize(
    ("text", "expected"),
    [("at 3pm", (15, 0)), ("at 9", (9, 0)), ("8:45 pm", (20, 45)), ("at noon", (12, 0))],
)
def test_times(text: str, expected: tuple[int, int]) -> None:
    found = find_time(text)
    assert found is not None and found.value == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("worth $85,000", (85000, "USD")),
        ("maintenance plan $1.2m", (1200000, "USD")),
        ("deals over 50k", (50000, None)),
        ("2.5k a month", (2500, None)),
        ("€300", (300, "EUR")),
        # a currency's code before the number, and thousands grouped with dots
        ("USD 47,500", (47500, "USD")),
        ("EUR 1.250.000", (1250000, "EUR")),
        ("GBP 9,800.00", (9800, "GBP")),
    ],
)
def test_amounts(text: str, expected: tuple[int, str | None]) -> None:
    (found,) = find_amounts(text, money_only=True)
    assert found.value == expected


def test_dots_that_group_thousands_are_no_decimal_point() -> None:
    """ "27.000" has three digits after its dot, which no amount's cents have: 27000, as
    people who write thousands with dots mean it; "3.75" and "12.5k" keep their point."""
    assert [f.value for f in find_amounts("now 27.000, up from 21.500")] == [
        (27000, None),
        (21500, None),
    ]
    assert [f.value for f in find_amounts("3.75 and 12.5k")] == [(3.75, None), (12500, None)]


def test_a_plain_number_is_no_money_and_a_percentage_no_amount() -> None:
    assert find_amounts("probability 50", money_only=True) == []
    assert find_amounts("above 50%") == []


def test_emails_and_phones() -> None:
    email = find_email("Her email is maria.garcia@contoso.example.")
    assert email is not None and email.value == "maria.garcia@contoso.example"
    phone = find_phone("hedy lamarr phone +1 415 555-0199")
    assert phone is not None and phone.value == "+14155550199"
    assert find_phone("due on 2026-12-01") is None
