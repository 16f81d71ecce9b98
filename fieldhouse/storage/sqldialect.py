"""SQL dialects: what differs between SQLite and PostgreSQL in the text of a statement.

Every statement of the store is written once, with ``?`` placeholders and ``col = ANY(?)`` for
"one of a list" (its parameter a list); :meth:`Dialect.statement` turns that text and its
parameters into the engine's own (``$n`` and an array on PostgreSQL; ``IN (?, ?, ...)`` with
the list spread out on SQLite). Beside that a dialect gives the few JSON primitives
statements and the list-query compiler (``sqlquery``) need: a value as text or as a number,
an emptiness test, a row source over an array's elements or over every leaf, removing a key.
Everything else (LIKE with ESCAPE, ``lower()``, ``IS NOT TRUE``, ``NULLS LAST``, ``ON
CONFLICT``, ``RETURNING``) is portable between SQLite >= 3.35 and PostgreSQL, so a new dialect
is one small class.

JSON paths are tuples of keys and array indexes. Keys are embedded in the SQL text, so every
dialect must pass them through :func:`check_key`, which rejects anything that is not a plain
slug-like key (quotes, backslashes, control characters): the compiler embeds only slugs that
exist in the module schema, and this is the second lock on that door.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Sequence
from functools import lru_cache
from typing import Any, Literal

JsonPath = tuple[str | int, ...]
SqlType = Literal["text", "number"]

_SAFE_KEY = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_\-]{0,127}")
_MARK = re.compile(r"\?")


def check_key(key: str | int) -> str | int:
    """Return ``key`` unchanged when it is safe to embed in a JSON path, else raise."""
    if isinstance(key, int):
        if key < 0:
            raise ValueError(f"negative JSON array index {key}")
        return key
    if _SAFE_KEY.fullmatch(key) is None:
        raise ValueError(f"unsafe JSON path key {key!r}")
    return key


class Dialect(ABC):
    """What the list-query compiler needs from a SQL engine."""

    name: str

    @abstractmethod
    def native(self, sql: str) -> str:
        """The engine's own text for a statement written with ``?`` (and no list parameter)."""

    def statement(self, sql: str, params: Sequence[Any]) -> tuple[str, Sequence[Any]]:
        """The engine's own text and parameters for a statement written with ``?``, where
        ``col = ANY(?)`` takes a list parameter."""
        return self.native(sql), params

    @abstractmethod
    def placeholder(self, sql_type: SqlType) -> str:
        """A ``?`` placeholder for a parameter bound as ``sql_type``."""

    @abstractmethod
    def json_text(self, doc: str, path: JsonPath) -> str:
        """Value at ``path`` as text: strings as-is, numbers in JSON form, ``'true'``/``'false'``
        for booleans, JSON text for objects and arrays; NULL when missing or JSON null."""

    @abstractmethod
    def json_number(self, doc: str, path: JsonPath) -> str:
        """Value at ``path`` as a number; NULL unless it is a JSON number."""

    @abstractmethod
    def json_is_empty(self, doc: str, path: JsonPath) -> str:
        """Predicate: missing, JSON null, ``""``, ``[]`` or ``{}``."""

    @abstractmethod
    def json_elements(self, doc: str, path: JsonPath, alias: str) -> tuple[str, str, str]:
        """``(from_item, guard, element_doc)`` to iterate the array at ``path``.

        ``from_item`` goes in a FROM clause, ``guard`` in its WHERE (it must hide rows when the
        value is not an array) and ``element_doc`` is a JSON document expression for the
        element, usable as ``doc`` in the other methods.
        """

    @abstractmethod
    def json_leaves(self, doc: str, alias: str) -> tuple[str, str, str]:
        """``(from_item, guard, text)`` over every string and number nested anywhere in
        ``doc`` (searching the document's JSON text instead would also match object keys)."""

    @abstractmethod
    def json_present(self, doc: str, key: str) -> str:
        """Predicate: the top-level ``key`` is in the document (even with a JSON null)."""

    @abstractmethod
    def json_remove(self, doc: str, key: str) -> str:
        """The document without its top-level ``key``."""

    def not_driving(self, column: str) -> str:
        """``column`` as the left side of a WHERE term that must not choose the index: for a
        lookup by a list of primary keys, which only the key should drive."""
        return column

    def lower(self, expr: str) -> str:
        """``lower()`` of a bound value, folding exactly as ``lower()`` of a :meth:`json_text`
        value does (a value must compare equal to itself)."""
        return f"lower({expr})"


