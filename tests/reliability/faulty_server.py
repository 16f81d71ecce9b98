"""``python -m tests.reliability.faulty_server serve ...``: the real CLI with one store read
broken, so that GET /v1/activity answers a genuine 500 (for the log-secrecy test); with
FIELDHOUSE_TEST_SLOW_WRITES set, each write transaction first takes that many seconds and says
so on stderr (for the graceful-shutdown test to signal mid-batch); with
FIELDHOUSE_TEST_STUCK_AGENT set, the offline agent answers one token and then waits forever,
as a slow model would (for the shutdown test of open event streams)."""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

import trio

from fieldhouse.agents.contract import ToolSpec
from fieldhouse.agents.providers import OfflineProvider
from fieldhouse.agents.providers.base import Step, TextSink, Turn
from fieldhouse.cli import main
from fieldhouse.storage.store import Store


async def _broken(*args: Any, **kwargs: Any) -> Any:
    raise RuntimeError("injected failure")


Store.list_activity = _broken  # type: ignore[method-assign]
_real_write = Store.write


@asynccontextmanager
async def _slow_write(self: Store, account_id: str, *, light: bool = False) -> AsyncIterator[Any]:
    print("write held", file=sys.stderr, flush=True)
    await trio.sleep(float(os.environ.get("FIELDHOUSE_TEST_SLOW_WRITES", "0")))
    async with _real_write(self, account_id, light=light) as txn:
        yield txn


if os.environ.get("FIELDHOUSE_TEST_SLOW_WRITES"):
    Store.write = _slow_write  # type: ignore[method-assign,assignment]


async def _stuck_step(
    self: OfflineProvider, turns: Sequence[Turn], tools: Sequence[ToolSpec], emit: TextSink
) -> Step:
    await emit("thinking ")
    await trio.sleep_forever()
    raise AssertionError("unreachable")


if os.environ.get("FIELDHOUSE_TEST_STUCK_AGENT"):
    OfflineProvider.step = _stuck_step  # type: ignore[method-assign]

if __name__ == "__main__":
    raise SystemExit(main())
