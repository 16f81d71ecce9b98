"""A database URL per backend for the subprocess tests: a SQLite file or a fresh PostgreSQL."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.reliability.procs import sqlite_url


@pytest.fixture
def db_url(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> str:
    if backend == "postgres":
        return str(request.getfixturevalue("pg_url"))
    (tmp_path / "data").mkdir(exist_ok=True)
    return sqlite_url(tmp_path / "data")
