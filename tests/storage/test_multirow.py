"""The write-behind's statements joined for PostgreSQL (``storage/multirow.py``): what may
share a statement and what must not. Their effect on a real database is in test_postgres.py."""

from __future__ import annotations

from fieldhouse.storage.base import execute
from fieldhouse.storage.multirow import as_one_insert, combine


def test_an_upsert_whose_rows_share_a_key_runs_row_by_row() -> None:
    # in one statement two rows of one key would meet (PostgreSQL refuses that); one by one
    # the last wins, as the write transaction means
    sql = "INSERT INTO t (a, b, c) VALUES (?, ?, 0) ON CONFLICT (a) DO UPDATE SET b = excluded.b"
    assert as_one_insert(sql, [("k", 1), ("k", 2)]) is None
    assert as_one_insert(sql, [("k", 1), ("j", 2)]) == [
        (sql.replace("(?, ?, 0)", "(?, ?, 0), (?, ?, 0)"), ["k", 1, "j", 2])
    ]


def test_writes_into_one_table_or_across_a_savepoint_stay_apart() -> None:
    # a write must see the one before it into the same table (an insert, then an update of
    # the row), and a savepoint must lie between what it guards and what came before
    ins = execute("INSERT INTO records (id, fields) VALUES (?, ?)", ("r1", "{}"))
    upd = execute("UPDATE records SET fields = ? WHERE id = ?", ("{}", "r1"))
    act = execute("INSERT INTO activity (seq) VALUES (?)", (1,))
    sp = execute("SAVEPOINT sp1")
    got = combine([ins, act, upd, sp, act])
    assert [s.sql.split(" AS (")[0] if s.sql.startswith("WITH") else s.sql for s in got] == [
        "WITH w0",
        upd.sql,
        sp.sql,
        act.sql,
    ]
    assert got[0].params == ["r1", "{}", 1]
