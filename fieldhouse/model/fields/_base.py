"""Shared building blocks of the value normalisers: issue constructors and config readers.

Every normaliser has the shape ``(field, value) -> (normalised, issues)``; issue paths are
relative to the value, so the driver can prefix them with ``("fields", slug)``.
"""

from __future__ import annotations

import math
import uuid
from collections.abc import Callable, Mapping, Sequence
from decimal import Decimal, InvalidOperation
from typing import Any

from fieldhouse.model.clock import new_id as new_id
from fieldhouse.model.errors import Issue

Path = tuple[str | int, ...]
Result = tuple[Any, list[Issue]]
ItemNormaliser = Callable[[Any], Result]

#: Hard cap on list-valued fields where the config gives no bound of its own.
MAX_LIST_ITEMS = 500
#: The largest magnitude any number in a field value may have: 2^53 - 1, the largest integer a
#: JSON number holds exactly in every client (JavaScript's Number.MAX_SAFE_INTEGER).
MAX_SAFE_NUMBER = 2**53 - 1


# --- describing values ------------------------------------------------------------------------


def type_name(value: Any) -> str:
    """The zod-style name of a JSON value's type, for ``received``."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "number"
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "infinity"
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, Mapping):
        return "object"
    if isinstance(value, list | tuple):
        return "array"
    return type(value).__name__


def show(value: Any, limit: int = 60) -> str:
    """A short printable form of a value for messages."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def is_number(value: Any) -> bool:
    """True for a JSON number: int or float, but not bool."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def is_finite_number(value: Any) -> bool:
    if isinstance(value, int):
        return not isinstance(value, bool)
    return isinstance(value, float) and math.isfinite(value)


def integral(value: int | float) -> int | float:
    """An integral float as int; anything else unchanged."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def decimal_places(value: int | float) -> int:
    """How many decimal places a number carries (``1.50`` -> 1, ``100.0`` -> 0, ``1e-7`` -> 7)."""
    if isinstance(value, int):
        return 0
    try:
        exponent = Decimal(repr(value)).normalize().as_tuple().exponent
    except InvalidOperation:
        return 0
    return max(0, -exponent) if isinstance(exponent, int) else 0


def parse_uuid(value: str) -> str | None:
    """The canonical lower-case form of a hyphenated UUID string, or None."""
    if len(value) != 36:
        return None
    try:
        parsed = uuid.UUID(value)
    except ValueError:
        return None
    canonical = str(parsed)
    return canonical if canonical == value.lower() else None


# --- issue constructors -----------------------------------------------------------------------


def issue(code: str, message: str, path: Path = (), **extra: Any) -> Issue:
    return Issue(code, path, message, extra)


def invalid_type(expected: str, value: Any, path: Path = ()) -> Issue:
    received = type_name(value)
    return Issue(
        "invalid_type",
        path,
        f"Expected {expected}, received {received}",
        {"expected": expected, "received": received},
    )


def required(path: Path, what: str) -> Issue:
    return Issue("required", path, f"{what} is required")


def too_big_string(maximum: int, length: int, path: Path = ()) -> Issue:
    return Issue(
        "too_big",
        path,
        f"String must contain at most {maximum} character(s), received {length}",
        {"maximum": maximum, "inclusive": True, "type": "string"},
    )


def too_big_number(maximum: int | float, value: int | float, path: Path = ()) -> Issue:
    return Issue(
        "too_big",
        path,
        f"Number must be less than or equal to {maximum}, received {value}",
        {"maximum": maximum, "inclusive": True, "type": "number"},
    )


def too_small_number(minimum: int | float, value: int | float, path: Path = ()) -> Issue:
    return Issue(
        "too_small",
        path,
        f"Number must be greater than or equal to {minimum}, received {value}",
        {"minimum": minimum, "inclusive": True, "type": "number"},
    )


def too_big_array(maximum: int, count: int, path: Path = ()) -> Issue:
    return Issue(
        "too_big",
        path,
        f"Array must contain at most {maximum} item(s), received {count}",
        {"maximum": maximum, "inclusive": True, "type": "array"},
    )


def invalid_string(validation: str, message: str, path: Path = ()) -> Issue:
    return Issue("invalid_string", path, message, {"validation": validation})


def invalid_enum(options: Sequence[str], value: Any, path: Path = ()) -> Issue:
    listed = " | ".join(repr(o) for o in options) if options else "(no options configured)"
    return Issue(
        "invalid_enum_value",
        path,
        f"Invalid option: expected one of {listed}, received {show(value)}",
        {"options": list(options), "received": value if isinstance(value, str) else None},
    )


