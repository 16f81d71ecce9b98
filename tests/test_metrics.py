"""This process's metrics: requests by route template, actor batches, agent-run outcomes, and
gauges refreshed by samplers."""

from __future__ import annotations

from prometheus_client.parser import text_string_to_metric_families

from fieldhouse.metrics import Metrics


def samples(metrics: Metrics) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    text, content_type = metrics.render()
    assert content_type.startswith("text/plain")
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text.decode())
        for s in family.samples
    }


def test_requests_count_by_method_route_and_status() -> None:
    metrics = Metrics()
    metrics.observe_request("GET", "/v1/modules/<slug>/records", 200, 0.003)
    metrics.observe_request("GET", "/v1/modules/<slug>/records", 200, 0.2)
    metrics.observe_request("GET", "/v1/modules/<slug>/records", 404, 0.001)
    found = samples(metrics)
    route = ("route", "/v1/modules/<slug>/records")
    ok = (("method", "GET"), route, ("status", "200"))
    assert found[("fieldhouse_http_requests_total", ok)] == 2.0
    missing = (("method", "GET"), route, ("status", "404"))
    assert found[("fieldhouse_http_requests_total", missing)] == 1.0
    latency = (("method", "GET"), route)
    assert found[("fieldhouse_http_request_duration_seconds_count", latency)] == 3.0


def test_batches_and_agent_runs() -> None:
    metrics = Metrics()
    metrics.observe_batch(8, 0.002)
    metrics.agent_run_ended("run-1", "succeeded", 1.0)
    metrics.agent_run_ended("run-2", "aborted", 2.0)
    found = samples(metrics)
    assert found[("fieldhouse_actor_batch_size_sum", ())] == 8.0
    assert found[("fieldhouse_actor_commit_seconds_count", ())] == 1.0
    assert found[("fieldhouse_agent_runs_total", (("outcome", "succeeded"),))] == 1.0
    assert found[("fieldhouse_agent_runs_total", (("outcome", "aborted"),))] == 1.0


def test_samplers_refresh_gauges_after_each_batch() -> None:
    metrics = Metrics()
    depth = iter([5, 0])
    metrics.add_sampler(lambda: metrics.mailbox_depth.set(next(depth)))
    metrics.observe_batch(1, 0.001)
    assert samples(metrics)[("fieldhouse_actor_mailbox_depth", ())] == 5.0
    metrics.sample()
    assert samples(metrics)[("fieldhouse_actor_mailbox_depth", ())] == 0.0


def test_each_metrics_object_has_its_own_registry() -> None:
    one, two = Metrics(), Metrics()
    one.agent_run_ended("r", "failed", 0.0)
    assert ("fieldhouse_agent_runs_total", (("outcome", "failed"),)) not in samples(two)
