r"""Compile a :class:`~fieldhouse.model.listquery.ListQuery` to SQL over the records table.

The result is a WHERE clause (alias ``r``) with ``?`` placeholders, its parameters and an
ORDER BY; the store adds ``LIMIT``/``OFFSET`` (``query.page_size`` / ``query.offset``) and its
driver turns the placeholders into the engine's own. User values only ever travel as
parameters; field slugs are embedded only after the schema confirms them and the dialect's
``check_key`` accepts them as JSON path keys.

Semantics (T = stored value as text, N = as number; "multi" fields are arrays and a condition
holds when ANY element satisfies it; text-like means text, textarea, rich_text, autonumber,
single email/phone/url, multi email/phone/url entries' ``value`` and formulas of type text):

=====================  ===================================================================
eq / neq               text-like: ``lower(T) = lower(v)``; select, multi_select, parent_record:
                       exact; number, rating, progress, duration, rollup: numeric; currency:
                       ``amount``; boolean: true/false; date/time: exact text; date_range:
                       ``start``; reference: ``recordId`` (person: ``userId``), case-insensitive;
                       created_at/updated_at: a date-only operand covers that whole UTC day
gt gte lt lte between  numeric for numbers/currency; text order for date, time, date_range
                       start and created_at/updated_at (ISO text sorts as time); between is
                       inclusive; a date-only operand on a date-time means the whole day
before / after         date-like only: ``before`` is ``lt``, ``after`` is ``gt``
contains / notContains case-insensitive substring (LIKE, ``%``/``_``/``\`` escaped); reference
startsWith / endsWith  and person compare ``displayName``; address, image and social_profile
                       (``opaque``) match the value's JSON text
in / notIn             eq against any listed value
isNull / isNotNull     the field is missing, JSON null, ``""``, ``[]`` or ``{}``
=====================  ===================================================================

Negative operators (neq, notIn, notContains) are ``(positive) IS NOT TRUE``: they also match
records whose field is empty, and for multi fields they mean "no element matches".

Simple filters ``filter[slug]=a,b`` match the stored value's exact text form (numbers compare
numerically, booleans as ``true``/``false``, references by ``recordId``, currency by amount,
multi fields by any element); values OR within a filter, filters AND together. ``labelIds`` and
``typeIds`` match records having ANY listed id. ``search`` is a case-insensitive substring of
``display_name`` or of any string or number value inside ``fields`` (keys never match). SQLite's
``lower()`` folds ASCII only, so case-insensitivity is ASCII-only there (and on PostgreSQL,
where both sides are folded under the "C" collation).

Sorting is type-aware (numbers numerically, currency by amount, references by displayName,
multi fields by their first element, text case-insensitively, empty text as NULL), NULLs last
in both directions, then ``r.id`` in the same direction; by default ``r.created_at DESC, r.id
DESC``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from fieldhouse.model.listquery import Condition, Group, ListQuery
from fieldhouse.model.listquery_kinds import FilterKind, resolve_key
from fieldhouse.model.listquery_values import coerce_operand
from fieldhouse.model.schema import ModuleSchema
from fieldhouse.storage.sqldialect import POSTGRES, SQLITE, Dialect, JsonPath, SqlType

__all__ = ["POSTGRES", "SQLITE", "CompiledList", "Dialect", "compile_list"]

_LIKE_ESCAPE = "\\"
_FALSE = "1 = 0"
_SQL_OPS = {"eq": "=", "gt": ">", "gte": ">=", "lt": "<", "lte": "<=", "before": "<", "after": ">"}
#: what a field's expression serves: comparing (eq, order, in, between), a simple filter's exact
#: text, a substring match, or sorting
Use = Literal["compare", "simple", "match", "sort"]


@dataclass(frozen=True)
class CompiledList:
    where: str
    params: list[Any]
    order_by: str


def compile_list(
    query: ListQuery,
    schema: ModuleSchema,
    dialect: Dialect,
    *,
    account_id: str,
    module_id: str,
    search_ids: Sequence[str] | None = None,
) -> CompiledList:
    """Compile ``query`` for ``dialect``.

    ``search_ids``, when given, are the search index's candidates for ``query.search`` (every
    record holding all its trigrams): the substring match then only checks those."""
    c = _Compiler(schema, dialect)
    parts = [
        f"r.account_id = {c.bind(account_id)}",
        f"r.module_id = {c.bind(module_id)}",
        "r.deleted_at IS NULL",
    ]
    if query.search and search_ids is not None:
        parts.append(f"r.id IN ({c.binds(search_ids)})" if search_ids else _FALSE)
    if query.search:
        parts.append(c.search(query.search))
    for slug, values in query.simple_filters:
        parts.append(c.simple(slug, values))
    if query.label_ids:
        parts.append(c.id_list("r.label_ids", query.label_ids))
    if query.type_ids:
        parts.append(c.id_list("r.type_ids", query.type_ids))
    if query.advanced is not None and query.advanced.items:
        parts.append(c.group(query.advanced))
    where = " AND ".join(p if i < 3 else f"({p})" for i, p in enumerate(parts))
    return CompiledList(where, c.params, c.order_by(query.sort_field, query.sort_direction))


class _Site:
    """Where a value is read: a JSON document position, or a plain records column."""

    def __init__(self, dialect: Dialect, doc: str, base: JsonPath, column: str | None) -> None:
        self.dialect, self.doc, self.base, self.column = dialect, doc, base, column

    def text(self, sub: tuple[str, ...] = ()) -> str:
        if self.column is not None:
            return self.column
        return self.dialect.json_text(self.doc, (*self.base, *sub))

    def number(self, sub: tuple[str, ...] = ()) -> str:
        if self.column is not None:
            return self.column
        return self.dialect.json_number(self.doc, (*self.base, *sub))


class _Compiler:
    def __init__(self, schema: ModuleSchema, dialect: Dialect) -> None:
        self.schema, self.dialect = schema, dialect
        self.params: list[Any] = []
        self._aliases = 0

    # --- building blocks ---

    def bind(self, value: Any, sql_type: SqlType = "text") -> str:
        self.params.append(value)
        return self.dialect.placeholder(sql_type)

    def binds(self, values: Sequence[Any], sql_type: SqlType = "text", wrap: str = "") -> str:
        return ", ".join(
            self.dialect.lower(self.bind(v, sql_type)) if wrap else self.bind(v, sql_type)
            for v in values
        )

    def like(self, expr: str, value: str, *, prefix: bool, suffix: bool) -> str:
        escaped = "".join(_LIKE_ESCAPE + ch if ch in "\\%_" else ch for ch in value)
        pattern = ("%" if prefix else "") + escaped + ("%" if suffix else "")
        return (
            f"lower({expr}) LIKE {self.dialect.lower(self.bind(pattern))} ESCAPE '{_LIKE_ESCAPE}'"
        )

    def kind(self, slug: str, *, system: bool = True) -> FilterKind:
        kind = resolve_key(slug, self.schema, system=system)
        if kind is None:
            raise ValueError(f"unknown field {slug!r} for module {self.schema.module.slug!r}")
        return kind

    def on_value(self, kind: FilterKind, pred: Callable[[_Site], str]) -> str:
        """Apply ``pred`` to the field's value, or to ANY element of a multi field."""
        if kind.column is not None:
            return pred(_Site(self.dialect, "", (), f"r.{kind.column}"))
        if not kind.multi:
            return pred(_Site(self.dialect, "r.fields", (kind.slug,), None))
        self._aliases += 1
        alias = f"e{self._aliases}"
        source, guard, elem = self.dialect.json_elements("r.fields", (kind.slug,), alias)
        body = pred(_Site(self.dialect, elem, (), None))
        return f"EXISTS (SELECT 1 FROM {source} WHERE {guard} AND ({body}))"

    def is_empty(self, kind: FilterKind) -> str:
        if kind.column is not None:
            return f"(r.{kind.column} IS NULL OR r.{kind.column} = '')"
        return self.dialect.json_is_empty("r.fields", (kind.slug,))

    # --- top-level parts ---

    def search(self, text: str) -> str:
        """The display name or any string/number value inside ``fields`` (never a key)."""
        name = self.like("r.display_name", text, prefix=True, suffix=True)
        self._aliases += 1
        source, guard, value = self.dialect.json_leaves("r.fields", f"s{self._aliases}")
        body = self.like(value, text, prefix=True, suffix=True)
        return f"{name} OR EXISTS (SELECT 1 FROM {source} WHERE {guard} AND {body})"

    def id_list(self, column: str, ids: Sequence[str]) -> str:
        self._aliases += 1
        alias = f"e{self._aliases}"
        source, guard, elem = self.dialect.json_elements(column, (), alias)
        text = self.dialect.json_text(elem, ())
        test = f"lower({text}) IN ({self.binds(ids)})"
        return f"EXISTS (SELECT 1 FROM {source} WHERE {guard} AND {test})"

    def simple(self, slug: str, values: Sequence[str]) -> str:
        kind = self.kind(slug, system=slug == "displayName")
        if kind.base == "number":
            numbers = [n for n in (_as_number(v) for v in values) if n is not None]
            if not numbers:
                return _FALSE
            return self.on_value(
                kind,
                lambda s: f"{field_sql(kind, s, 'simple')} IN ({self.binds(numbers, 'number')})",
            )
        if kind.base == "boolean":
            values = [v.lower() for v in values]
        return self.on_value(
            kind, lambda s: f"{field_sql(kind, s, 'simple')} IN ({self.binds(values)})"
        )

    def group(self, group: Group) -> str:
        parts = [
            self.group(item) if isinstance(item, Group) else self.condition(item)
            for item in group.items
        ]
        if not parts:
            return "1 = 1"
        return f" {group.conjunction} ".join(f"({p})" for p in parts)

    def condition(self, cond: Condition) -> str:
        kind = self.kind(cond.field)
        op = cond.operator
        if op in ("isNull", "isNotNull"):
            empty = self.is_empty(kind)
            return empty if op == "isNull" else f"NOT {empty}"
        negate = op in ("neq", "notIn", "notContains")
        positive = {"neq": "eq", "notIn": "in", "notContains": "contains"}.get(op, op)
        body = self.on_value(kind, lambda s: self.compare(kind, s, positive, cond))
        return f"({body}) IS NOT TRUE" if negate else body

    def compare(self, kind: FilterKind, site: _Site, op: str, cond: Condition) -> str:
        if op in ("contains", "startsWith", "endsWith"):
            value = str(cond.value)
            return self.like(
                field_sql(kind, site, "match"),
                value,
                prefix=op != "startsWith",
                suffix=op != "endsWith",
            )
        values = cond.values if cond.values is not None else (cond.value,)
        base, expr = kind.base, field_sql(kind, site, "compare")
        if base == "datetime":
            return self.datetime(expr, op, values)
        st: SqlType = "number" if base == "number" else "text"
        wrap = "lower" if base in ("text", "ref") else ""
        if base == "boolean":
            values = tuple("true" if v else "false" for v in values)
        if op == "in":
            return f"{expr} IN ({self.binds(values, st, wrap)})"
        if op == "between":
            low, high = values
            return (
                f"{expr} BETWEEN {self.binds([low], st, wrap)} AND {self.binds([high], st, wrap)}"
            )
        return f"{expr} {_SQL_OPS[op]} {self.binds(values, st, wrap)}"

    def datetime(self, expr: str, op: str, values: Sequence[Any]) -> str:
        """created_at/updated_at; a date-only operand stands for its whole UTC day."""
        if op in ("eq", "in"):
            ranges = [f"{expr} BETWEEN {self.bind(_lo(v))} AND {self.bind(_hi(v))}" for v in values]
            return " OR ".join(ranges)
        if op == "between":
            low, high = values
            return f"{expr} BETWEEN {self.bind(_lo(low))} AND {self.bind(_hi(high))}"
        (v,) = values
        if op in ("gt", "after"):
            return f"{expr} > {self.bind(_hi(v))}"
        if op == "gte":
            return f"{expr} >= {self.bind(_lo(v))}"
        if op in ("lt", "before"):
            return f"{expr} < {self.bind(_lo(v))}"
        return f"{expr} <= {self.bind(_hi(v))}"  # lte

    # --- ordering ---

    def order_by(self, sort_field: str | None, direction: str) -> str:
        d = "ASC" if direction == "asc" else "DESC"
        if sort_field is None:
            return f"r.created_at {d}, r.id {d}"
        kind = self.kind(sort_field)
        if kind.column is not None:
            site = _Site(self.dialect, "", (), f"r.{kind.column}")
            return f"{field_sql(kind, site, 'sort')} {d}, r.id {d}"
        path: JsonPath = (kind.slug, 0) if kind.multi else (kind.slug,)  # by the first element
        expr = field_sql(kind, _Site(self.dialect, "r.fields", path, None), "sort")
        return f"{expr} {d} NULLS LAST, r.id {d}"


