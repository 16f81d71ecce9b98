"""Fixed one-minute windows counted per API key (SPEC "Limits").

One process alone on its store counts in memory (:class:`FixedWindowLimiter`). When several
server processes share the store, each counts in memory against leases reserved from a count
kept in the store (:class:`SharedWindowLimiter`), so a key's limit holds across processes
instead of being multiplied by their number, without a database write per request.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

import trio

from fieldhouse.config import Settings
from fieldhouse.storage.backend import Backend

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


class Reserver(Protocol):
    async def reserve_rate_hits(self, bucket: str, window: int, hits: int) -> int:
        """Add ``hits`` to a bucket's window everywhere; return the window's total after."""
        ...


@dataclass
class _Lease:
    """What this process may still admit of a bucket's window without asking the store."""

    window: int
    granted: int = 0
    used: int = 0
    #: the window's total the store last reported (every process's reservations)
    total: int = 0
    #: the store had nothing left to grant
    spent: bool = False
    lock: trio.Lock = field(default_factory=trio.Lock)


class SharedWindowLimiter:
    """Counts in memory against leases reserved from a count shared by every process.

    A process reserves a share of what is left of a key's window (an upsert in the store that
    returns the window's new total), admits that many requests from memory, and reserves again
    when they are used. Reservations never exceed the limit, so a key never gets more than its
    limit in a window, whatever the number of processes; in exchange, requests may be refused
    while another process still holds part of a lease (at most ``1/share`` of what was left
    when it reserved). One store round trip serves a whole lease, not one request.
    """

    def __init__(
        self, store: Reserver, limit: int, *, share: int = 8, clock: Clock = time.time
    ) -> None:
        self.limit = limit
        self._store = store
        self._share = max(1, share)
        self._clock = clock
        self._leases: dict[str, _Lease] = {}

    async def check(self, bucket: str) -> RateState:
        now = self._clock()
        window = int(now // WINDOW_SECONDS)
        lease = self._leases.get(bucket)
        if lease is None or lease.window != window:
            if lease is None and len(self._leases) > 10_000:
                self._leases = {k: v for k, v in self._leases.items() if v.window == window}
            lease = self._leases[bucket] = _Lease(window)
        if lease.used >= lease.granted and not lease.spent:
            async with lease.lock:
                if lease.used >= lease.granted and not lease.spent:
                    await self._reserve(bucket, lease)
        allowed = lease.used < lease.granted
        if allowed:
            lease.used += 1
        left = max(0, self.limit - lease.total) + (lease.granted - lease.used)
        reset = (window + 1) * WINDOW_SECONDS
        return RateState(self.limit, left, reset, allowed, now)

    async def _reserve(self, bucket: str, lease: _Lease) -> None:
        wanted = max(1, (self.limit - lease.total) // self._share)
        total = await self._store.reserve_rate_hits(bucket, lease.window, wanted)
        granted = wanted - max(0, total - self.limit)
        lease.total = min(total, self.limit)
        if granted > 0:
            lease.granted += granted
        if total >= self.limit:
            lease.spent = True


def make_limiter(coordination: Reserver, settings: Settings, backend: Backend) -> Limiter:
    """In memory for one process alone on an embedded store; else (several workers, or a
    distributed backend whose other servers count too) shared through leases."""
    if settings.workers > 1 or backend.distributed:
        return SharedWindowLimiter(coordination, settings.rate_limit)
    return FixedWindowLimiter(settings.rate_limit)
