"""FIELDHOUSE_LOG_FORMAT: what lands on stderr in each format."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from fieldhouse.cli import main
from fieldhouse.config import Settings, settings_from_env
from fieldhouse.logs import configure_logging, direct_writer, write_line


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


ACCESS_FIELDS = {
    "method": "POST",
    "route": "/v1/modules/{moduleSlug}/records",
    "path": "/v1/modules/deals/records",
    "status": 201,
    "durationMs": 0.815,
    "requestId": "12238ca33e29eb3d37011cb06a106823",
    "workspaceId": None,
    "keyId": None,
}


@pytest.mark.parametrize("log_format", ["json", "text"])
@pytest.mark.parametrize("created", [1_795_000_000.25, 1_795_000_000.9996, 1_795_000_001.0])
def test_an_access_line_written_directly_is_the_line_logging_writes(
    capsys: pytest.CaptureFixture[str], restore_logging: None, log_format: str, created: float
) -> None:
    """The access log skips logging's record where only the installed handler would see
    it; what reaches stderr is the same line, byte for byte."""
    configure_logging(Settings(log_format=log_format), worker=1)  # type: ignore[arg-type]
    access = logging.getLogger("fieldhouse.access")
    direct = direct_writer(access, logging.INFO)
    assert direct is not None
    handler, formatter = direct
    for path in ("/v1/modules/deals/records", "/v1/x%0Ay\nz"):
        fields = {**ACCESS_FIELDS, "path": path}
        record = access.makeRecord(
            access.name,
            logging.INFO,
            __file__,
            0,
            "%s %s %d",
            ("POST", path, 201),
            None,
            extra={"fields": fields},
        )
        record.created, record.msecs = created, int((created - int(created)) * 1000) + 0.0
        access.handle(record)
        write_line(
            handler, formatter.line(created, "INFO", access.name, f"POST {path} 201", fields)
        )
        err = capsys.readouterr().err
        half = len(err) // 2  # what logging wrote, then the direct line
        assert err[half:] == err[:half]
        assert err.startswith(("{", "20")) and err.count(ACCESS_FIELDS["requestId"]) == 2


def test_the_access_log_goes_through_logging_when_anything_else_listens(
    restore_logging: None,
) -> None:
    access = logging.getLogger("fieldhouse.access")
    configure_logging(Settings(log_format="json"))
    assert direct_writer(access, logging.INFO) is not None
    listener = logging.Handler()
    for where in (access, logging.getLogger("fieldhouse"), logging.getLogger()):
        where.addHandler(listener)
        try:
            assert direct_writer(access, logging.INFO) is None
        finally:
            where.removeHandler(listener)
    assert direct_writer(access, logging.INFO) is not None
    access.propagate = False  # its records go nowhere the installed handler writes
    try:
        assert direct_writer(access, logging.INFO) is None
    finally:
        access.propagate = True
    root = logging.getLogger()
    root.handlers[0].setLevel(logging.WARNING)  # the handler would drop an INFO line
    assert direct_writer(access, logging.INFO) is None
    assert direct_writer(access, logging.ERROR) is not None


def test_an_unknown_log_format_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FIELDHOUSE_LOG_FORMAT", "yaml")
    assert main(["init", "--data-dir", str(tmp_path)]) == 2
    err = json.loads(capsys.readouterr().err.strip().splitlines()[-1])
    assert "FIELDHOUSE_LOG_FORMAT='yaml'" in err["error"]["message"]
    assert "json, text" in err["error"]["message"]