def field_sql(kind: FilterKind, site: _Site, use: Use) -> str:
    """The SQL expression of a field's value at ``site`` for one use, keyed by the field's
    kind: the one place that says how each kind of value is read to filter and to sort.

    Numbers compare and sort numerically (currency by amount); text and references compare
    case-insensitively (references by id, matched and sorted by display name); everything
    else as exact text; a simple filter reads the exact text; a sort reads empty text as NULL.
    """
    if use == "match":
        return site.text(kind.text_key)
    if kind.base == "number":
        return site.number(kind.value_key)
    if use == "simple" or kind.base not in ("text", "ref"):
        expr = site.text(kind.value_key)
    else:
        expr = f"lower({site.text(kind.text_key if use == 'sort' else kind.value_key)})"
    return f"NULLIF({expr}, '')" if use == "sort" and site.column is None else expr


def _lo(v: str) -> str:
    return f"{v}T00:00:00.000000Z" if len(v) == 10 else v


def _hi(v: str) -> str:
    return f"{v}T23:59:59.999999Z" if len(v) == 10 else v


def _as_number(text: str) -> int | float | None:
    value, err = coerce_operand("number", text)
    return None if err is not None else value


def index_expressions(query: ListQuery, schema: ModuleSchema, dialect: Dialect) -> list[str]:
    """The JSON expressions a query filters or sorts on that an expression index can serve.

    They are built by the same code that compiles the query, so an index made on one of them
    (``records (account_id, module_id, <expr>)``) matches the query text exactly, which is what
    SQLite's and PostgreSQL's planners need to use it. Only values of single-valued fields
    qualify; multi-valued fields are matched through json_each and cannot use such an index.
    """
    c = _Compiler(schema, dialect)
    out: list[str] = []

    def site_expr(slug: str, op: str) -> str | None:
        kind = resolve_key(slug, schema, system=False)
        if kind is None or kind.multi or kind.column is not None:
            return None
        if kind.base == "datetime":
            return None
        site = _Site(dialect, "r.fields", (kind.slug,), None)
        return field_sql(kind, site, "simple" if op == "simple" else "compare")

    for slug, _ in query.simple_filters:
        out.append(site_expr(slug, "simple") or "")

    def walk(group: Group) -> None:
        for item in group.items:
            if isinstance(item, Group):
                walk(item)
            elif item.operator in _SQL_OPS or item.operator in ("in", "between"):
                out.append(site_expr(item.field, item.operator) or "")

    if query.advanced is not None:
        walk(query.advanced)
    if query.sort_field is not None:
        kind = resolve_key(query.sort_field, schema, system=True)
        if kind is not None and kind.column is None:
            out.append(c.order_by(query.sort_field, "asc").rsplit(" ASC NULLS LAST", 1)[0])
    return [e for e in dict.fromkeys(out) if e]


