"""Overload: 256 concurrent clients writing to one workspace with a small actor mailbox.

    python -m benchmarks.overload [--clients 256] [--duration 10] [--mailbox 16] [--timeout 1]

Prints a markdown table: answers by status (201 or 503 with Retry-After; never a 500),
throughput, latency, and the server's RSS before, at peak, and after. Exits 1 on any 5xx other
than 503. Bounded: about duration + 30 s.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from benchmarks.harness import format_table, run_load
from benchmarks.servers import running_server, total_timeout


def _rss_mib(pid: int, field: str = "VmRSS") -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return round(int(line.split()[1]) / 1024, 1)
    return 0.0


def _body(seq: int) -> bytes:
    title = f"Task {seq}"
    return json.dumps({"displayName": title, "fields": {"title": title, "status": "todo"}}).encode()


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.overload", description=__doc__)
    parser.add_argument("--clients", type=int, default=256)
    parser.add_argument("--duration", type=float, default=10.0)
    parser.add_argument("--mailbox", type=int, default=16)
    parser.add_argument("--timeout", type=float, default=1.0, help="actor send timeout (s)")
    args = parser.parse_args()
    env = {
        "FIELDHOUSE_SEARCH": "off",
        "FIELDHOUSE_LOG_LEVEL": "WARNING",
        "FIELDHOUSE_ACTOR_MAILBOX_SIZE": str(args.mailbox),
        "FIELDHOUSE_ACTOR_SEND_TIMEOUT": str(args.timeout),
    }
    with (
        total_timeout(args.duration + 120),
        tempfile.TemporaryDirectory() as tmp,
        running_server(Path(tmp), extra_env=env) as server,
    ):
        pid = server.process.pid
        before = _rss_mib(pid)
        headers = {
            "Authorization": f"Bearer {server.api_key}",
            "Content-Type": "application/json",
        }
        result = run_load(
            f"{server.base_url}/v1/modules/tasks/records",
            concurrency=args.clients,
            duration=args.duration,
            headers=headers,
            method="POST",
            body_factory=_body,
        )
        after, peak = _rss_mib(pid), _rss_mib(pid, "VmHWM")
    row = {
        "clients": args.clients,
        "mailbox": args.mailbox,
        "requests": result.requests,
        "req/s": round(result.rps, 1),
        "p50 ms": round(result.p50_ms, 1),
        "p99 ms": round(result.p99_ms, 1),
        "statuses": " ".join(f"{k}:{v}" for k, v in sorted(result.statuses.items())),
        "RSS before MiB": before,
        "RSS peak MiB": peak,
        "RSS after MiB": after,
    }
    print(format_table([row]))
    server_errors = sum(
        n for k, n in result.statuses.items() if k.isdigit() and int(k) >= 500 and k != "503"
    )
    return 1 if server_errors else 0


if __name__ == "__main__":
    raise SystemExit(main())
