"""Logging set-up: ``FIELDHOUSE_LOG_FORMAT=json`` writes one JSON object a line (for log
shippers), ``text`` a readable line; both carry the structured fields a record was given
through ``extra={"fields": {...}}`` (the access log's method, route, status, request id...)."""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Mapping
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

    def _timestamp(self, created: float, msecs: float) -> str:
        second = int(created)
        if second != self._second:  # strftime once a second, not once a line
            self._second_text = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second))
            self._second = second
        return f"{self._second_text}.{int(msecs):03d}Z"

    def _json(
        self,
        ts: str,
        level: str,
        logger: str,
        message: str,
        fields: Mapping[str, Any] | None,
        exc: str | None = None,
    ) -> str:
        out: dict[str, Any] = {"ts": ts, "level": level, "logger": logger, "msg": message}
        if self._worker is not None:
            out["worker"] = self._worker
        if fields:
            out.update(fields)
        if exc:
            out["exc"] = exc
        return orjson.dumps(out, default=str).decode()

    def line(
        self, created: float, level: str, logger: str, message: str, fields: Mapping[str, Any]
    ) -> str:
        """What :meth:`format` makes of a record of these parts without an exception (a line
        with no :class:`logging.LogRecord` made for it)."""
        ts = self._timestamp(created, (created - int(created)) * 1000)
        return self._json(ts, level, logger, message, fields)

    def format(self, record: logging.LogRecord) -> str:
        return self._json(
            self._timestamp(record.created, record.msecs),
            record.levelname,
            record.name,
            record.getMessage(),
            getattr(record, "fields", None),
            self.formatException(record.exc_info) if record.exc_info else None,
        )


class TextFormatter(logging.Formatter):
    """The classic line, with a record's fields appended as ``key=value``."""

    _second = -1
    _second_text = ""

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:
        return self._asctime(record.created, record.msecs)

    def _asctime(self, created: float, msecs: float) -> str:
        second = int(created)
        if second != self._second:  # strftime once a second, not once a line
            self._second_text = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(second))
            self._second = second
        return f"{self._second_text},{int(msecs):03d}"

    def line(
        self, created: float, level: str, logger: str, message: str, fields: Mapping[str, Any]
    ) -> str:
        """What :meth:`format` makes of a record of these parts without an exception (a line
        with no :class:`logging.LogRecord` made for it)."""
        head = self._fmt % {  # type: ignore[operator]
            "asctime": self._asctime(created, (created - int(created)) * 1000),
            "levelname": level,
            "name": logger,
            "message": message,
        }
        return _with_fields(head, fields)

    def format(self, record: logging.LogRecord) -> str:
        return _with_fields(super().format(record), getattr(record, "fields", None))


def _with_fields(line: str, fields: Mapping[str, Any] | None) -> str:
    """A text line with its fields appended to its first line as ``key=value``."""
    if not fields:
        return line
    extra = " ".join(f"{k}={v}" for k, v in fields.items() if v is not None)
    head, newline, rest = line.partition("\n")
    return f"{head} {extra}{newline}{rest}"


#: the stderr handler :func:`configure_logging` installed last, and its formatter
_installed: tuple[logging.StreamHandler[Any], JsonFormatter | TextFormatter] | None = None


def configure_logging(settings: Settings, *, worker: int | None = None) -> None:
    """Send every log line to stderr in the configured format (replacing earlier handlers)."""
    global _installed
    handler: logging.StreamHandler[Any] = logging.StreamHandler(sys.stderr)
    formatter: JsonFormatter | TextFormatter
    if settings.log_format == "json":
        formatter = JsonFormatter(worker)
    else:
        tag = "" if worker is None else f"[w{worker}]"
        formatter = TextFormatter(TEXT_FORMAT.format(tag=tag))
    handler.setFormatter(formatter)
    logging.basicConfig(level=settings.log_level, handlers=[handler], force=True)
    _installed = handler, formatter


def direct_writer(
    logger: logging.Logger, level: int
) -> tuple[logging.StreamHandler[Any], JsonFormatter | TextFormatter] | None:
    """The handler that alone writes ``logger``'s records of ``level``, and its formatter,
    when that is the one :func:`configure_logging` installed and nothing else sees the records
    (no other handler or filter on the way to the root, which holds only it); None otherwise
    (a test's log capture, an embedding application's own handlers): the record goes the
    usual way.

    A record that reaches only that handler can be written as the line its formatter would
    make, without the :class:`logging.LogRecord` (the access log's line a request: 8 us
    through ``logging``, ~9% of a create at one connection)."""
    installed = _installed
    if installed is None:
        return None
    handler = installed[0]
    node: logging.Logger | None = logger
    while node is not None:
        if node.filters or node.disabled:
            return None
        if node.parent is None:  # the root
            if node.handlers != [handler] or handler.filters or handler.level > level:
                return None
            return installed
        if node.handlers:
            return None
        if not node.propagate:
            return None
        node = node.parent  # type: ignore[assignment]
    return None


def write_line(handler: logging.StreamHandler[Any], line: str) -> None:
    """``line`` through ``handler`` as its ``emit`` writes a formatted record."""
    handler.acquire()
    try:
        handler.stream.write(line + handler.terminator)
        handler.flush()
    except Exception:  # as logging does: a failed log write does not fail the request
        handler.handleError(logging.makeLogRecord({"msg": line}))
    finally:
        handler.release()
