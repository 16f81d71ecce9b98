"""Aggregates kept as records are written, on both engines: fresh answers without a scan.

A grouped scan of 100,000 records' JSON takes SQLite about a second (every value is parsed out
of each row's text) and PostgreSQL about 0.4 s, so an aggregate query that the list endpoint's
kept counts could answer (no search, no label or type filter, and no filter or one filter on a
single-choice field: :func:`~fieldhouse.storage.facets.countable`) is answered from tables that
triggers on ``records`` keep exact in the same transaction as every write, whatever path wrote
it (the actors' creates, updates, bulk operations, deletes and restores, template resets, a
field's values removed). What is kept is registered by the first query that needs it, which
backfills it under the workspace's write lock (as
:func:`~fieldhouse.storage.facets.start_counting`), so no write slips between the backfill and
the triggers taking over; until then nothing is kept and writes pay one index probe (SQLite) or
one empty join (PostgreSQL). On PostgreSQL sums are ``numeric`` totals in ``whole`` and a label
sits in ``label`` beside a 0 ``value``.

``kept_aggregates`` says what is kept: for a grouping (none, a field's JSON text, or a date's
day, week or month, from a JSON path or the ``created_at``/``updated_at`` column) and a facet
(every record, or the JSON text of one single-choice field), one row per role:

- ``sum``: in ``kept_sums``, per (facet value, group key), how many records (``value_path``
  ``''``) or how many numbers at ``value_path`` there are, with their whole parts and their
  fractional parts in units of 10^-SCALE summed as integers (the scan's exact sums);
- ``ext``: in ``kept_values``, per (facet value, group key), each number at ``value_path`` with
  how many records hold it: minimum and maximum are the first and last entries of the key's
  index range, exact under updates and deletes (an entry whose count reaches 0 is removed);
- ``label``: the same for the group's display name (the largest, as the scan's ``max()``).

Keys are stored as (``key_null``, ``key``) so the group of records without a value has a key.
The expressions are the scan's (:mod:`~fieldhouse.storage.aggregate`) with paths read from the
registry row; tests compare every answer with the scan after each kind of write.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from fieldhouse.model.aggregate import AggregateSpec
from fieldhouse.model.listquery import ListQuery
from fieldhouse.model.schema import ModuleSchema
from fieldhouse.storage.aggregate import MAX_GROUPS, answer_rows
from fieldhouse.storage.aggregate_triggers import postgres_backfill, sums_of, values_of
from fieldhouse.storage.base import Op, execute, rows, value
from fieldhouse.storage.facets import countable
from fieldhouse.storage.sqldialect import Dialect, PostgresDialect, SQLiteDialect

_DEFINES = ("grouping", "key_path", "key_column", "facet_path")
_COLUMNS = ("created_at", "updated_at")


@dataclass(frozen=True)
class KeptPlan:
    """What answers one aggregate query from kept tables."""

    d: Dialect
    account_id: str
    module_id: str
    #: grouping, key_path, key_column, facet_path
    defines: tuple[str, str, str, str]
    facets: tuple[str, ...]
    #: (role, value_path) of each registry row the answer reads, the record count first
    parts: tuple[tuple[str, str], ...]
    label_path: str | None

    def path(self, *keys: str) -> str:
        """A JSON path as the engine's triggers read it from the registry."""
        quoted = SQLiteDialect.path(keys) if self.d.name == "sqlite" else PostgresDialect.path(keys)
        return quoted[1:-1]


def plan(
    d: Dialect, schema: ModuleSchema, query: ListQuery, spec: AggregateSpec, account_id: str
) -> KeptPlan | None:
    """How kept tables answer the query, or None when only a scan can."""
    facet = countable(query, schema, account_id)
    group = spec.group_by
    if facet is None or (group is not None and group.kind.column not in (None, *_COLUMNS)):
        return None
    p = KeptPlan(d, account_id, schema.module.module_id, ("", "", "", ""), (), (), None)
    label: str | None = None
    defines: tuple[str, str, str]
    if group is None:
        defines = ("", "", "")
    elif group.grouping == "date":
        kind = group.kind
        key_path = "" if kind.column else p.path(kind.slug, *kind.value_key)
        defines = (group.bucket or "", key_path, kind.column or "")
    else:
        sub = {"reference": ("recordId",), "user": ("userId",)}.get(group.grouping, ())
        defines = ("text", p.path(group.kind.slug, *sub), "")
        if sub:
            label = p.path(group.kind.slug, "displayName")
    parts: list[tuple[str, str]] = [("sum", "")]
    for metric in spec.metrics:
        if metric.kind is not None:
            role = "ext" if metric.op in ("min", "max") else "sum"
            parts.append((role, p.path(metric.kind.slug, *metric.kind.value_key)))
    if label is not None:
        parts.append(("label", label))
    return KeptPlan(
        d,
        account_id,
        schema.module.module_id,
        (*defines, p.path(facet.facet) if facet.facet else ""),
        facet.values,
        tuple(dict.fromkeys(parts)),
        label,
    )


def _ids(p: KeptPlan) -> Op[dict[tuple[str, str], int]]:
    found = yield rows(
        "SELECT role, value_path, id FROM kept_aggregates WHERE account_id = ?"
        f" AND module_id = ? AND {' = ? AND '.join(_DEFINES)} = ?",
        (p.account_id, p.module_id, *p.defines),
    )
    return {(r[0], r[1]): int(r[2]) for r in found}


