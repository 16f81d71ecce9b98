"""Prometheus metrics (prometheus-client), served at ``GET /metrics``.

In a server of several worker processes the supervisor makes a directory for
prometheus-client's multiprocess mode and hands it to each worker as
``PROMETHEUS_MULTIPROC_DIR`` (``Settings.metrics_dir``); every worker writes its samples there
and whichever worker answers a scrape adds them all up, so one scrape sees the whole server.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from prometheus_client import multiprocess as prom_mp

LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10)
BATCH_BUCKETS = (1, 2, 4, 8, 16, 32, 64, 128, 256)
COMMIT_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5)


class Metrics:
    """Every metric of one server process, and the scrape that reads them (all processes')."""

    def __init__(self, multiprocess_dir: str | None = None) -> None:
        self.multiprocess_dir = multiprocess_dir
        self.registry = CollectorRegistry(auto_describe=True)
        reg = self.registry
        self.requests = Counter(
            "fieldhouse_http_requests",
            "HTTP requests answered, by method, route template and status",
            ["method", "route", "status"],
            registry=reg,
        )
        self.latency = Histogram(
            "fieldhouse_http_request_duration_seconds",
            "Time to answer a request (to its first byte for event streams)",
            ["method", "route"],
            buckets=LATENCY_BUCKETS,
            registry=reg,
        )
        self.mailbox_depth = Gauge(
            "fieldhouse_actor_mailbox_depth",
            "Messages waiting in the workspace actors' mailboxes",
            multiprocess_mode="livesum",
            registry=reg,
        )
        self.batch_size = Histogram(
            "fieldhouse_actor_batch_size",
            "Writes a workspace actor committed in one transaction",
            buckets=BATCH_BUCKETS,
            registry=reg,
        )
        self.commit_seconds = Histogram(
            "fieldhouse_actor_commit_seconds",
            "Time to commit a workspace actor's batch",
            buckets=COMMIT_BUCKETS,
            registry=reg,
        )
        self.vectors_waiting = Gauge(
            "fieldhouse_search_vectors_waiting",
            "Records whose current text waits for its vector (every workspace)",
            multiprocess_mode="livemax",
            registry=reg,
        )
        self.vectors_oldest_seconds = Gauge(
            "fieldhouse_search_vectors_oldest_seconds",
            "Seconds the oldest record waiting for its vector has waited",
            multiprocess_mode="livemax",
            registry=reg,
        )
        self.agent_runs = Counter(
            "fieldhouse_agent_runs",
            "Agent runs ended, by outcome (succeeded, failed, aborted)",
            ["outcome"],
            registry=reg,
        )
        # labelled children, remembered so the per-request cost is one dict look-up
        self._request_children: dict[tuple[str, str, str], Any] = {}
        self._latency_children: dict[tuple[str, str], Any] = {}
        self._samplers: list[Callable[[], None]] = []

    def observe_request(self, method: str, route: str, status: int, seconds: float) -> None:
        key = (method, route, str(status))
        counter = self._request_children.get(key)
        if counter is None:
            counter = self._request_children[key] = self.requests.labels(*key)
        counter.inc()
        lkey = (method, route)
        histogram = self._latency_children.get(lkey)
        if histogram is None:
            histogram = self._latency_children[lkey] = self.latency.labels(*lkey)
        histogram.observe(seconds)

    def observe_batch(self, size: int, commit_seconds: float) -> None:
        self.batch_size.observe(size)
        self.commit_seconds.observe(commit_seconds)
        self.sample()

    def agent_run_ended(self, run_id: str, status: str, ended: float) -> None:
        self.agent_runs.labels(status).inc()

    def add_sampler(self, sampler: Callable[[], None]) -> None:
        """A function that refreshes gauges; called after each batch and on each scrape."""
        self._samplers.append(sampler)

    def sample(self) -> None:
        for sampler in self._samplers:
            sampler()

    def render(self) -> tuple[bytes, str]:
        """The text exposition of every metric (of every worker process) and its type."""
        if self.multiprocess_dir is None:
            return generate_latest(self.registry), CONTENT_TYPE_LATEST
        merged = CollectorRegistry()
        prom_mp.MultiProcessCollector(merged, path=self.multiprocess_dir)  # type: ignore[no-untyped-call]
        return generate_latest(merged), CONTENT_TYPE_LATEST


def worker_exited(multiprocess_dir: str, pid: int) -> None:
    """Drop a dead worker's live gauges (its counters stay: they still count)."""
    prom_mp.mark_process_dead(pid, multiprocess_dir)  # type: ignore[no-untyped-call]
