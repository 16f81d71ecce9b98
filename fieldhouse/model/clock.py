"""Identifiers and timestamps, in the one format every table and response uses."""

from __future__ import annotations

import os
import threading
import uuid
from datetime import UTC, datetime

#: bytes read from the OS's random source at a time (256 ids' worth)
POOL_BYTES = 4096


class _RandomPool:
    """Bytes from ``os.urandom``, read a page at a time and handed out in slices.

    A create took three ``os.urandom`` calls (the record's id, its activity entry's id, the
    request id), each a ``getrandom`` system call that releases the GIL; under load a thread
    of the server (SQLite's writer, a reader) then takes the GIL and the request waits for it
    to come back. The bytes are the same OS randomness, one call per 4 KiB. A forked child
    starts with an empty pool (it would otherwise hand out its parent's bytes again)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._buffer = b""
        self._at = 0

    def take(self, n: int) -> bytes:
        with self._lock:
            at = self._at
            if at + n > len(self._buffer):
                self._buffer = os.urandom(max(POOL_BYTES, n))
                at = 0
            self._at = at + n
            return self._buffer[at : at + n]

    def forget(self) -> None:
        self._lock = threading.Lock()  # a thread of the parent may have held it at the fork
        self._buffer = b""
        self._at = 0


_pool = _RandomPool()
os.register_at_fork(after_in_child=_pool.forget)


def random_bytes(n: int) -> bytes:
    """``n`` bytes of OS randomness (``os.urandom``'s, read in pages)."""
    return _pool.take(n)


def new_id() -> str:
    """A random (version 4) UUID as text, as ``str(uuid.uuid4())``."""
    raw = bytearray(_pool.take(16))
    raw[6] = (raw[6] & 0x0F) | 0x40
    raw[8] = (raw[8] & 0x3F) | 0x80
    h = raw.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def to_iso(moment: datetime) -> str:
    """ISO 8601 in UTC with microseconds and a Z: sorts as text in time order."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def now_iso() -> str:
    return to_iso(datetime.now(UTC))


def is_uuid(text: str) -> bool:
    try:
        return str(uuid.UUID(text)) == text.lower() and len(text) == 36
    except (ValueError, AttributeError, TypeError):
        return False