def unknown_keys(obj: Mapping[Any, Any], allowed: frozenset[str], path: Path = ()) -> list[Issue]:
    """One ``unrecognized_keys`` issue per key of ``obj`` not in ``allowed``."""
    out: list[Issue] = []
    for key in obj:
        if key not in allowed:
            name = str(key)
            expected = ", ".join(sorted(allowed))
            out.append(
                Issue(
                    "unrecognized_keys",
                    (*path, name),
                    f"Unrecognized key {name!r}; allowed keys are {expected}",
                    {"keys": [name]},
                )
            )
    return out


def prefix(issues: Sequence[Issue], *head: str | int) -> list[Issue]:
    return [i.prefixed(*head) for i in issues]


def finite_number(value: Any, path: Path = ()) -> tuple[int | float | None, list[Issue]]:
    """``value`` when it is a finite JSON number within +-:data:`MAX_SAFE_NUMBER`, else None
    and one issue."""
    if not is_number(value):
        return None, [invalid_type("number", value, path)]
    if not is_finite_number(value):
        return None, [invalid_type("finite number", value, path)]
    number: int | float = value
    if abs(number) > MAX_SAFE_NUMBER:
        # a huge Python int has no short decimal form; its float (or infinity) reads well
        shown = number if isinstance(number, float) else _as_float(number)
        if number > 0:
            return None, [too_big_number(MAX_SAFE_NUMBER, shown, path)]
        return None, [too_small_number(-MAX_SAFE_NUMBER, shown, path)]
    return number, []


def _as_float(number: int) -> float:
    try:
        return float(number)
    except OverflowError:
        return math.inf if number > 0 else -math.inf


def optional_string(
    obj: Mapping[str, Any], key: str, max_length: int, path: Path = ()
) -> tuple[str | None, list[Issue]]:
    """An optional string member: absent or null gives None."""
    raw = obj.get(key)
    if raw is None:
        return None, []
    if not isinstance(raw, str):
        return None, [invalid_type("string", raw, (*path, key))]
    if len(raw) > max_length:
        return None, [too_big_string(max_length, len(raw), (*path, key))]
    return raw, []


# --- reading config ---------------------------------------------------------------------------


def sub(config: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    """A nested config object, or an empty mapping when absent or not an object."""
    value = config.get(key) if isinstance(config, Mapping) else None
    return value if isinstance(value, Mapping) else {}


def cfg_bool(config: Mapping[str, Any], key: str, default: bool) -> bool:
    value = config.get(key)
    return value if isinstance(value, bool) else default


def cfg_int(config: Mapping[str, Any], key: str, default: int, low: int, high: int) -> int:
    """An integer setting clamped to ``low..high``; the default when absent or not an integer."""
    value = config.get(key)
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool):
        return default
    return min(max(value, low), high)


def cfg_number(config: Mapping[str, Any], key: str) -> int | float | None:
    value = config.get(key)
    return value if is_finite_number(value) else None


def cfg_str(config: Mapping[str, Any], key: str) -> str | None:
    value = config.get(key)
    return value if isinstance(value, str) and value else None


def cfg_str_list(config: Mapping[str, Any], key: str) -> tuple[str, ...] | None:
    """A list of strings, or None when absent or empty (meaning: no restriction)."""
    value = config.get(key)
    if not isinstance(value, list | tuple):
        return None
    items = tuple(v for v in value if isinstance(v, str))
    return items or None


def normalise_list(
    value: Any,
    item: ItemNormaliser,
    *,
    max_items: int = MAX_LIST_ITEMS,
    key: Callable[[Any], Any] | None = None,
) -> Result:
    """Normalise every item of a list, collecting all issues; drop duplicates by ``key``."""
    if not isinstance(value, list | tuple):
        return None, [invalid_type("array", value)]
    issues: list[Issue] = []
    if len(value) > max_items:
        issues.append(too_big_array(max_items, len(value)))
        return None, issues
    out: list[Any] = []
    seen: set[Any] = set()
    for index, raw in enumerate(value):
        normalised, item_issues = item(raw)
        if item_issues:
            issues.extend(prefix(item_issues, index))
            continue
        if key is not None:
            marker = key(normalised)
            if marker in seen:
                continue
            seen.add(marker)
        out.append(normalised)
    return (None, issues) if issues else (out, [])
