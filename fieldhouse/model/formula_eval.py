"""Tree evaluator of the formula language.

Values inside the evaluator are plain JSON-like Python values: ``None`` (blank), ``bool``,
``int``/``float``, ``str`` (dates are ISO strings) and lists. Record values are normalised on
the way in: a currency object becomes its amount and a reference its display name.
"""

from __future__ import annotations

import calendar
import math
import re
from collections.abc import Callable, Mapping
from datetime import UTC, date, datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal, localcontext
from typing import Any

from fieldhouse.model.formula_parse import (
    DATE_UNITS,
    Call,
    Chain,
    FieldRef,
    FormulaError,
    Literal,
    Node,
    Unary,
)


class FormulaEvalError(FormulaError):
    """A runtime problem: division by zero, a type mismatch, a missing value..."""


_NUMERIC = re.compile(r"\s*[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\s*")
_DATE_ONLY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


def normalize(raw: Any) -> Any:
    """A stored record value as the evaluator sees it."""
    if isinstance(raw, Mapping):
        if "amount" in raw:
            return normalize(raw["amount"])
        if "displayName" in raw:
            return normalize(raw["displayName"])
        return dict(raw)
    if isinstance(raw, list | tuple):
        return [normalize(item) for item in raw]
    if isinstance(raw, datetime):
        return format_moment(_utc(raw), has_time=True)
    if isinstance(raw, date):
        return raw.isoformat()
    return raw


def is_blank(v: Any) -> bool:
    return v is None or (isinstance(v, str | list | dict) and len(v) == 0)


def to_text(v: Any, pos: int) -> str:
    if v is None:
        return ""
    if isinstance(v, bool):
        return "TRUE" if v else "FALSE"
    if isinstance(v, str):
        return v
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return str(int(v)) if v.is_integer() and abs(v) < 1e15 else repr(v)
    if isinstance(v, list):
        return ", ".join(to_text(item, pos) for item in v if not is_blank(item))
    raise FormulaEvalError("value cannot be used as text", pos)


def to_number(v: Any, pos: int) -> int | float:
    if v is None:
        raise FormulaEvalError("missing value", pos)
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, int | float):
        return v
    if isinstance(v, str) and _NUMERIC.fullmatch(v):
        f = float(v)
        _finite(f, pos)
        return int(f) if f.is_integer() and abs(f) < 2**53 else f
    raise FormulaEvalError("expected a number", pos)


def to_bool(v: Any) -> bool:
    if isinstance(v, str) and v.strip().upper() in ("TRUE", "FALSE"):
        return v.strip().upper() == "TRUE"
    if isinstance(v, int | float):  # bool included
        return v != 0
    return not is_blank(v)


def _finite(v: int | float, pos: int) -> int | float:
    if isinstance(v, float) and not math.isfinite(v):
        raise FormulaEvalError("number out of range", pos)
    return v


def _utc(dt: datetime) -> datetime:
    return dt.replace(tzinfo=UTC) if dt.tzinfo is None else dt.astimezone(UTC)


def parse_moment(v: Any, pos: int) -> tuple[datetime, bool]:
    """A date or datetime value as an aware UTC datetime, and whether it carries a time."""
    if isinstance(v, str):
        s = v.strip()
        try:
            if _DATE_ONLY.fullmatch(s):
                return datetime.fromisoformat(s).replace(tzinfo=UTC), False
            return _utc(datetime.fromisoformat(s)), True
        except ValueError:
            pass
    raise FormulaEvalError("expected a date", pos)


def format_moment(dt: datetime, *, has_time: bool) -> str:
    if not has_time:
        return dt.date().isoformat()
    text = f"{dt.date().isoformat()}T{dt.hour:02d}:{dt.minute:02d}:{dt.second:02d}"
    if dt.microsecond:
        text += f".{dt.microsecond // 1000:03d}"
    return text + "Z"


def _trunc_div(a: int, b: int) -> int:
    q = abs(a) // b
    return q if a >= 0 else -q


def _equal(a: Any, b: Any) -> bool:
    if is_blank(a) or is_blank(b):
        return is_blank(a) and is_blank(b)
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, int | float) or isinstance(b, int | float):
        try:
            return to_number(a, 0) == to_number(b, 0)
        except FormulaEvalError:
            return False
    return bool(a == b)


