"""Statements written once become each engine's own text."""

from __future__ import annotations

import pytest

from fieldhouse.storage.sqldialect import POSTGRES, SQLITE

STMT = "SELECT config FROM fields WHERE account_id = ? AND id = ANY(?) AND slug = ? FOR UPDATE"


def test_postgres_numbers_the_placeholders_and_binds_lists_as_arrays() -> None:
    assert POSTGRES.native(STMT) == (
        "SELECT config FROM fields WHERE account_id = $1 AND id = ANY($2) AND slug = $3 FOR UPDATE"
    )
    assert POSTGRES.native("SELECT 1") == "SELECT 1"


def test_sqlite_spreads_a_list_out_and_has_no_row_locks() -> None:
    sql, params = SQLITE.statement(STMT, ["a", ["x", "y", "z"], "s"])
    assert sql == "SELECT config FROM fields WHERE account_id = ? AND id IN (?, ?, ?) AND slug = ?"
    assert params == ["a", "x", "y", "z", "s"]
    assert SQLITE.statement(STMT, ["a", [], "s"]) == (
        "SELECT config FROM fields WHERE account_id = ? AND id IN () AND slug = ?",
        ["a", "s"],
    )
    with pytest.raises(ValueError):
        SQLITE.statement("SELECT ? IN ?", [["x"], ["y"]])


@pytest.mark.parametrize("dialect", [SQLITE, POSTGRES], ids=["sqlite", "postgres"])
def test_json_keys_are_checked_before_they_reach_sql(dialect: object) -> None:
    for method in ("json_present", "json_remove"):
        with pytest.raises(ValueError):
            getattr(dialect, method)("fields", "x' OR '1")
