"""Creates under wrk: req/s and server CPU per request, for ``--workers 1`` and ``2``.

    .venv/bin/python -m benchmarks.create_load [--duration 10] [--connections 16]
        [--workers 1 2] [--database-url postgresql://postgres@127.0.0.1:5432/test]

Starts ``fieldhouse serve`` with ``FIELDHOUSE_SEARCH=off`` (``--search``: on) on a fresh
workspace (SQLite in a temporary folder, or a fresh PostgreSQL database made through
``--database-url`` and dropped afterwards), drives ``POST /v1/modules/deals/records`` with wrk
and a Lua body script (the body of ``../shared/peers/load.py``), and prints one markdown row
per worker count with the machine's load average next to it. Needs ``wrk`` on PATH.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from benchmarks.records_load import fresh_postgres
from benchmarks.servers import READY_TIMEOUT, free_port, spawn_server, total_timeout

LUA = r"""
local stages = {"lead", "won", "lost"}
local counter = 0
local hdrs = {["Content-Type"] = "application/json", ["Authorization"] = "Bearer %(key)s"}
request = function()
  counter = counter + 1
  local n = string.format("w-%%d-%%d", counter, math.random(1, 1000000000))
  local body = string.format('{"displayName":"%%s","fields":{"name":"%%s","amount":'
      .. '{"amount":%%d.%%02d,"currency":"USD"},"stage":"%%s","close-date":"2026-%%02d-%%02d"}}',
      n, n, math.random(0, 9999), math.random(0, 99),
      stages[math.random(1, 3)], math.random(1, 12), math.random(1, 28))
  return wrk.format("POST", "/v1/modules/deals/records", hdrs, body)
end
"""


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    p.add_argument("--duration", type=int, default=10)
    p.add_argument("--connections", type=int, default=16)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    p.add_argument("--database-url", default=None)
    p.add_argument(
        "--search",
        action="store_true",
        help="serve with search on (its default): each create also writes its words and "
        "queues its vector, and the server's embedding process runs beside the workers",
    )
    return p.parse_args(argv)


def init(env: dict[str, str], data_dir: Path, database_url: str | None) -> dict[str, str]:
    cmd = [sys.executable, "-m", "fieldhouse", "init", "--data-dir", str(data_dir)]
    cmd += ["--name", "Bench", "--template", "deals"]
    if database_url:
        cmd += ["--database-url", database_url]
    done = subprocess.run(cmd, env=env, capture_output=True, timeout=READY_TIMEOUT, check=True)
    ids: dict[str, str] = json.loads(done.stdout.decode().strip().splitlines()[-1])
    return ids


def measure(args: argparse.Namespace, workers: int, database_url: str | None, work: Path) -> str:
    env = {**os.environ, "FIELDHOUSE_SEARCH": "on" if args.search else "off"}
    data_dir = work / f"w{workers}"
    key = init(env, data_dir, database_url)["apiKey"]
    port = free_port()
    argv = [sys.executable, "-m", "fieldhouse", "serve", "--data-dir", str(data_dir)]
    argv += ["--port", str(port), "--workers", str(workers), "--rate-limit", str(10**9)]
    if database_url:
        argv += ["--database-url", database_url]
    script = work / "create.lua"
    script.write_text(LUA % {"key": key})
    with spawn_server(
        argv, port=port, ready_path="/healthz", log_path=data_dir / "server.log", extra_env=env
    ) as server:
        load = os.getloadavg()[0]
        cpu0, t0 = server.cpu_seconds() or 0.0, time.monotonic()
        wrk = ["wrk", f"-t{args.threads}", f"-c{args.connections}", f"-d{args.duration}s"]
        out = subprocess.run(
            [*wrk, "--timeout", "10s", "-s", str(script), server.base_url],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        cpu = (server.cpu_seconds() or 0.0) - cpu0
        wall = time.monotonic() - t0
    requests = int(re.search(r"(\d+) requests in", out).group(1))  # type: ignore[union-attr]
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))  # type: ignore[union-attr]
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    backend = "PostgreSQL" if database_url else "SQLite"
    return (
        f"| {backend} | {workers} | {args.connections} | {rps:,.0f} | "
        f"{1000 * cpu / max(requests, 1):.2f} | {cpu / wall:.2f} | "
        f"{bad.group(1) if bad else 0} | {load:.2f} |"
    )


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    print(
        "| backend | workers | connections | creates/s | server CPU ms/create "
        "| server CPU util | non-2xx | load avg before |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    with total_timeout(120 + 60 * len(args.workers) * 2), tempfile.TemporaryDirectory() as tmp:
        for workers in args.workers:
            if args.database_url:
                with fresh_postgres(args.database_url) as url:
                    print(measure(args, workers, url, Path(tmp)), flush=True)
            else:
                print(measure(args, workers, None, Path(tmp)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
