"""Aggregates of a module's records: one ``GROUP BY`` over the list query's WHERE.

The WHERE is :func:`~fieldhouse.storage.sqlquery.compile_list`'s, so an aggregate sees exactly
the records the list endpoint would page through with the same filters and search.

Sums are exact for every value with at most :data:`SCALE` decimal places (every value a number
field's ``decimals`` or a currency's ``precision`` allows): PostgreSQL sums ``numeric``; SQLite,
whose ``sum()`` of reals drifts (0.1 + 0.2), sums the whole parts as integers and the
fractional parts as integers of 10^-SCALE, and Python adds the two as decimals. Averages are
that exact sum divided by the number of values, as a decimal, then a JSON number.

A scan of 100,000 records' JSON takes SQLite hundreds of milliseconds, so answers are kept
(:class:`Remembered`) under two marks: the workspace's schema version and activity sequence
number, read in the same snapshot as the answer (another process's record changes append
activity entries, schema changes bump the version), and the number of this store's write
transactions of the workspace that ended, taken before the snapshot (any write of this
process, with or without an activity entry). A kept answer is served only while both are
unchanged.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from decimal import Context, Decimal
from typing import Any

from fieldhouse.model.aggregate import AggregateSpec, GroupBy, Metric
from fieldhouse.storage.accounts import counters
from fieldhouse.storage.base import Op, rows
from fieldhouse.storage.sqldialect import Dialect
from fieldhouse.storage.sqlquery import CompiledList

#: decimal places a SQLite sum keeps exactly
SCALE = 10
#: most groups one aggregate answers (by key order; ``truncated`` says when there were more)
MAX_GROUPS = 1000
_CONTEXT = Context(prec=40)
_UNIT = Decimal(1).scaleb(-SCALE)


def aggregate(d: Dialect, compiled: CompiledList, spec: AggregateSpec) -> Op[dict[str, Any]]:
    """``{groups: [{key, (displayName,) count, metrics}], truncated}``, keys in ascending
    order with the ``null`` group last."""
    select: list[str] = []
    if spec.group_by is not None:
        key, label = _key(d, spec.group_by)
        select += [key, f"max({label})" if label else "NULL"]
    else:
        select += ["NULL", "NULL"]
    select.append("count(*)")
    for metric in spec.metrics:
        select += _metric_columns(d, metric)
    sql = f"SELECT {', '.join(select)} FROM records r WHERE {compiled.where}"
    if spec.group_by is not None:
        sql += " GROUP BY 1 ORDER BY 1 NULLS LAST LIMIT ?"
        params: Sequence[Any] = (*compiled.params, MAX_GROUPS + 1)
    else:
        params = compiled.params
    found = yield rows(sql, params)
    return answer_rows(d, spec, found[:MAX_GROUPS], len(found) > MAX_GROUPS)


def answer_rows(
    d: Dialect, spec: AggregateSpec, found: Sequence[Sequence[Any]], truncated: bool
) -> dict[str, Any]:
    """The answer from rows of (key, label, count, then each metric's columns as
    :func:`_metric_columns` gives them on ``d``)."""
    groups = [_group(d, spec, list(r)) for r in found]
    if spec.group_by is None and not groups:
        groups = [{"key": None, "count": 0, "metrics": {}}]
    if spec.group_by is None and groups[0]["count"] == 0:
        groups[0]["metrics"] = _empty(spec)
    return {"groups": groups, "truncated": truncated}


def _key(d: Dialect, group: GroupBy) -> tuple[str, str | None]:
    """The SQL of a group's key (text, or NULL without a value) and of its display name."""
    kind = group.kind
    if group.grouping in ("reference", "user"):
        sub = "recordId" if group.grouping == "reference" else "userId"
        return (
            d.json_text("r.fields", (kind.slug, sub)),
            d.json_text("r.fields", (kind.slug, "displayName")),
        )
    if group.grouping != "date":
        return d.json_text("r.fields", (kind.slug,)), None
    if kind.column is not None:
        day = f"substr(r.{kind.column}, 1, 10)"
    else:
        day = f"substr({d.json_text('r.fields', (kind.slug, *kind.value_key))}, 1, 10)"
    if group.bucket == "day":
        return day, None
    if group.bucket == "month":
        return f"(substr({day}, 1, 7) || '-01')", None
    if d.name == "postgres":
        return f"to_char(date_trunc('week', CAST({day} AS date)), 'YYYY-MM-DD')", None
    # strftime %w: 0 is Sunday; a week starts on the Monday on or before the day
    back = f"((CAST(strftime('%w', {day}) AS INTEGER) + 6) % 7)"
    return f"date({day}, '-' || {back} || ' days')", None


