"""Instructions per request, counted by valgrind's callgrind: a figure a shared machine keeps.

    python -m benchmarks.instructions [--requests 200] [--records 300]
        [--endpoints me,list,create] [--search]

On the 2-core machines this is measured on, req/s and CPU per request of the same code move by
20-60% from one run to the next (a list at 1,368 and 926 req/s within 15 minutes; PocketBase's
own list from 1,422 to 2,016 req/s in one afternoon), so a change worth 5-15% cannot be seen
by timing it. callgrind counts the instructions the server process executes instead, the same
within 1% run to run whatever else the machine does (without ``--search``: with it, the
indexer's passes take more or fewer records each as the timing falls, and a create's figure
moved between 4.1 and 4.7 million for the same code).

The server (``fieldhouse serve --workers 1``, search off unless ``--search``, which indexes by
keywords only) runs under valgrind, 50-100x slower than it would. A client seeds the deals
module with ``--records`` records, then for each endpoint sends 60 requests to warm it,
zeroes the counters (``callgrind_control -z``), sends ``--requests`` requests one after the
other on one keep-alive connection and dumps the counters: the dump over the requests is the
figure. The background tasks (the scheduler's polls, the indexer) count too, as they would
under load. Instructions are not time (a cache miss costs more than an add): the figure
compares two versions of the code on one path; it does not predict req/s. Needs valgrind
(Debian: valgrind); about 2 minutes an endpoint.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import httpx

from benchmarks.harness import format_table
from benchmarks.servers import REPO_ROOT, ServerProcess, free_port, init_workspace

READY_SECONDS = 300.0  # a server under valgrind takes a minute or more to start
WARM = 60
ENDPOINTS = ("me", "list", "create")
LIST_URL = "/v1/modules/deals/records?filter%5Bstage%5D=lead&pageSize=25&page=1"


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    p.add_argument("--requests", type=int, default=200)
    p.add_argument("--records", type=int, default=300)
    p.add_argument("--endpoints", default=",".join(ENDPOINTS))
    p.add_argument("--search", action="store_true", help="keyword search on (no embedder)")
    return p.parse_args(argv)


def _deal(rng: random.Random, n: int) -> dict[str, object]:
    name = f"deal-{n}"
    stage = rng.choice(["lead", "won", "lost"])
    amount = {"amount": 12.5, "currency": "USD"}
    return {"displayName": name, "fields": {"name": name, "stage": stage, "amount": amount}}


def _request(client: httpx.Client, endpoint: str, rng: random.Random, n: int) -> int:
    if endpoint == "create":
        return client.post("/v1/modules/deals/records", json=_deal(rng, n)).status_code
    return client.get("/v1/me" if endpoint == "me" else LIST_URL).status_code


def _counted(out: Path, before: set[Path]) -> int:
    """The instruction total of the dump that appeared since ``before``."""
    for _ in range(100):
        new = sorted(set(out.parent.glob(out.name + ".*")) - before)
        if new:
            for line in new[-1].read_text().splitlines():
                if line.startswith("summary:"):
                    return int(line.split()[1])
        time.sleep(0.1)
    raise RuntimeError(f"no callgrind dump appeared beside {out}")


def measure(args: argparse.Namespace, data: Path) -> list[tuple[str, int]]:
    env = {**os.environ, "FIELDHOUSE_SEARCH": "on" if args.search else "off"}
    env["FIELDHOUSE_EMBEDDER"] = "none"
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")]))
    cli = [sys.executable, "-m", "fieldhouse"]
    key = init_workspace(data, env)["apiKey"]
    port = free_port()
    out = data / "callgrind.out"
    serve = [*cli, "serve", "--data-dir", str(data), "--port", str(port), "--workers", "1"]
    argv = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *serve]
    argv += ["--rate-limit", str(10**9)]
    with (data / "server.log").open("wb") as log:
        server = subprocess.Popen(argv, env=env, cwd=REPO_ROOT, stdout=log, stderr=log)
    base = f"http://127.0.0.1:{port}"
    figures: list[tuple[str, int]] = []
    try:
        headers = {"Authorization": f"Bearer {key}"}
        with httpx.Client(base_url=base, headers=headers, timeout=120) as client:
            deadline = time.monotonic() + READY_SECONDS
            while True:
                try:
                    if client.get("/v1/me").status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                if time.monotonic() > deadline or server.poll() is not None:
                    raise RuntimeError(f"server not ready; see {data / 'server.log'}")
                time.sleep(1)
            rng = random.Random(7)
            for n in range(args.records):
                assert _request(client, "create", rng, n) == 201
            for endpoint in args.endpoints.split(","):
                for n in range(WARM):
                    _request(client, endpoint, rng, 10**6 + n)
                subprocess.run(
                    ["callgrind_control", "-z", str(server.pid)], check=True, capture_output=True
                )
                for n in range(args.requests):
                    status = _request(client, endpoint, rng, 2 * 10**6 + n)
                    assert status in (200, 201), status
                before = set(data.glob(out.name + ".*"))
                subprocess.run(
                    ["callgrind_control", "-d", endpoint, str(server.pid)],
                    check=True,
                    capture_output=True,
                )
                figures.append((endpoint, _counted(out, before) // args.requests))
    finally:
        ServerProcess(server, base, data / "server.log").stop()
    return figures


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="fh-instructions-") as tmp:
        figures = measure(args, Path(tmp))
    search = "keyword search on" if args.search else "search off"
    print(f"Instructions per request (callgrind; 1 worker, SQLite, {search}; deals module of")
    print(f"{args.records} records; {args.requests} requests an endpoint, one after another)\n")
    print(format_table([{"endpoint": n, "instructions per request": each} for n, each in figures]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