def _order(a: Any, b: Any, pos: int) -> int:
    if isinstance(a, bool) or isinstance(b, bool) or a is None or b is None:
        raise FormulaEvalError("values cannot be ordered", pos)
    if isinstance(a, int | float) or isinstance(b, int | float):
        x, y = to_number(a, pos), to_number(b, pos)
    elif isinstance(a, str) and isinstance(b, str):
        x, y = a, b  # type: ignore[assignment]
    else:
        raise FormulaEvalError("values cannot be ordered", pos)
    return (x > y) - (x < y)


_ORDERINGS: dict[str, Callable[[int], bool]] = {
    "<": lambda c: c < 0,
    "<=": lambda c: c <= 0,
    ">": lambda c: c > 0,
    ">=": lambda c: c >= 0,
}


def apply_binary(op: str, a: Any, b: Any, pos: int) -> Any:
    if op == "&":
        return to_text(a, pos) + to_text(b, pos)
    if op == "=":
        return _equal(a, b)
    if op in ("!=", "<>"):
        return not _equal(a, b)
    if op in _ORDERINGS:
        return _ORDERINGS[op](_order(a, b, pos))
    x, y = to_number(a, pos), to_number(b, pos)
    if op == "+":
        return _finite(x + y, pos)
    if op == "-":
        return _finite(x - y, pos)
    if op == "*":
        return _finite(x * y, pos)
    if y == 0:
        raise FormulaEvalError("division by zero", pos)
    if isinstance(x, int) and isinstance(y, int) and x % y == 0:
        return x // y
    return _finite(x / y, pos)


def _flatten(values: list[Any]) -> list[Any]:
    out: list[Any] = []
    for v in values:
        out.extend(v if isinstance(v, list) else [v])
    return out


def _string_arg(v: Any, pos: int) -> str:
    if v is None:
        raise FormulaEvalError("missing value", pos)
    return to_text(v, pos)


def _count_arg(v: Any, pos: int) -> int:
    n = to_number(v, pos)
    if n < 0 or n > 10**9:
        raise FormulaEvalError("count out of range", pos)
    return int(n)


def round_half_up(x: int | float, places: int, pos: int) -> int | float:
    if abs(places) > 100:
        raise FormulaEvalError("decimal places out of range", pos)
    with localcontext() as ctx:
        ctx.prec = 500
        d = Decimal(x) if isinstance(x, int) else Decimal(repr(_finite(x, pos)))
        try:
            r = d.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
        except ArithmeticError as exc:
            raise FormulaEvalError("number out of range", pos) from exc
    return int(r) if places <= 0 else float(r)


def _unit(args: list[Any], pos: int) -> str:
    unit = _string_arg(args[2], pos).lower() if len(args) > 2 else "days"
    if unit not in DATE_UNITS:
        raise FormulaEvalError(f"unit must be one of {', '.join(DATE_UNITS)}", pos)
    return unit


def _datediff(args: list[Any], pos: int) -> int:
    unit = _unit(args, pos)
    a, _ = parse_moment(args[0], pos)
    b, _ = parse_moment(args[1], pos)
    if unit in ("days", "hours", "minutes"):
        micros = (b - a) // timedelta(microseconds=1)
        per = {"days": 86400, "hours": 3600, "minutes": 60}[unit] * 1_000_000
        return _trunc_div(micros, per)
    months = (b.year - a.year) * 12 + b.month - a.month
    tail_a, tail_b = (a.day, a.time()), (b.day, b.time())
    if months > 0 and tail_b < tail_a:
        months -= 1
    elif months < 0 and tail_b > tail_a:
        months += 1
    return months if unit == "months" else _trunc_div(months, 12)


def _dateadd(args: list[Any], pos: int) -> str:
    unit = _unit(args, pos)
    dt, has_time = parse_moment(args[0], pos)
    n = to_number(args[1], pos)
    if unit in ("days", "hours", "minutes"):
        result = dt + timedelta(**{unit: n})
        keep_date = not has_time and unit == "days" and float(n).is_integer()
        return format_moment(result, has_time=not keep_date)
    if not float(n).is_integer():
        raise FormulaEvalError("months and years must be whole numbers", pos)
    months = int(n) * (12 if unit == "years" else 1)
    y, m = divmod(dt.year * 12 + dt.month - 1 + months, 12)
    if not 1 <= y <= 9999:
        raise FormulaEvalError("date out of range", pos)
    day = min(dt.day, calendar.monthrange(y, m + 1)[1])
    return format_moment(dt.replace(year=y, month=m + 1, day=day), has_time=has_time)


