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


def test_sqlite_reads_a_list_as_a_json_array_and_has_no_row_locks() -> None:
    assert SQLITE.native(STMT) == (
        "SELECT config FROM fields WHERE account_id = ? AND id IN"
        " (SELECT value FROM json_each(?)) AND slug = ?"
    )


@pytest.mark.parametrize("dialect", [SQLITE, POSTGRES], ids=["sqlite", "postgres"])
def test_json_keys_are_checked_before_they_reach_sql(dialect: object) -> None:
    for method in ("json_present", "json_remove"):
        with pytest.raises(ValueError):
            getattr(dialect, method)("fields", "x' OR '1")
