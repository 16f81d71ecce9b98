"""HTTP load on Fieldhouse's read endpoints, next to an empty hypercorn+trio app.

    python -m benchmarks.http_load [--duration 10] [--concurrency 1,32]

Starts ``fieldhouse serve`` on a temporary data dir, measures GET /v1/me and GET /v1/modules at
each concurrency, then the baseline app (benchmarks/baseline_app.py) at the same concurrencies,
and prints a markdown table with each Fieldhouse row's throughput as a ratio of the baseline's.
Exits 1 if any request failed (non-2xx or transport error).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import httpx

from benchmarks.harness import (
    LoadResult,
    ServerProcess,
    format_table,
    free_port,
    run_load,
    running_server,
    spawn_server,
    total_timeout,
)
from benchmarks.servers import machine_busy_seconds

ENDPOINTS = ("/v1/me", "/v1/modules")
#: slack per load run (cut-off of in-flight requests) and for starting and stopping servers
RUN_SLACK = 15.0
SETUP_SLACK = 90.0


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.http_load", description=__doc__)
    parser.add_argument("--duration", type=float, default=10.0, help="seconds measured per row")
    parser.add_argument("--warmup", type=float, default=1.0, help="seconds before measuring")
    parser.add_argument(
        "--concurrency",
        type=lambda s: [int(p) for p in s.split(",") if p.strip()],
        default=[1, 32],
        help="comma-separated connection counts (default 1,32)",
    )
    parser.add_argument(
        "--shared-client",
        action="store_true",
        help="one httpx client (pool of N connections) for all workers instead of one each; "
        "its pool costs the generator CPU per request that grows with N",
    )
    return parser.parse_args(argv)


def start_baseline(data_dir: Path) -> ServerProcess:
    port = free_port()
    argv = [sys.executable, "-m", "hypercorn", "-k", "trio", "benchmarks.baseline_app:app"]
    argv += ["--bind", f"127.0.0.1:{port}"]
    return spawn_server(argv, port=port, ready_path="/", log_path=data_dir / "baseline.log")


def errors_cell(result: LoadResult) -> str:
    if not result.errors:
        return "0"
    failed = {k: v for k, v in result.statuses.items() if not k.startswith("2")}
    detail = ", ".join(f"{k}: {v}" for k, v in sorted(failed.items()))
    return f"{result.errors} ({detail})"


@dataclass
class Measured:
    result: LoadResult
    #: the server's CPU time per wall second over warm-up and measurement (1.0 = one core)
    server_cpu: float | None
    #: the same for every other process on the machine: noise from outside the benchmark
    other_cpu: float | None


def row(name: str, concurrency: int, run: Measured, ratio: str) -> dict[str, object]:
    result = run.result
    server_cpu = "n/a" if run.server_cpu is None else f"{run.server_cpu * 100:.0f}%"
    other_cpu = "n/a" if run.other_cpu is None else f"{max(0.0, run.other_cpu) * 100:.0f}%"
    return {
        "endpoint": name,
        "concurrency": concurrency,
        "requests": result.requests,
        "req/s": round(result.rps),
        "p50 ms": f"{result.p50_ms:.2f}",
        "p99 ms": f"{result.p99_ms:.2f}",
        "errors": errors_cell(result),
        "vs baseline": ratio,
        "server CPU": server_cpu,
        "client CPU": f"{result.client_cpu * 100:.0f}%",
        "other CPU": other_cpu,
    }


def check_endpoints(server: ServerProcess) -> None:
    """One request per endpoint first, so a broken setup fails fast and readably."""
    headers = {"Authorization": f"Bearer {server.api_key}"}
    with httpx.Client(base_url=server.base_url, headers=headers, timeout=10.0) as client:
        for path in ENDPOINTS:
            response = client.get(path)
            if not response.is_success:
                raise SystemExit(f"GET {path} -> {response.status_code}: {response.text[:300]}")


def measure(args: argparse.Namespace, work: Path) -> tuple[list[dict[str, object]], bool]:
    levels: list[int] = args.concurrency
    fieldhouse: dict[tuple[str, int], Measured] = {}
    baseline: dict[int, Measured] = {}

    def load(server: ServerProcess, path: str, concurrency: int) -> Measured:
        print(f"  {path} x{concurrency} ...", file=sys.stderr, flush=True)
        headers = {"Authorization": f"Bearer {server.api_key}"} if server.api_key else {}
        cpu0, own0, all0 = server.cpu_seconds(), time.process_time(), machine_busy_seconds()
        wall0 = time.perf_counter()
        result = run_load(
            server.base_url + path,
            concurrency=concurrency,
            duration=args.duration,
            headers=headers,
            warmup=args.warmup,
            shared_pool=args.shared_client,
        )
        cpu1, own1, all1 = server.cpu_seconds(), time.process_time(), machine_busy_seconds()
        wall = time.perf_counter() - wall0
        if cpu0 is None or cpu1 is None:
            return Measured(result, None, None)
        server_cpu = (cpu1 - cpu0) / wall
        if all0 is None or all1 is None:
            return Measured(result, server_cpu, None)
        other = (all1 - all0 - (cpu1 - cpu0) - (own1 - own0)) / wall
        return Measured(result, server_cpu, other)

    print("fieldhouse serve:", file=sys.stderr, flush=True)
    with running_server(work / "fieldhouse") as server:
        check_endpoints(server)
        for path in ENDPOINTS:
            for level in levels:
                fieldhouse[path, level] = load(server, path, level)
    print("baseline (hypercorn -k trio, raw ASGI):", file=sys.stderr, flush=True)
    with start_baseline(work) as base:
        for level in levels:
            baseline[level] = load(base, "/", level)

    rows: list[dict[str, object]] = []
    for (path, level), run in fieldhouse.items():
        base_rps = baseline[level].result.rps
        ratio = f"{run.result.rps / base_rps:.2f}x" if base_rps else "n/a"
        rows.append(row(f"GET {path}", level, run, ratio))
    rows.extend(row("baseline GET /", level, baseline[level], "1.00x") for level in levels)
    failed = any(r.result.errors for r in [*fieldhouse.values(), *baseline.values()])
    return rows, failed


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    runs = (len(ENDPOINTS) + 1) * len(args.concurrency)
    guard = runs * (args.warmup + args.duration + RUN_SLACK) + SETUP_SLACK
    started = time.monotonic()
    with total_timeout(guard), tempfile.TemporaryDirectory(prefix="fh-bench-") as tmp:
        rows, failed = measure(args, Path(tmp))
    print(format_table(rows))
    print()
    print(
        f"{args.duration:g} s per row after {args.warmup:g} s warm-up; closed loop, one keep-alive "
        f"connection per concurrent client (httpx on trio, in the benchmark process, "
        f"{'one shared client' if args.shared_client else 'one client per connection'}); "
        f"vs baseline = req/s over the empty app's at the same concurrency; server/client CPU = "
        f"CPU time per wall second of the server processes / of the load generator (100% = one "
        f"core of {os.cpu_count()}); other CPU = the rest of the machine in the same span (other "
        f"work skews the row when it is high). Total {time.monotonic() - started:.0f} s."
    )
    if failed:
        print("FAILED: some requests did not succeed", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
