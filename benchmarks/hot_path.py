"""The request path's own cost: GET /v1/me next to an empty hypercorn+trio app, under wrk.

    python -m benchmarks.hot_path [--duration 8] [--connections 16] [--workers 1,2]

For each worker count, starts ``fieldhouse serve --workers N`` (search off, so the figures are
the request path's and not the embedder's) and the raw ASGI app of benchmarks/baseline_app.py
under ``hypercorn -k trio -w N``, drives both with the same wrk load in the same run, and prints
req/s, latency and server CPU per request, and Fieldhouse's throughput as a ratio of the raw
app's. wrk must be on the PATH (Debian: apt-get install wrk).
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from benchmarks.harness import format_table
from benchmarks.servers import ServerProcess, free_port, spawn_server, start_server


@dataclass(frozen=True)
class WrkResult:
    rps: float
    p50_ms: float
    p99_ms: float
    requests: int
    non_2xx: int
    cpu_ms_per_request: float | None


def _ms(text: str) -> float:
    value, unit = re.fullmatch(r"([\d.]+)(us|ms|s)", text).groups()  # type: ignore[union-attr]
    return float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]


def wrk(
    url: str,
    *,
    connections: int,
    duration: float,
    server: ServerProcess,
    headers: Sequence[str],
    script: Path | None = None,
) -> WrkResult:
    """wrk against ``url`` (GET, or what the Lua ``script`` makes of each request)."""
    argv = ["wrk", "-t2", f"-c{connections}", f"-d{duration:.0f}s", "--latency"]
    if script is not None:
        argv += ["-s", str(script)]
    for header in headers:
        argv += ["-H", header]
    cpu_before = server.cpu_seconds()
    out = subprocess.run([*argv, url], capture_output=True, text=True, check=True).stdout
    cpu_after = server.cpu_seconds()
    requests = int(re.search(r"(\d+) requests in", out).group(1))  # type: ignore[union-attr]
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))  # type: ignore[union-attr]
    non_2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    p50 = re.search(r"^\s+50%\s+(\S+)", out, re.M).group(1)  # type: ignore[union-attr]
    p99 = re.search(r"^\s+99%\s+(\S+)", out, re.M).group(1)  # type: ignore[union-attr]
    cpu = None
    if cpu_before is not None and cpu_after is not None and requests:
        cpu = 1000 * (cpu_after - cpu_before) / requests
    return WrkResult(
        rps, _ms(p50), _ms(p99), requests, int(non_2xx.group(1)) if non_2xx else 0, cpu
    )


def measure(workers: int, args: argparse.Namespace, tmp: Path) -> list[dict[str, object]]:
    env = {"FIELDHOUSE_SEARCH": "off", "FIELDHOUSE_WORKERS": str(workers)}
    fh = start_server(tmp / f"fh-{workers}", extra_env=env)
    port = free_port()
    hypercorn = [sys.executable, "-m", "hypercorn", "-k", "trio", "-w", str(workers)]
    raw = spawn_server(
        [*hypercorn, "benchmarks.baseline_app:app", "--bind", f"127.0.0.1:{port}"],
        port=port,
        ready_path="/",
        log_path=tmp / f"raw-{workers}.log",
    )
    try:
        auth = [f"Authorization: Bearer {fh.api_key}"]
        results = {}
        for name, server, url, headers in (
            ("raw hypercorn+trio GET /", raw, raw.base_url + "/", []),
            ("fieldhouse GET /v1/me", fh, fh.base_url + "/v1/me", auth),
        ):
            wrk(url, connections=args.connections, duration=1, server=server, headers=headers)
            time.sleep(0.5)
            results[name] = wrk(
                url,
                connections=args.connections,
                duration=args.duration,
                server=server,
                headers=headers,
            )
    finally:
        fh.stop()
        raw.stop()
    base = results["raw hypercorn+trio GET /"].rps
    return [
        {
            "workers": workers,
            "endpoint": name,
            "req/s": round(r.rps),
            "p50 ms": r.p50_ms,
            "p99 ms": r.p99_ms,
            "CPU ms/req": None if r.cpu_ms_per_request is None else round(r.cpu_ms_per_request, 3),
            "non-2xx": r.non_2xx,
            "vs raw": f"{r.rps / base:.2f}x",
        }
        for name, r in results.items()
    ]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.hot_path", description=__doc__)
    parser.add_argument("--duration", type=float, default=8.0, help="seconds of load per row")
    parser.add_argument("--connections", type=int, default=16, help="wrk connections")
    parser.add_argument(
        "--workers",
        type=lambda s: [int(p) for p in s.split(",")],
        default=[1, 2],
        help="comma-separated worker counts (default 1,2)",
    )
    args = parser.parse_args(argv)
    if shutil.which("wrk") is None:
        print("wrk is not installed (apt-get install wrk)", file=sys.stderr)
        return 2
    rows: list[dict[str, object]] = []
    with tempfile.TemporaryDirectory(prefix="fh-hotpath-") as tmp:
        for workers in args.workers:
            rows += measure(workers, args, Path(tmp))
    print(format_table(rows))
    return 1 if any(row["non-2xx"] for row in rows) else 0


if __name__ == "__main__":
    raise SystemExit(main())