def _min_max(args: list[Any], pos: int, pick: Callable[[list[Any]], Any]) -> int | float:
    items = [to_number(v, pos) for v in _flatten(args)]
    if not items:
        raise FormulaEvalError("no values", pos)
    result: int | float = pick(items)
    return result


_SIMPLE: dict[str, Callable[[list[Any], int], Any]] = {
    "CONCAT": lambda a, p: "".join(to_text(v, p) for v in a),
    "UPPER": lambda a, p: _string_arg(a[0], p).upper(),
    "LOWER": lambda a, p: _string_arg(a[0], p).lower(),
    "LEFT": lambda a, p: _string_arg(a[0], p)[: _count_arg(a[1], p)],
    "RIGHT": lambda a, p: (lambda s, n: s[len(s) - n :] if n else "")(
        _string_arg(a[0], p), _count_arg(a[1], p)
    ),
    "TRIM": lambda a, p: " ".join(_string_arg(a[0], p).split()),
    "LEN": lambda a, p: len(a[0]) if isinstance(a[0], list) else len(_string_arg(a[0], p)),
    "SUM": lambda a, p: _finite(sum(to_number(v, p) for v in _flatten(a) if not is_blank(v)), p),
    "ROUND": lambda a, p: round_half_up(
        to_number(a[0], p), int(to_number(a[1], p)) if len(a) > 1 else 0, p
    ),
    "ABS": lambda a, p: abs(to_number(a[0], p)),
    "FLOOR": lambda a, p: math.floor(_finite(to_number(a[0], p), p)),
    "CEIL": lambda a, p: math.ceil(_finite(to_number(a[0], p), p)),
    "MIN": lambda a, p: _min_max(a, p, min),
    "MAX": lambda a, p: _min_max(a, p, max),
    "DATEDIFF": _datediff,
    "DATEADD": _dateadd,
    "YEAR": lambda a, p: parse_moment(a[0], p)[0].year,
    "MONTH": lambda a, p: parse_moment(a[0], p)[0].month,
    "DAY": lambda a, p: parse_moment(a[0], p)[0].day,
    "NOT": lambda a, p: not to_bool(a[0]),
    "ISBLANK": lambda a, p: is_blank(a[0]),
}


class Evaluator:
    def __init__(self, values: Mapping[str, Any], now: datetime) -> None:
        self.values = values
        self.now = _utc(now)

    def value_of(self, node: Node) -> Any:
        if isinstance(node, Literal):
            return node.value
        if isinstance(node, FieldRef):
            return normalize(self.values.get(node.slug))
        if isinstance(node, Unary):
            value = to_number(self.value_of(node.operand), node.pos)
            return -value if node.op == "-" else value
        if isinstance(node, Chain):
            acc = self.value_of(node.first)
            for op, operand, pos in node.rest:
                acc = apply_binary(op, acc, self.value_of(operand), pos)
            return acc
        return self.call(node)

    def call(self, node: Call) -> Any:
        name, args, pos = node.name, node.args, node.pos
        if name == "IF":
            if to_bool(self.value_of(args[0])):
                return self.value_of(args[1])
            return self.value_of(args[2]) if len(args) > 2 else None
        if name in ("AND", "OR"):
            want = name == "OR"  # the value that decides early
            for arg in args:
                if to_bool(self.value_of(arg)) is want:
                    return want
            return not want
        if name == "TODAY":
            return self.now.date().isoformat()
        if name == "NOW":
            return format_moment(self.now, has_time=True)
        return _SIMPLE[name]([self.value_of(arg) for arg in args], pos)


def evaluate(root: Node, values: Mapping[str, Any], now: datetime) -> Any:
    """Evaluate a parsed tree; every runtime problem surfaces as :class:`FormulaEvalError`."""
    try:
        return Evaluator(values, now).value_of(root)
    except FormulaEvalError:
        raise
    except (ArithmeticError, ValueError, TypeError) as exc:
        raise FormulaEvalError(f"cannot evaluate: {exc}", 0) from exc
