"""Fixed one-minute windows counted per API key (SPEC "Limits")."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

WINDOW_SECONDS = 60


@dataclass(frozen=True)
class RateState:
    limit: int
    remaining: int
    reset: int  # Unix seconds when the window ends
    allowed: bool
    now: float

    @property
    def retry_after(self) -> int:
        return max(1, int(self.reset - self.now + 0.999))

    def headers(self) -> dict[str, str]:
        return {
            "X-RateLimit-Limit": str(self.limit),
            "X-RateLimit-Remaining": str(self.remaining),
            "X-RateLimit-Reset": str(self.reset),
        }


class FixedWindowLimiter:
    """Counts requests per bucket in the current window; memory holds one window's buckets."""

    def __init__(self, limit: int, clock: Callable[[], float] = time.time) -> None:
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
        reset = (window + 1) * WINDOW_SECONDS
        allowed = count <= self.limit
        return RateState(self.limit, max(0, self.limit - count), reset, allowed, now)