def index_keys(query: ListQuery, schema: ModuleSchema, dialect: Dialect) -> list[tuple[str, ...]]:
    """Index keys (after ``account_id, module_id``; the last one is also ordered by ``id``)
    for what a slow list query filters and sorts by: each expression of
    :func:`index_expressions` alone, and, when the query pins single-valued fields to one
    value each and sorts by a field, those equalities followed by the sort: one index then
    hands out the page in order, without reading every match to sort it (that key first).
    The default order (newest first) is such a sort too: the equalities, then ``created_at``
    (a filtered list of 1,000 records: page 1 129 -> 75 us, page 3 264 -> 79 us)."""
    singles = index_expressions(query, schema, dialect)
    keys: list[tuple[str, ...]] = [(e,) for e in singles]
    if query.advanced is not None or query.search or not query.simple_filters:
        return keys
    if query.sort_field is None:
        ordered = "created_at"  # the default order: created_at, then id
    else:
        sort = resolve_key(query.sort_field, schema, system=True)
        if sort is None or sort.column is not None:
            return keys
        compiled = _Compiler(schema, dialect).order_by(query.sort_field, "asc")
        ordered = compiled.rsplit(" ASC NULLS LAST", 1)[0]
    pinned: list[str] = []
    for slug, values in query.simple_filters:
        kind = resolve_key(slug, schema, system=False)
        if len(values) != 1 or kind is None or kind.multi or kind.column is not None:
            return keys
        if kind.base in ("datetime", "number"):
            return keys
        site = _Site(dialect, "r.fields", (kind.slug,), None)
        pinned.append(field_sql(kind, site, "simple"))
    # first: it serves the very query that was slow; the single ones serve its neighbours
    return [(*pinned, ordered), *keys]
