"""Reusable pieces for load benchmarks: servers in subprocesses, a closed-loop load generator.

The load generator runs in the calling process (trio + httpx) while every server runs in its
own subprocess (see benchmarks/servers.py), so on a small machine the two compete for the same
cores: read the results together with ``LoadResult.client_cpu`` (the generator's CPU share).
"""

from __future__ import annotations

import ssl
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from functools import cache

import certifi
import httpx
import trio

from benchmarks.servers import (
    ServerProcess,
    free_port,
    running_server,
    spawn_server,
    start_server,
    total_timeout,
)

__all__ = [
    "LoadResult",
    "ServerProcess",
    "format_table",
    "free_port",
    "run_load",
    "run_load_async",
    "running_server",
    "spawn_server",
    "start_server",
    "total_timeout",
]

#: a request factory gets the worker's client and a sequence number unique within the run
RequestFactory = Callable[[httpx.AsyncClient, int], httpx.Request]
BodyFactory = Callable[[int], bytes]


@cache
def shared_ssl_context() -> ssl.SSLContext:
    """One TLS context for every client: httpx otherwise loads the CA bundle per client
    (about 20 ms of CPU each, 5 s for 256 workers, eaten out of the warm-up)."""
    return ssl.create_default_context(cafile=certifi.where())


@dataclass
class LoadResult:
    #: requests started in the measured window (each has a latency and a status)
    requests: int
    #: of those, the ones that did not get a 2xx (transport errors count under their name)
    errors: int
    statuses: dict[str, int]
    #: the measured window in seconds
    duration: float
    #: requests that also finished inside the window: the basis of ``rps``
    completed_in_window: int
    latencies_ms: list[float] = field(repr=False)
    #: CPU seconds of the generator process per wall second (1.0 = one core busy)
    client_cpu: float = 0.0

    @property
    def rps(self) -> float:
        return self.completed_in_window / self.duration if self.duration > 0 else 0.0

    def percentile(self, q: float) -> float:
        if not self.latencies_ms:
            return 0.0
        ordered = sorted(self.latencies_ms)
        return ordered[min(len(ordered) - 1, int(q / 100 * len(ordered)))]

    @property
    def p50_ms(self) -> float:
        return self.percentile(50)

    @property
    def p99_ms(self) -> float:
        return self.percentile(99)

    @property
    def mean_ms(self) -> float:
        lat = self.latencies_ms
        return sum(lat) / len(lat) if lat else 0.0


async def run_load_async(
    target: str | RequestFactory,
    *,
    concurrency: int,
    duration: float,
    headers: Mapping[str, str] | None = None,
    method: str = "GET",
    body_factory: BodyFactory | None = None,
    warmup: float = 1.0,
    request_timeout: float = 10.0,
    shared_pool: bool = False,
) -> LoadResult:
    """Closed loop: ``concurrency`` workers send requests back to back on keep-alive connections.

    Requests started during ``warmup`` are not recorded; workers stop starting requests after
    ``warmup + duration``; each request times out after ``request_timeout`` (an error), and the
    whole run is cut 5 s after that as a last resort.

    By default each worker has its own one-connection ``httpx.AsyncClient``. With
    ``shared_pool`` all workers share one client limited to ``concurrency`` connections; that
    is much slower at high concurrency because httpcore's pool scans every connection (a
    ``poll`` syscall each) for every queued request: on 2 cores it capped an empty server at
    about 600 req/s with 32 connections, against about 1,500 with per-worker clients.
    """
    latencies: list[float] = []
    statuses: Counter[str] = Counter()
    errors = 0
    in_window = 0
    timeout = httpx.Timeout(request_timeout)

    def client_for(connections: int) -> httpx.AsyncClient:
        limits = httpx.Limits(max_connections=connections, max_keepalive_connections=connections)
        return httpx.AsyncClient(
            headers=headers, limits=limits, timeout=timeout, verify=shared_ssl_context()
        )

    def build(client: httpx.AsyncClient, seq: int) -> httpx.Request:
        if not isinstance(target, str):
            return target(client, seq)
        body = body_factory(seq) if body_factory is not None else None
        return client.build_request(method, target, content=body)

    async def worker(shared: httpx.AsyncClient | None, index: int) -> None:
        nonlocal errors, in_window
        async with AsyncExitStack() as stack:
            if shared is None:
                client = await stack.enter_async_context(client_for(1))
            else:
                client = shared
            seq = index
            while (started := time.perf_counter()) < stop_at:
                try:
                    response = await client.send(build(client, seq))
                    await response.aread()
                    key, ok = str(response.status_code), response.is_success
                except httpx.HTTPError as exc:
                    key, ok = type(exc).__name__, False
                done = time.perf_counter()
                seq += concurrency
                if started < measure_from:
                    continue
                latencies.append((done - started) * 1000.0)
                statuses[key] += 1
                errors += not ok
                in_window += done <= stop_at

    async with AsyncExitStack() as stack:
        shared = await stack.enter_async_context(client_for(concurrency)) if shared_pool else None
        measure_from = time.perf_counter() + warmup
        stop_at = measure_from + duration
        with trio.move_on_after(warmup + duration + request_timeout + 5.0):
            async with trio.open_nursery() as nursery:
                for index in range(concurrency):
                    nursery.start_soon(worker, shared, index)
                await trio.sleep(max(0.0, measure_from - time.perf_counter()))
                cpu0, wall0 = time.process_time(), time.perf_counter()
        cpu = (time.process_time() - cpu0) / max(1e-9, time.perf_counter() - wall0)
    return LoadResult(len(latencies), errors, dict(statuses), duration, in_window, latencies, cpu)


def run_load(
    target: str | RequestFactory,
    *,
    concurrency: int,
    duration: float,
    headers: Mapping[str, str] | None = None,
    method: str = "GET",
    body_factory: BodyFactory | None = None,
    warmup: float = 1.0,
    shared_pool: bool = False,
) -> LoadResult:
    """``run_load_async`` in its own ``trio.run`` (call it from synchronous code)."""

    async def main() -> LoadResult:
        return await run_load_async(
            target,
            concurrency=concurrency,
            duration=duration,
            headers=headers,
            method=method,
            body_factory=body_factory,
            warmup=warmup,
            shared_pool=shared_pool,
        )

    return trio.run(main)


def _cell(value: object) -> str:
    """Numbers with thousands separators; floats as rounded by the caller, at most 2 places."""
    if isinstance(value, float):
        return f"{value:,}" if round(value, 2) == value else f"{value:,.2f}"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return str(value)


def _looks_numeric(text: str) -> bool:
    try:
        float(text.replace(",", "").rstrip("x%"))
    except ValueError:
        return False
    return True


def format_table(rows: Sequence[Mapping[str, object]]) -> str:
    """A markdown table; columns are the first row's keys, numeric columns right-aligned."""
    if not rows:
        return ""
    columns = list(rows[0])
    cells = [[_cell(row.get(col, "")) for col in columns] for row in rows]
    widths = [max(len(col), *(len(r[i]) for r in cells)) for i, col in enumerate(columns)]
    numeric = [all(_looks_numeric(r[i]) for r in cells) for i in range(len(columns))]

    def line(values: Sequence[str]) -> str:
        padded = [
            v.rjust(w) if num else v.ljust(w)
            for v, w, num in zip(values, widths, numeric, strict=True)
        ]
        return "| " + " | ".join(padded) + " |"

    rule = ["-" * (w - 1) + ":" if num else "-" * w for w, num in zip(widths, numeric, strict=True)]
    return "\n".join([line(columns), "| " + " | ".join(rule) + " |", *(line(r) for r in cells)])
