"""date, time and date_range values."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping
from typing import Any

from fieldhouse.model.errors import Issue
from fieldhouse.model.fields._base import (
    Path,
    Result,
    cfg_bool,
    invalid_string,
    invalid_type,
    issue,
    required,
    show,
    sub,
    unknown_keys,
)
from fieldhouse.model.fields.base import FieldType
from fieldhouse.model.fields.kind import FilterKind
from fieldhouse.model.schema import FieldDef

_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
#: ISO 8601's extended format, optionally after the time designator T (``T09:30``)
_TIME = re.compile(
    r"T?(?P<h>[01][0-9]|2[0-3]):(?P<m>[0-5][0-9])"
    r"(?::(?P<s>[0-5][0-9])(?:\.(?P<f>[0-9]{1,6}))?)?"
)
_DATETIME = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:\.[0-9]{1,6})?)?"
    r"(?:Z|[+-][0-9]{2}:[0-9]{2})"
)
_RANGE_KEYS = frozenset({"start", "end"})


def parse_date(value: Any, path: Path = ()) -> tuple[dt.date | None, list[Issue]]:
    """A strict ``YYYY-MM-DD`` calendar date."""
    if not isinstance(value, str):
        return None, [invalid_type("string", value, path)]
    if _DATE.fullmatch(value) is not None:
        try:
            return dt.date.fromisoformat(value), []
        except ValueError:
            pass
    return None, [
        invalid_string(
            "iso_date", f"Invalid date {show(value)}: expected a calendar date YYYY-MM-DD", path
        )
    ]


def parse_datetime(value: Any, path: Path = ()) -> tuple[dt.datetime | None, list[Issue]]:
    """An ISO 8601 date-time with ``Z`` or a ``+HH:MM`` offset, converted to UTC."""
    if not isinstance(value, str):
        return None, [invalid_type("string", value, path)]
    if _DATETIME.fullmatch(value) is not None:
        try:
            parsed = dt.datetime.fromisoformat(value)
            return parsed.astimezone(dt.UTC), []
        except (ValueError, OverflowError):
            pass
    return None, [
        invalid_string(
            "iso_datetime",
            f"Invalid date-time {show(value)}: expected ISO 8601 YYYY-MM-DDTHH:MM[:SS] "
            "with Z or a +HH:MM offset",
            path,
        )
    ]


def format_utc(moment: dt.datetime) -> str:
    """``YYYY-MM-DDTHH:MM:SS[.ffffff]Z`` for an aware datetime already in UTC."""
    spec = "microseconds" if moment.microsecond else "seconds"
    return moment.replace(tzinfo=None).isoformat(timespec=spec) + "Z"


def _bound(config: Mapping[str, Any], key: str) -> dt.date | None:
    raw = config.get(key)
    if not isinstance(raw, str) or len(raw) < 10:
        return None
    try:
        return dt.date.fromisoformat(raw[:10])
    except ValueError:
        return None


def normalise_date(field: FieldDef, value: Any) -> Result:
    """``YYYY-MM-DD`` between ``minDate`` and ``maxDate`` (inclusive) when set."""
    day, issues = parse_date(value)
    if day is None:
        return None, issues
    earliest = _bound(field.config, "minDate")
    if earliest is not None and day < earliest:
        issues.append(
            issue(
                "too_small",
                f"Date must be on or after {earliest.isoformat()}, received {day.isoformat()}",
                minimum=earliest.isoformat(),
                inclusive=True,
                type="date",
            )
        )
    latest = _bound(field.config, "maxDate")
    if latest is not None and day > latest:
        issues.append(
            issue(
                "too_big",
                f"Date must be on or before {latest.isoformat()}, received {day.isoformat()}",
                maximum=latest.isoformat(),
                inclusive=True,
                type="date",
            )
        )
    return (None, issues) if issues else (day.isoformat(), [])


def normalise_time(field: FieldDef, value: Any) -> Result:
    """ISO 8601 24-hour ``HH:MM``, ``HH:MM:SS`` or ``HH:MM:SS.fff`` (up to microseconds),
    optionally after the time designator ``T``, normalised to ``HH:MM:SS`` and the fraction as
    given (``09:30`` and ``T09:30`` -> ``09:30:00``). A time of day has no zone here."""
    if not isinstance(value, str):
        return None, [invalid_type("string", value)]
    match = _TIME.fullmatch(value)
    if match is None:
        return None, [
            invalid_string(
                "iso_time",
                f"Invalid time {show(value)}: expected a 24-hour time of day HH:MM, HH:MM:SS "
                "or HH:MM:SS.ffffff, optionally after T (T09:30:00), without a time zone",
            )
        ]
    fraction = f".{match.group('f')}" if match.group("f") else ""
    return f"{match.group('h')}:{match.group('m')}:{match.group('s') or '00'}{fraction}", []


def normalise_date_range(field: FieldDef, value: Any) -> Result:
    """``{start, end}`` with start <= end: dates, or UTC date-times when ``includeTime``."""
    if not isinstance(value, Mapping):
        return None, [invalid_type("object", value)]
    include_time = cfg_bool(sub(field.config, "dateRange"), "includeTime", False)
    issues = unknown_keys(value, _RANGE_KEYS)
    ends: dict[str, Any] = {}
    for key in ("start", "end"):
        raw = value.get(key)
        if raw is None:
            issues.append(required((key,), f"The range {key}"))
            continue
        parsed: dt.date | dt.datetime | None
        if include_time:
            parsed, part_issues = parse_datetime(raw, (key,))
        else:
            parsed, part_issues = parse_date(raw, (key,))
        issues.extend(part_issues)
        ends[key] = parsed
    if issues:
        return None, issues
    start, end = ends["start"], ends["end"]
    if start > end:
        return None, [issue("custom", "The range end must be on or after its start", ("end",))]
    if include_time:
        return {"start": format_utc(start), "end": format_utc(end)}, []
    return {"start": start.isoformat(), "end": end.isoformat()}, []


# --- field types ------------------------------------------------------------------------------


class DateType(FieldType):
    data_type = "date"
    spoken = "date"
    example = "2024-05-01"
    grouping = "date"
    csv_cell = "string"
    shown_as = "day"
    edited_as = "day"
    filtered_as = "dates"

    def normalise(self, field: FieldDef, value: Any) -> Result:
        return normalise_date(field, value)

    def filter_kind(self, field: FieldDef) -> FilterKind:
        return FilterKind("date", field.slug)

    def value_schema(self) -> dict[str, Any]:
        return {"type": "string", "format": "date"}


class TimeType(FieldType):
    data_type = "time"
    example = "07:05:00"
    csv_cell = "string"
    shown_as = "clock_time"
    edited_as = "clock_time"
    write_form = (
        "Written as HH:MM, HH:MM:SS or HH:MM:SS.ffffff (24-hour, ISO 8601 extended format), "
        "optionally after the time designator T (T09:30); read as HH:MM:SS with the fraction "
        "as given. A time zone is refused."
    )

    def normalise(self, field: FieldDef, value: Any) -> Result:
        return normalise_time(field, value)

    def filter_kind(self, field: FieldDef) -> FilterKind:
        return FilterKind("time", field.slug)

    def value_schema(self) -> dict[str, Any]:
        return {
            "type": "string",
            "pattern": "^([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\\.[0-9]{1,6})?$",
        }


class DateRangeType(FieldType):
    """``{start, end}``: filters and sorts read the start."""

    data_type = "date_range"
    example = {"start": "2024-01-01", "end": "2024-01-02"}
    grouping = "date"
    shown_as = "days"
    edited_as = "days"
    write_form = (
        "With dateRange.includeTime the ends are written as ISO 8601 date-times with Z or a "
        "+HH:MM offset and read in UTC with Z."
    )

    def normalise(self, field: FieldDef, value: Any) -> Result:
        return normalise_date_range(field, value)

    def filter_kind(self, field: FieldDef) -> FilterKind:
        return FilterKind("date", field.slug, value_key=("start",))

    def value_schema(self) -> dict[str, Any]:
        end = {"type": "string", "description": "a date, or a UTC date-time with includeTime"}
        return {
            "type": "object",
            "required": ["start", "end"],
            "properties": {"start": end, "end": end},
        }