def _metric_columns(d: Dialect, metric: Metric) -> list[str]:
    if metric.kind is None:
        return []
    v = d.json_number("r.fields", (metric.kind.slug, *metric.kind.value_key))
    if metric.op in ("min", "max"):
        return [f"{metric.op}({v})"]
    if d.name == "postgres":
        return [f"sum({v})", f"count({v})"]
    whole = f"CAST({v} AS INTEGER)"
    fraction = f"CAST(round(({v} - {whole}) * 1e{SCALE}) AS INTEGER)"
    return [f"sum({whole})", f"sum({fraction})", f"count({v})"]


def _group(d: Dialect, spec: AggregateSpec, r: list[Any]) -> dict[str, Any]:
    key, label, n = r[0], r[1], int(r[2])
    out: dict[str, Any] = {"key": key}
    if spec.group_by is not None and spec.group_by.grouping == "boolean" and key is not None:
        out["key"] = key == "true"
    if spec.group_by is not None and spec.group_by.grouping in ("reference", "user"):
        out["displayName"] = label
    out["count"] = n
    values: dict[str, Any] = {}
    at = 3
    for metric in spec.metrics:
        if metric.kind is None:
            values[metric.name] = n
            continue
        if metric.op in ("min", "max"):
            values[metric.name] = _number(None if r[at] is None else Decimal(str(r[at])))
            at += 1
            continue
        if d.name == "postgres":
            total, count = Decimal(r[at] or 0), int(r[at + 1])
            at += 2
        else:
            total = _CONTEXT.add(
                Decimal(r[at] or 0), _CONTEXT.multiply(Decimal(r[at + 1] or 0), _UNIT)
            )
            count = int(r[at + 2])
            at += 3
        if metric.op == "sum":
            values[metric.name] = _number(total)
        else:
            values[metric.name] = _number(_CONTEXT.divide(total, count) if count else None)
    out["metrics"] = values
    return out


def _empty(spec: AggregateSpec) -> dict[str, Any]:
    return {m.name: 0 if m.op in ("count", "sum") else None for m in spec.metrics}


def _number(value: Decimal | None) -> int | float | None:
    """A JSON number: an int when whole, else the nearest float (whose shortest form is the
    decimal itself for any value a field can hold)."""
    if value is None:
        return None
    if value == value.to_integral_value():
        return int(value)
    return float(value)


class Remembered:
    """The last answers of aggregate queries, each with the workspace marks it was read at."""

    def __init__(self, size: int = 256) -> None:
        self._size = size
        self._kept: OrderedDict[Hashable, tuple[tuple[int, int, int], dict[str, Any]]] = (
            OrderedDict()
        )
        self._writes: dict[str, int] = {}

    def touched(self, account_id: str) -> None:
        """A write transaction of the workspace ended (committed or not)."""
        self._writes[account_id] = self._writes.get(account_id, 0) + 1

    def aggregate(
        self,
        d: Dialect,
        account_id: str,
        key: Hashable | None,
        compiled: CompiledList,
        spec: AggregateSpec,
    ) -> Op[dict[str, Any]]:
        """:func:`aggregate`, or its kept answer for ``key`` while the workspace's marks are
        unchanged (``key`` None: never kept); run it in a snapshot."""
        answer = yield from self.answer(account_id, key, lambda: aggregate(d, compiled, spec))
        assert answer is not None
        return answer

    def answer(
        self,
        account_id: str,
        key: Hashable | None,
        compute: Callable[[], Op[dict[str, Any] | None]],
    ) -> Op[dict[str, Any] | None]:
        """What ``compute`` answers (None: not kept), or its kept answer for ``key`` while the
        workspace's marks are unchanged (``key`` None: never kept); run it in a snapshot."""
        writes = self._writes.get(account_id, 0)  # before the snapshot's first statement
        version, seq = yield from counters(account_id)
        marks = (version, seq, writes)
        kept = self._kept.get(key) if key is not None else None
        if kept is not None and kept[0] == marks:
            self._kept.move_to_end(key)
            return kept[1]
        answer = yield from compute()
        if key is not None and answer is not None:
            self._kept[key] = (marks, answer)
            self._kept.move_to_end(key)
            while len(self._kept) > self._size:
                self._kept.popitem(last=False)
        return answer
