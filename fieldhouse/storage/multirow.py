"""PostgreSQL's share of the write-behind: fewer statements for the same writes.

A batch of creates queues, for the whole batch, one insert of records, one of activity entries,
one upsert of search text and one of the vector queue, and the counters' write-back. Each was a
round trip to the database (and ``executemany`` one statement a row) while the workspace's
lock was held, which is what a workspace's writes per second come to. Here the rows of an
insert become one multi-row statement (:func:`as_one_insert`), and consecutive writes into
different tables one statement of data-modifying ``WITH`` queries (:func:`combine`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from fieldhouse.storage.base import Stmt, execute

#: parameters of one statement at most (the protocol counts them in 16 bits)
MAX_PARAMS = 32_767
#: an INSERT that can go in as one: nothing after its row, or an ON CONFLICT clause on columns
#: named in it (with no parameters of its own)
_INSERT = re.compile(
    r"INSERT INTO (?P<table>\w+) \((?P<cols>[\w, ]+)\) VALUES (?P<row>\([^()]*\))"
    r"(?P<tail> ON CONFLICT \((?P<keys>[\w, ]+)\) DO [^?()]*)?"
)
#: an UPDATE of one table by its own columns only (no subquery reads another table)
_UPDATE = re.compile(r"UPDATE (?P<table>\w+) SET [^()]* WHERE [^()]*")
#: the tables whose writes may share a statement: none of them is read by another's trigger
#: (the records triggers read counted_facets and kept_aggregates, never written here)
COMBINED_TABLES = frozenset(
    {"records", "activity", "accounts", "fields", "search_docs", "search_queue"}
)


def _key_places(cols: str, row: str, keys: str) -> list[int] | None:
    """The parameter positions of the conflict key's columns in a row; None when a key
    column is not a plain parameter there."""
    names = [c.strip() for c in cols.split(",")]
    items = [i.strip() for i in row[1:-1].split(",")]
    if len(names) != len(items):
        return None
    place: dict[str, int] = {}
    for name, item in zip(names, items, strict=True):
        if item.startswith("?"):
            place[name] = len(place)
    try:
        return [place[k.strip()] for k in keys.split(",")]
    except KeyError:
        return None


def _distinct_keys(m: re.Match[str], rows: Sequence[Sequence[Any]]) -> bool:
    """Whether no two rows of an upsert share its conflict key (in one statement they would
    meet each other, which PostgreSQL refuses)."""
    if m["tail"] is None:
        return True
    places = _key_places(m["cols"], m["row"], m["keys"])
    if places is None:
        return False
    keys = {tuple(r[i] for i in places) for r in rows}
    return len(keys) == len(rows)


def as_one_insert(sql: str, rows: Sequence[Sequence[Any]]) -> list[tuple[str, list[Any]]] | None:
    """Many rows of an INSERT as multi-row INSERTs (``?`` placeholders): one statement for
    many rows (one round of its statement triggers, one plan) where ``executemany`` runs it
    once a row; as many rows in each as its parameters allow. None when ``sql`` is not a plain
    INSERT ... VALUES (or an upsert whose rows do not all have keys of their own): it runs
    row by row."""
    m = _INSERT.fullmatch(sql)
    if m is None or len(rows) < 2 or not _distinct_keys(m, rows):
        return None
    head, row, tail = sql[: m.start("row")], m["row"], m["tail"] or ""
    step = max(MAX_PARAMS // max(len(rows[0]), 1), 1)
    out = []
    for at in range(0, len(rows), step):
        chunk = rows[at : at + step]
        text = f"{head}{', '.join([row] * len(chunk))}{tail}"
        out.append((text, [p for r in chunk for p in r]))
    return out


def _single(s: Stmt) -> tuple[str, str, list[Any]] | None:
    """``(table, sql, params)`` of a write that can join others in one statement; None for
    anything else (a read, a savepoint, a DELETE, a table outside COMBINED_TABLES)."""
    if s.result == "none":
        m = _INSERT.fullmatch(s.sql) or _UPDATE.fullmatch(s.sql)
        sql, params = s.sql, list(s.params)
    elif s.result == "many":
        m = _INSERT.fullmatch(s.sql)
        one = as_one_insert(s.sql, s.params)
        if one is None or len(one) != 1:
            return None
        sql, params = one[0]
    else:
        return None
    if m is None or m["table"] not in COMBINED_TABLES:
        return None
    return m["table"], sql, params


def _joined(group: list[tuple[str, str, list[Any]]]) -> Stmt:
    """One statement of the group's writes, each a data-modifying WITH query."""
    parts = ", ".join(f"w{i} AS ({sql})" for i, (_, sql, _) in enumerate(group))
    return execute(f"WITH {parts} SELECT 1", [p for _, _, params in group for p in params])


def combine(stmts: Sequence[Stmt]) -> list[Stmt]:
    """The statements with each run of writes into different tables (of COMBINED_TABLES, by
    plain INSERT, upsert or UPDATE) as one statement. Writes into different tables cannot see
    each other's rows, so in one statement (one snapshot) they do what they did one after
    another; a write into a table the run already wrote starts the next run."""
    out: list[Stmt] = []
    group: list[tuple[str, str, list[Any]]] = []
    size = 0

    def close() -> None:
        if len(group) == 1:
            out.append(execute(group[0][1], group[0][2]))
        elif group:
            out.append(_joined(group))
        group.clear()

    for s in stmts:
        one = _single(s)
        if one is None:
            close()
            size = 0
            out.append(s)
            continue
        if any(t == one[0] for t, _, _ in group) or size + len(one[2]) > MAX_PARAMS:
            close()
            size = 0
        group.append(one)
        size += len(one[2])
    close()
    return out
