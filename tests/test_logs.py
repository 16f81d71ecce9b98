"""FIELDHOUSE_LOG_FORMAT: what lands on stderr in each format."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from fieldhouse.cli import main
from fieldhouse.config import Settings, settings_from_env
from fieldhouse.logs import configure_logging


@pytest.fixture
def restore_logging() -> Iterator[None]:
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)


FIELDS = {"method": "GET", "route": "/v1/me", "status": 500, "requestId": "r-1"}


def _emit_failure() -> None:
    try:
        raise RuntimeError("disk on fire")
    except RuntimeError:
        logging.getLogger("fieldhouse.http").exception(
            "request r-1 failed", extra={"fields": FIELDS}
        )


def test_json_lines(capsys: pytest.CaptureFixture[str], restore_logging: None) -> None:
    configure_logging(settings_from_env({"FIELDHOUSE_LOG_FORMAT": "json"}), worker=3)
    _emit_failure()
    (line,) = capsys.readouterr().err.strip().splitlines()
    record = json.loads(line)
    assert record["level"] == "ERROR"
    assert record["logger"] == "fieldhouse.http"
    assert record["msg"] == "request r-1 failed"
    assert record["worker"] == 3
    assert record["requestId"] == "r-1"
    assert record["status"] == 500
    assert "RuntimeError: disk on fire" in record["exc"]
    assert record["ts"].endswith("Z")


def test_text_lines(capsys: pytest.CaptureFixture[str], restore_logging: None) -> None:
    configure_logging(Settings(log_format="text"))
    _emit_failure()
    err = capsys.readouterr().err
    first = err.splitlines()[0]
    assert "ERROR fieldhouse.http: request r-1 failed" in first
    assert "requestId=r-1" in first and "route=/v1/me" in first
    assert "RuntimeError: disk on fire" in err


def test_an_unknown_log_format_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FIELDHOUSE_LOG_FORMAT", "yaml")
    assert main(["init", "--data-dir", str(tmp_path)]) == 2
    err = json.loads(capsys.readouterr().err.strip().splitlines()[-1])
    assert "FIELDHOUSE_LOG_FORMAT='yaml'" in err["error"]["message"]
    assert "json, text" in err["error"]["message"]
