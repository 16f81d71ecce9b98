"""number, currency, rating, progress and duration: numbers, bounded to +-(2^53 - 1)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache
from typing import Any, ClassVar

from fieldhouse.model.errors import Issue
from fieldhouse.model.fields._base import (
    MAX_SAFE_NUMBER,
    Result,
    cfg_bool,
    cfg_int,
    cfg_number,
    cfg_str,
    cfg_str_list,
    decimal_places,
    finite_number,
    integral,
    invalid_enum,
    invalid_string,
    invalid_type,
    issue,
    required,
    show,
    sub,
    too_big_number,
    too_small_number,
    unknown_keys,
)
from fieldhouse.model.fields.base import CellKind, EditedAs, FieldType, FilteredAs, ShownAs, Spoken
from fieldhouse.model.fields.kind import FilterKind
from fieldhouse.model.schema import FieldDef


@cache
def currency_codes() -> frozenset[str]:
    """ISO 4217 alphabetic codes of the currencies in use (pycountry's copy of the standard),
    read at the first currency value or schema: a worker that meets none does not hold
    pycountry (~2 MB)."""
    import pycountry

    return frozenset(c.alpha_3 for c in pycountry.currencies)


_CURRENCY_KEYS = frozenset({"amount", "currency"})
_HMS = re.compile(r"(?P<h>[0-9]+):(?P<m>[0-5][0-9])(?::(?P<s>[0-5][0-9]))?")
_UNITS = re.compile(
    r"\s*(?:(?P<h>[0-9]+(?:\.[0-9]+)?)\s*h)?\s*(?:(?P<m>[0-9]+(?:\.[0-9]+)?)\s*m)?"
    r"\s*(?:(?P<s>[0-9]+(?:\.[0-9]+)?)\s*s)?\s*",
    re.IGNORECASE,
)
_ISO_DURATION = re.compile(
    r"P(?:(?P<w>[0-9]+(?:[.,][0-9]+)?)W)?(?:(?P<d>[0-9]+(?:[.,][0-9]+)?)D)?"
    r"(?:T(?:(?P<h>[0-9]+(?:[.,][0-9]+)?)H)?(?:(?P<m>[0-9]+(?:[.,][0-9]+)?)M)?"
    r"(?:(?P<s>[0-9]+(?:[.,][0-9]+)?)S)?)?",
    re.IGNORECASE,
)
_ISO_SCALES = (("w", 604_800), ("d", 86_400), ("h", 3600), ("m", 60), ("s", 1))
_MAX_DIGITS = 15


def _too_many_places(allowed: int, places: int) -> Issue:
    return issue(
        "custom",
        f"Number must have at most {allowed} decimal place(s), received {places}",
        maximum=allowed,
    )


def normalise_number(field: FieldDef, value: Any) -> Result:
    """A finite number within ``min``/``max``, ``decimals`` places, non-negative if asked."""
    number, issues = finite_number(value)
    if number is None:
        return None, issues
    config = field.config
    decimals = config.get("decimals")
    if isinstance(decimals, int) and not isinstance(decimals, bool) and 0 <= decimals <= 10:
        places = decimal_places(number)
        if places > decimals:
            issues.append(_too_many_places(decimals, places))
        if decimals == 0:
            number = integral(number)
    minimum = cfg_number(config, "min")
    negative_refused = not cfg_bool(config, "allowNegative", True) and number < 0
    if negative_refused and (minimum is None or minimum <= 0):
        # one problem, one issue: the lower bound is reported once, by the stricter rule
        issues.append(
            issue(
                "too_small",
                f"Number must not be negative, received {number}",
                minimum=0,
                inclusive=True,
                type="number",
            )
        )
    if minimum is not None and number < minimum and not (negative_refused and minimum <= 0):
        issues.append(too_small_number(minimum, number))
    maximum = cfg_number(config, "max")
    if maximum is not None and number > maximum:
        issues.append(too_big_number(maximum, number))
    return (None, issues) if issues else (number, [])


def normalise_currency(field: FieldDef, value: Any) -> Result:
    """``{amount, currency}``; the code defaults to ``currency.defaultCurrency``."""
    if not isinstance(value, Mapping):
        return None, [invalid_type("object", value)]
    settings = sub(field.config, "currency")
    issues = unknown_keys(value, _CURRENCY_KEYS)
    amount: int | float | None = None
    if value.get("amount") is None:
        issues.append(required(("amount",), "An amount"))
    else:
        amount, amount_issues = finite_number(value["amount"], ("amount",))
        issues.extend(amount_issues)
    if amount is not None:
        precision = cfg_int(settings, "precision", 2, 0, 10)
        places = decimal_places(amount)
        if places > precision:
            issues.append(_too_many_places(precision, places).prefixed("amount"))
        if precision == 0:
            amount = integral(amount)
    code: Any = value.get("currency")
    if code is None:
        code = cfg_str(settings, "defaultCurrency")
        if code is None:
            issues.append(
                required(("currency",), "A currency code (the field has no default currency)")
            )
    if code is not None:
        if not isinstance(code, str):
            issues.append(invalid_type("string", code, ("currency",)))
        elif code.upper() not in currency_codes():
            issues.append(
                invalid_string(
                    "regex",
                    f"Invalid currency code {show(code)}: expected an ISO 4217 currency code "
                    "such as USD, EUR or JPY",
                    ("currency",),
                )
            )
        else:
            code = code.upper()
            allowed = cfg_str_list(settings, "allowedCurrencies")
            if allowed is not None and code not in {a.upper() for a in allowed}:
                issues.append(invalid_enum(allowed, code, ("currency",)))
    return (None, issues) if issues else ({"amount": amount, "currency": code}, [])


def normalise_rating(field: FieldDef, value: Any) -> Result:
    """A number in ``0..rating.maxRating`` (5): whole, or in halves when ``allowHalf``."""
    number, issues = finite_number(value)
    if number is None:
        return None, issues
    settings = sub(field.config, "rating")
    top = cfg_int(settings, "maxRating", 5, 1, 10)
    if number < 0:
        issues.append(too_small_number(0, number))
    elif number > top:
        issues.append(too_big_number(top, number))
    if not issues and isinstance(number, float):
        if cfg_bool(settings, "allowHalf", False):
            if not (number * 2).is_integer():
                issues.append(
                    issue("custom", f"Rating must be a multiple of 0.5, received {number}")
                )
        elif not number.is_integer():
            issues.append(
                issue(
                    "invalid_type",
                    "Rating must be a whole number (half ratings are not enabled), "
                    f"received {number}",
                    expected="integer",
                    received="float",
                )
            )
    return (None, issues) if issues else (integral(number), [])


def normalise_progress(field: FieldDef, value: Any) -> Result:
    """A number in ``0..100``."""
    number, issues = finite_number(value)
    if number is None:
        return None, issues
    if number < 0:
        issues.append(too_small_number(0, number))
    elif number > 100:
        issues.append(too_big_number(100, number))
    return (None, issues) if issues else (integral(number), [])


def parse_duration(text: str) -> float | None:
    """Seconds for ``H:MM``, ``H:MM:SS``, ``1h 30m 15s``, ``1.5h`` or ISO 8601 ``PT1H30M``
    (weeks, days, hours, minutes, seconds; no years or months, whose length varies); None when
    unparseable."""
    if len(text) > 64:
        return None
    iso = _ISO_DURATION.fullmatch(text.strip())
    if iso is not None:
        return _iso_seconds(text.strip(), iso)
    clock = _HMS.fullmatch(text.strip())
    if clock is not None:
        if len(clock.group("h")) > _MAX_DIGITS:
            return None
        return (
            int(clock.group("h")) * 3600 + int(clock.group("m")) * 60 + int(clock.group("s") or 0)
        )
    units = _UNITS.fullmatch(text)
    if units is None or not any(units.group(g) for g in ("h", "m", "s")):
        return None
    total = 0.0
    for group, scale in (("h", 3600), ("m", 60), ("s", 1)):
        part = units.group(group)
        if part:
            if len(part) > _MAX_DIGITS:
                return None
            total += float(part) * scale
    return total


def _iso_seconds(text: str, match: re.Match[str]) -> float | None:
    parts = {g: match.group(g) for g, _ in _ISO_SCALES}
    if not any(parts.values()) or text.upper().endswith("T"):
        return None
    total = 0.0
    for group, scale in _ISO_SCALES:
        part = parts[group]
        if part:
            if len(part) > _MAX_DIGITS:
                return None
            total += float(part.replace(",", ".")) * scale
    return total


def normalise_duration(field: FieldDef, value: Any) -> Result:
    """Non-negative seconds, from a number of seconds or a duration string."""
    if isinstance(value, str):
        seconds = parse_duration(value)
        if seconds is None:
            return None, [
                issue(
                    "custom",
                    f"Invalid duration {show(value)}: expected seconds as a number, or a string "
                    "such as 1:30, 1:30:00, 1h 30m, 1.5h or PT1H30M",
                )
            ]
        if seconds > MAX_SAFE_NUMBER:
            return None, [too_big_number(MAX_SAFE_NUMBER, seconds)]
        return integral(seconds), []
    if not isinstance(value, int | float) or isinstance(value, bool):
        return None, [invalid_type("number or duration string", value)]
    number, issues = finite_number(value)
    if number is None:
        return None, issues
    if number < 0:
        return None, [too_small_number(0, number)]
    return integral(number), []


# --- field types ------------------------------------------------------------------------------

_NUMBER: dict[str, Any] = {
    "type": "number",
    "minimum": -MAX_SAFE_NUMBER,
    "maximum": MAX_SAFE_NUMBER,
}


class NumberType(FieldType):
    data_type = "number"
    spoken: ClassVar[Spoken | None] = "number"
    example: ClassVar[Any] = 12.5
    csv_cell: ClassVar[CellKind] = "number"
    shown_as: ClassVar[ShownAs] = "amount"
    edited_as: ClassVar[EditedAs | None] = "amount"
    filtered_as: ClassVar[FilteredAs | None] = "range"
    write_form: ClassVar[str | None] = (
        "A number without a fractional part is read as an integer when the field has decimals "
        "0 (5.0 is read 5). Numbers beyond +-(2^53 - 1) are refused."
    )

    def normalise(self, field: FieldDef, value: Any) -> Result:
        return normalise_number(field, value)

    def filter_kind(self, field: FieldDef) -> FilterKind:
        return FilterKind("number", field.slug)

    def value_schema(self) -> dict[str, Any]:
        return dict(_NUMBER)


class CurrencyType(NumberType):
    """``{amount, currency}``: filters and sorts read the amount."""

    data_type = "currency"
    spoken = "money"
    example = {"amount": 9.99, "currency": "EUR"}
    csv_cell = "json"
    shown_as = "money"
    edited_as = "money"
    write_form = (
        "The currency code is written in any case and read upper-case; without one the "
        "field's currency.defaultCurrency is used."
    )

    def normalise(self, field: FieldDef, value: Any) -> Result:
        return normalise_currency(field, value)

    def filter_kind(self, field: FieldDef) -> FilterKind:
        return FilterKind("number", field.slug, value_key=("amount",))

    def value_schema(self) -> dict[str, Any]:
        return {
            "type": "object",
            "required": ["amount", "currency"],
            "properties": {
                "amount": dict(_NUMBER),
                "currency": {"type": "string", "enum": sorted(currency_codes())},
            },
        }


class RatingType(NumberType):
    data_type = "rating"
    example = 4
    write_form = None

    def normalise(self, field: FieldDef, value: Any) -> Result:
        return normalise_rating(field, value)

    def value_schema(self) -> dict[str, Any]:
        return {"type": "number", "minimum": 0, "maximum": 10}


class ProgressType(NumberType):
    data_type = "progress"
    example = 50
    shown_as = "percent"
    write_form = None

    def normalise(self, field: FieldDef, value: Any) -> Result:
        return normalise_progress(field, value)

    def value_schema(self) -> dict[str, Any]:
        return {"type": "number", "minimum": 0, "maximum": 100}


class DurationType(NumberType):
    """Stored as seconds; written as seconds or a duration string."""

    data_type = "duration"
    spoken = None  # a length of time: not read from a message
    example = 8100
    shown_as = "hours"
    write_form = (
        "Written as seconds, or as a string: H:MM, H:MM:SS, 1h 30m 15s, 1.5h or ISO 8601 "
        "PT1H30M (weeks, days, hours, minutes, seconds); read as whole or fractional seconds."
    )

    def normalise(self, field: FieldDef, value: Any) -> Result:
        return normalise_duration(field, value)

    def value_schema(self) -> dict[str, Any]:
        return {"type": "number", "minimum": 0, "maximum": MAX_SAFE_NUMBER}