def register(p: KeptPlan) -> Op[None]:
    """Register what the plan reads and backfill it; run inside the workspace's write
    transaction (its lock keeps every write out until the triggers count them)."""
    for role, value_path in p.parts:
        made = yield value(
            "INSERT INTO kept_aggregates (account_id, module_id, grouping, key_path,"
            " key_column, facet_path, role, value_path) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT DO NOTHING RETURNING id",
            (p.account_id, p.module_id, *p.defines, role, value_path),
        )
        if made is None:
            continue  # another process got there first
        source = (
            "FROM kept_aggregates g JOIN records r ON r.account_id = g.account_id"
            " AND r.module_id = g.module_id AND r.deleted_at IS NULL WHERE g.id = ?"
        )
        if p.d.name == "postgres":
            for sql in postgres_backfill():
                yield execute(sql, (made,))
        elif role == "sum":
            yield execute(
                "INSERT INTO kept_sums (aggregate_id, facet, key_null, key, n, whole, fraction)"
                " SELECT id, facet, key_null, key, sum(n), sum(whole), sum(fraction)"
                f" FROM ({sums_of('r', source)}) GROUP BY id, facet, key_null, key",
                (made,),
            )
        else:
            yield execute(
                "INSERT INTO kept_values (aggregate_id, facet, key_null, key, value, n)"
                " SELECT id, facet, key_null, key, value, count(*)"
                f" FROM ({values_of('r', source)}) GROUP BY id, facet, key_null, key, value",
                (made,),
            )


def answer(p: KeptPlan, spec: AggregateSpec) -> Op[dict[str, Any] | None]:
    """The answer from kept tables (as ``aggregate.aggregate`` gives it), or None while some of
    what it reads is not registered; run it in a snapshot."""
    ids = yield from _ids(p)
    if any(part not in ids for part in p.parts):
        return None
    facets = list(p.facets)
    counted = ids[("sum", "")]
    found = yield rows(
        "SELECT key_null, key, sum(n) FROM kept_sums WHERE aggregate_id = ? AND facet = ANY(?)"
        " GROUP BY key_null, key HAVING sum(n) > 0 ORDER BY key_null, key LIMIT ?",
        (counted, facets, MAX_GROUPS + 1),
    )
    groups = {(int(r[0]), str(r[1])): int(r[2]) for r in found[:MAX_GROUPS]}
    more = len(found) > MAX_GROUPS
    if not groups:
        return answer_rows(p.d, spec, [], more)
    last = list(groups)[-1]
    reads = {}
    for part in p.parts[1:]:  # the first, the count, is read
        reads[part] = yield from _read(p.d, part, ids[part], facets, counted, last)
    out: list[list[Any]] = []
    for key, n in groups.items():
        r: list[Any] = [None if key[0] else key[1], None, n]
        if p.label_path is not None:
            r[1] = _pick(reads[("label", p.label_path)].get(key), max)
        for metric in spec.metrics:
            if metric.kind is None:
                continue
            path = p.path(metric.kind.slug, *metric.kind.value_key)
            if metric.op in ("min", "max"):
                r.append(_pick(reads[("ext", path)].get(key), min if metric.op == "min" else max))
                continue
            count, whole, fraction = reads[("sum", path)].get(key) or (0, 0, 0)
            # the scan's columns: SQLite's integer parts, PostgreSQL's numeric total
            r += [whole, fraction, count] if p.d.name == "sqlite" else [whole, count]
        out.append(r)
    return answer_rows(p.d, spec, out, more)


def _pick(values: Iterable[Any] | None, pick: Any) -> Any:
    present = [v for v in values or () if v is not None]
    return pick(present) if present else None


def _read(
    d: Dialect,
    part: tuple[str, str],
    aggregate_id: int,
    facets: list[str],
    counted: int,
    last: tuple[int, str],
) -> Op[dict[tuple[int, str], Any]]:
    """Per group key up to ``last``: (n, whole, fraction) of a ``sum`` part, or each facet
    value's smallest and largest entry of a values part."""
    role, _ = part
    if role == "sum":
        found = yield rows(
            "SELECT key_null, key, sum(n), sum(whole), sum(fraction) FROM kept_sums"
            " WHERE aggregate_id = ? AND facet = ANY(?) AND (key_null, key) <= (?, ?)"
            " GROUP BY key_null, key",
            (aggregate_id, facets, *last),
        )
        return {(int(r[0]), str(r[1])): (int(r[2]), r[3], r[4]) for r in found}
    column = "label" if role == "label" and d.name == "postgres" else "value"
    ends = (
        f"(SELECT v.{column} FROM kept_values v WHERE v.aggregate_id = ? AND v.facet = s.facet"
        f" AND v.key_null = s.key_null AND v.key = s.key ORDER BY v.{column} {{}} LIMIT 1)"
    )
    found = yield rows(
        f"SELECT s.key_null, s.key, {ends.format('ASC')}, {ends.format('DESC')}"
        " FROM kept_sums s WHERE s.aggregate_id = ? AND s.facet = ANY(?) AND s.n > 0"
        " AND (s.key_null, s.key) <= (?, ?)",
        (aggregate_id, aggregate_id, counted, facets, *last),
    )
    out: dict[tuple[int, str], list[Any]] = {}
    for r in found:
        out.setdefault((int(r[0]), str(r[1])), []).extend((r[2], r[3]))
    return out
