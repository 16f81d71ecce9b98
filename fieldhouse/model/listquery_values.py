"""Typing of advanced-filter operands by filter kind (see ``listquery_kinds``).

Each operand is checked and normalised once here, so the SQL compiler only ever binds values of
the expected Python type: ``str`` for text-like kinds, ``int``/``float`` for numbers, ``bool``
for booleans, ``YYYY-MM-DD`` for dates, and for ``datetime`` either ``YYYY-MM-DD`` (a whole UTC
day) or ``YYYY-MM-DDTHH:MM:SS.ffffffZ`` (the records' own text form, so text order is time
order).
"""

from __future__ import annotations

import math
import re
from datetime import UTC, date, datetime
from typing import Any

_TIME = re.compile(r"T?(([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,6})?)?)")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")
_SAFE_INT = 2**53


def coerce_operand(base: str, raw: Any) -> tuple[Any, str | None]:
    """``(value, None)`` when ``raw`` is a valid operand for ``base``, else ``(raw, message)``."""
    if isinstance(raw, str) and not _utf8(raw):
        return raw, "Expected valid UTF-8 text"
    if base in ("text", "exact", "ref", "opaque"):
        return _text(raw)
    if base == "number":
        return _number(raw)
    if base == "boolean":
        return _boolean(raw)
    if base == "date":
        return _date(raw)
    if base == "datetime":
        return _datetime(raw)
    if base == "time":
        match = _TIME.fullmatch(raw) if isinstance(raw, str) else None
        if match is not None:
            return match.group(1), None  # as records hold it: without the designator T
        return raw, "Expected a time (HH:MM or HH:MM:SS, optionally after T)"
    return raw, f"Unsupported field kind {base!r}"


def _utf8(s: str) -> bool:
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _text(raw: Any) -> tuple[Any, str | None]:
    if isinstance(raw, str):
        return raw, None
    if isinstance(raw, int | float) and not isinstance(raw, bool) and math.isfinite(raw):
        return str(raw), None
    return raw, "Expected string"


def _number(raw: Any) -> tuple[Any, str | None]:
    value: int | float
    if isinstance(raw, bool):
        return raw, "Expected number, received boolean"
    if isinstance(raw, int | float):
        value = raw
    elif isinstance(raw, str) and _NUMBER.fullmatch(raw.strip()):
        text = raw.strip()
        # past 18 digits the float is as good (and int() refuses thousands of digits)
        whole = re.fullmatch(r"[+-]?\d{1,18}", text) is not None
        value = int(text) if whole else float(text)
    else:
        return raw, "Expected number"
    if isinstance(value, float) and not math.isfinite(value):
        return raw, "Expected a finite number"
    if isinstance(value, int) and abs(value) >= _SAFE_INT:
        value = float(value)  # SQLite integers are 64-bit; JSON numbers are doubles anyway
    return value, None


def _boolean(raw: Any) -> tuple[Any, str | None]:
    if isinstance(raw, bool):
        return raw, None
    if isinstance(raw, str) and raw.lower() in ("true", "false"):
        return raw.lower() == "true", None
    return raw, "Expected boolean"


def _date(raw: Any) -> tuple[Any, str | None]:
    if isinstance(raw, str):
        if _DATE.fullmatch(raw):
            try:
                return date.fromisoformat(raw).isoformat(), None
            except ValueError:
                pass
        else:
            parsed = _parse_datetime(raw)
            if parsed is not None:
                return parsed.date().isoformat(), None
    return raw, "Expected a date string (YYYY-MM-DD)"


def _datetime(raw: Any) -> tuple[Any, str | None]:
    if isinstance(raw, str):
        if _DATE.fullmatch(raw):
            try:
                return date.fromisoformat(raw).isoformat(), None
            except ValueError:
                pass
        else:
            parsed = _parse_datetime(raw)
            if parsed is not None:
                return parsed.strftime("%Y-%m-%dT%H:%M:%S.%fZ"), None
    return raw, "Expected an ISO 8601 date or date-time string"


def _parse_datetime(raw: str) -> datetime | None:
    if len(raw) < 11 or not _DATE.fullmatch(raw[:10]) or raw[10] not in "Tt ":
        return None
    try:
        parsed = datetime.fromisoformat(raw)
    except ValueError:
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    try:
        return parsed.astimezone(UTC)
    except OverflowError:
        return None
