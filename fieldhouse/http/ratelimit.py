"""Fixed one-minute windows counted per API key (SPEC "Limits").

One process on the embedded store counts in memory (:class:`FixedWindowLimiter`). When the
store is shared by several server processes the counts live in it (:class:`SharedWindowLimiter`),
so a key's limit holds across processes instead of being multiplied by their number.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from fieldhouse.storage.store import Store

WINDOW_SECONDS = 60
Clock = Callable[[], float]


@dataclass(frozen=True)
class RateState:
    limit: int
    remaining: int
    reset: int  # Unix seconds when the window ends
    allowed: bool
    now: float

    @classmethod
    def of(cls, limit: int, window: int, count: int, now: float) -> RateState:
        """The state after the count-th request of a window."""
        reset = (window + 1) * WINDOW_SECONDS
        return cls(limit, max(0, limit - count), reset, count <= limit, now)

    @property
    def retry_after(self) -> int:
        return max(1, int(self.reset - self.now + 0.999))

    def headers(self) -> dict[str, str]:
        return {
            "X-RateLimit-Limit": str(self.limit),
            "X-RateLimit-Remaining": str(self.remaining),
            "X-RateLimit-Reset": str(self.reset),
        }


class Limiter(Protocol):
    limit: int

    async def check(self, bucket: str) -> RateState:
        """Count one request in bucket's current window; report the window's state."""
        ...


class FixedWindowLimiter:
    """Counts requests per bucket in the current window; memory holds one window's buckets."""

    def __init__(self, limit: int, clock: Clock = time.time) -> None:
        self.limit = limit
        self._clock = clock
        self._window = -1
        self._counts: dict[str, int] = {}

    def hit(self, bucket: str) -> RateState:
        now = self._clock()
        window = int(now // WINDOW_SECONDS)
        if window != self._window:
            self._window = window
            self._counts = {}
        count = self._counts.get(bucket, 0) + 1
        self._counts[bucket] = count
        return RateState.of(self.limit, window, count, now)

    async def check(self, bucket: str) -> RateState:
        return self.hit(bucket)


class SharedWindowLimiter:
    """Counts in the store every server process shares (one upsert per request)."""

    def __init__(self, store: Store, limit: int, clock: Clock = time.time) -> None:
        self.limit = limit
        self._store = store
        self._clock = clock

    async def check(self, bucket: str) -> RateState:
        now = self._clock()
        window = int(now // WINDOW_SECONDS)
        count = await self._store.hit_rate_limit(bucket, window)
        return RateState.of(self.limit, window, count, now)


def make_limiter(store: Store, limit: int) -> Limiter:
    if store.shared_between_processes:
        return SharedWindowLimiter(store, limit)
    return FixedWindowLimiter(limit)
