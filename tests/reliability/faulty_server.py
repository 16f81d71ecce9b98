"""``python -m tests.reliability.faulty_server serve ...``: the real CLI with one store read
broken, so that GET /v1/activity answers a genuine 500 (for the log-secrecy test); with
FIELDHOUSE_TEST_SLOW_WRITES set, each write transaction first takes that many seconds and says
so on stderr (for the graceful-shutdown test to signal mid-batch)."""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import trio

from fieldhouse.cli import main
from fieldhouse.storage.postgres import PostgresStore
from fieldhouse.storage.sqlite import SQLiteStore


async def _broken(*args: Any, **kwargs: Any) -> Any:
    raise RuntimeError("injected failure")


SQLiteStore.list_activity = _broken  # type: ignore[method-assign]
_real_write = SQLiteStore.write


@asynccontextmanager
async def _slow_write(self: SQLiteStore, account_id: str) -> AsyncIterator[Any]:
    print("write held", file=sys.stderr, flush=True)
    await trio.sleep(float(os.environ.get("FIELDHOUSE_TEST_SLOW_WRITES", "0")))
    async with _real_write(self, account_id) as txn:
        yield txn


if os.environ.get("FIELDHOUSE_TEST_SLOW_WRITES"):
    SQLiteStore.write = _slow_write  # type: ignore[method-assign,assignment]
PostgresStore.list_activity = _broken  # type: ignore[method-assign]

if __name__ == "__main__":
    raise SystemExit(main())
