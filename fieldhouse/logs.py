"""Logging set-up: ``FIELDHOUSE_LOG_FORMAT=json`` writes one JSON object a line (for log
shippers), ``text`` a readable line; both carry the structured fields a record was given
through ``extra={"fields": {...}}`` (the access log's method, route, status, request id...)."""

from __future__ import annotations

import logging
import sys
import time
from typing import Any

import orjson

from fieldhouse.config import Settings

TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s{tag}: %(message)s"


class JsonFormatter(logging.Formatter):
    """One JSON object per record: time, level, logger, message, its fields, the traceback."""

    def __init__(self, worker: int | None = None) -> None:
        super().__init__()
        self._worker = worker
        self._second = -1
        self._second_text = ""

    def _timestamp(self, record: logging.LogRecord) -> str:
        second = int(record.created)
        if second != self._second:  # strftime once a second, not once a line
            self._second_text = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second))
            self._second = second
        return f"{self._second_text}.{int(record.msecs):03d}Z"

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "ts": self._timestamp(record),
            "level": record.levelname,
            "logger": record.name,
            "msg": record.getMessage(),
        }
        if self._worker is not None:
            out["worker"] = self._worker
        fields = getattr(record, "fields", None)
        if fields:
            out.update(fields)
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        return orjson.dumps(out, default=str).decode()


class TextFormatter(logging.Formatter):
    """The classic line, with a record's fields appended as ``key=value``."""

    _second = -1
    _second_text = ""

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:
        second = int(record.created)
        if second != self._second:  # strftime once a second, not once a line
            self._second_text = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(second))
            self._second = second
        return f"{self._second_text},{int(record.msecs):03d}"

    def format(self, record: logging.LogRecord) -> str:
        line = super().format(record)
        fields = getattr(record, "fields", None)
        if not fields:
            return line
        extra = " ".join(f"{k}={v}" for k, v in fields.items() if v is not None)
        head, newline, rest = line.partition("\n")
        return f"{head} {extra}{newline}{rest}"


def configure_logging(settings: Settings, *, worker: int | None = None) -> None:
    """Send every log line to stderr in the configured format (replacing earlier handlers)."""
    handler = logging.StreamHandler(sys.stderr)
    if settings.log_format == "json":
        handler.setFormatter(JsonFormatter(worker))
    else:
        tag = "" if worker is None else f"[w{worker}]"
        handler.setFormatter(TextFormatter(TEXT_FORMAT.format(tag=tag)))
    logging.basicConfig(level=settings.log_level, handlers=[handler], force=True)