class SQLiteDialect(Dialect):
    """SQLite with JSON1 (built in since 3.38); documents are JSON text columns."""

    name = "sqlite"

    def native(self, sql: str) -> str:
        # SQLite has no row locks (its one writer holds the whole database)
        return sql.replace(" FOR UPDATE", "")

    def statement(self, sql: str, params: Sequence[Any]) -> tuple[str, Sequence[Any]]:
        sql = self.native(sql)
        if not any(isinstance(p, list) for p in params):
            return sql, params
        # SQLite binds no arrays: spread each list out (a plain IN list, which its planner
        # serves from the primary key; an empty one matches nothing)
        chunks = sql.split("?")
        text, flat = [chunks[0]], []
        for param, chunk in zip(params, chunks[1:], strict=True):
            if isinstance(param, list):
                if not text[-1].endswith(" = ANY("):
                    raise ValueError(f"a list parameter outside '= ANY(?)' in {sql!r}")
                text[-1] = text[-1].removesuffix(" = ANY(") + " IN ("
                text.append(", ".join("?" * len(param)) + chunk)
                flat.extend(param)
            else:
                text.append("?" + chunk)
                flat.append(param)
        return "".join(text), flat

    def placeholder(self, sql_type: SqlType) -> str:
        return "?"

    def not_driving(self, column: str) -> str:
        # Without statistics (nothing runs ANALYZE) the planner guesses ~10 rows for an
        # equality on an index's first column: for ``account_id = ? AND id IN (<more than
        # about ten ids>)`` it chose records_by_module and read the whole workspace (2.3 ms
        # for 14 ids of 7,000 records, growing with the workspace) over the key's lookups
        # (0.1 ms). A unary + makes the term unusable by any index.
        return f"+{column}"

    @staticmethod
    def path(path: JsonPath) -> str:
        parts = ["$"]
        for key in path:
            key = check_key(key)
            parts.append(f"[{key}]" if isinstance(key, int) else f'."{key}"')
        return "'" + "".join(parts) + "'"

    def json_text(self, doc: str, path: JsonPath) -> str:
        p = self.path(path)
        return (
            f"CASE json_type({doc}, {p}) WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' "
            f"ELSE CAST(json_extract({doc}, {p}) AS TEXT) END"
        )

    def json_number(self, doc: str, path: JsonPath) -> str:
        p = self.path(path)
        is_number = f"json_type({doc}, {p}) IN ('integer', 'real')"
        return f"CASE WHEN {is_number} THEN json_extract({doc}, {p}) END"

    def json_is_empty(self, doc: str, path: JsonPath) -> str:
        p = self.path(path)
        t = f"json_type({doc}, {p})"
        return (
            f"({t} IS NULL OR {t} = 'null' OR ({t} = 'text' AND json_extract({doc}, {p}) = '')"
            f" OR ({t} = 'array' AND json_array_length({doc}, {p}) = 0)"
            f" OR ({t} = 'object' AND json_extract({doc}, {p}) = '{{}}'))"
        )

    def json_elements(self, doc: str, path: JsonPath, alias: str) -> tuple[str, str, str]:
        p = self.path(path)
        # json_each over a scalar yields the scalar itself, so the guard demands an array.
        # json_quote keeps object/array elements as JSON and turns scalars back into JSON.
        return (
            f"json_each({doc}, {p}) AS {alias}",
            f"json_type({doc}, {p}) = 'array'",
            f"json_quote({alias}.value)",
        )

    def json_leaves(self, doc: str, alias: str) -> tuple[str, str, str]:
        return (
            f"json_tree({doc}) AS {alias}",
            f"{alias}.type IN ('text', 'integer', 'real')",
            f"CAST({alias}.atom AS TEXT)",
        )

    def json_present(self, doc: str, key: str) -> str:
        return f"json_type({doc}, {self.path((key,))}) IS NOT NULL"

    def json_remove(self, doc: str, key: str) -> str:
        return f"json_remove({doc}, {self.path((key,))})"


@lru_cache(maxsize=1024)
def _postgres_native(sql: str) -> str:
    numbers = iter(range(1, sql.count("?") + 1))
    return _MARK.sub(lambda _: f"${next(numbers)}", sql)


class PostgresDialect(Dialect):
    """PostgreSQL with ``jsonb`` documents and ``$n`` placeholders (asyncpg style).

    Run against a real server by the storage and HTTP suites (``FIELDHOUSE_TEST_DATABASE_URL``).
    """

    name = "postgres"

    def native(self, sql: str) -> str:
        return _postgres_native(sql)

    def placeholder(self, sql_type: SqlType) -> str:
        return "?::numeric" if sql_type == "number" else "?::text"

    @staticmethod
    def path(path: JsonPath) -> str:
        return "'{" + ",".join(f'"{check_key(k)}"' for k in path) + "}'"

    def _at(self, doc: str, path: JsonPath) -> str:
        return f"({doc} #> {self.path(path)})"

    def json_text(self, doc: str, path: JsonPath) -> str:
        # byte order whatever the database's collation, as on SQLite
        return f'(({doc} #>> {self.path(path)}) COLLATE "C")'

    def json_number(self, doc: str, path: JsonPath) -> str:
        v = self._at(doc, path)
        return f"CASE WHEN jsonb_typeof({v}) = 'number' THEN ({v} #>> '{{}}')::numeric END"

    def json_is_empty(self, doc: str, path: JsonPath) -> str:
        v = self._at(doc, path)
        return (
            f"(COALESCE(jsonb_typeof({v}), 'null') = 'null' OR {v} = '\"\"'::jsonb"
            f" OR {v} = '[]'::jsonb OR {v} = '{{}}'::jsonb)"
        )

    def json_elements(self, doc: str, path: JsonPath, alias: str) -> tuple[str, str, str]:
        v = self._at(doc, path)
        source = f"CASE WHEN jsonb_typeof({v}) = 'array' THEN {v} ELSE '[]'::jsonb END"
        return (f"jsonb_array_elements({source}) AS {alias}(value)", "TRUE", f"{alias}.value")

    def json_leaves(self, doc: str, alias: str) -> tuple[str, str, str]:
        return (
            f"jsonb_path_query({doc}, 'strict $.**') AS {alias}(value)",
            f"jsonb_typeof({alias}.value) IN ('string', 'number')",
            f"(({alias}.value #>> '{{}}') COLLATE \"C\")",  # folds as json_text does
        )

    def json_present(self, doc: str, key: str) -> str:
        return f"({doc} #> {self.path((key,))}) IS NOT NULL"

    def json_remove(self, doc: str, key: str) -> str:
        return f"({doc} #- {self.path((key,))})"

    def lower(self, expr: str) -> str:
        # json_text is COLLATE "C", under which lower() folds ASCII only (as SQLite's does); a
        # parameter in the database's collation would fold more, and 'À' would not equal 'À'
        return f'lower(({expr}) COLLATE "C")'


SQLITE: Dialect = SQLiteDialect()
POSTGRES: Dialect = PostgresDialect()
