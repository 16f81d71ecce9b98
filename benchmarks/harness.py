"""Reusable pieces for load benchmarks: servers in subprocesses, a closed-loop load generator.

The load generator runs in the calling process (trio + httpx) while every server runs in its
own subprocess, so on a small machine the two compete for the same cores: read the results
together with ``LoadResult.client_cpu`` (the generator's share of one core).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType

import httpx
import trio

REPO_ROOT = Path(__file__).resolve().parent.parent
READY_TIMEOUT = 30.0
STOP_TIMEOUT = 10.0
#: a request factory gets the shared client and the worker's sequence number
RequestFactory = Callable[[httpx.AsyncClient, int], httpx.Request]
BodyFactory = Callable[[int], bytes]

_live: set[subprocess.Popen[bytes]] = set()


def free_port() -> int:
    """A TCP port that was free a moment ago on 127.0.0.1."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@dataclass
class ServerProcess:
    """A server running in a subprocess; ``stop()`` is idempotent."""

    process: subprocess.Popen[bytes]
    base_url: str
    log_path: Path
    api_key: str = ""
    account_id: str = ""
    user_id: str = ""
    api_key_id: str = ""

    def stop(self) -> int | None:
        """SIGTERM, wait up to 10 s, then SIGKILL. Returns the exit code."""
        proc = self.process
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=STOP_TIMEOUT)
        _live.discard(proc)
        return proc.returncode

    def log_tail(self, lines: int = 20) -> str:
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])

    def __enter__(self) -> ServerProcess:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


def _wait_ready(server: ServerProcess, path: str, deadline: float) -> None:
    url = server.base_url + path
    with httpx.Client(timeout=2.0) as client:
        while True:
            if server.process.poll() is not None:
                raise RuntimeError(
                    f"server exited with {server.process.returncode} before answering {url}:\n"
                    + server.log_tail()
                )
            try:
                if client.get(url).status_code < 500:
                    return
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                server.stop()
                raise TimeoutError(f"{url} did not answer within {READY_TIMEOUT:.0f} s")
            time.sleep(0.05)


def spawn_server(
    argv: Sequence[str],
    *,
    port: int,
    ready_path: str,
    log_path: Path,
    extra_env: Mapping[str, str] | None = None,
) -> ServerProcess:
    """Start ``argv`` (which must serve on 127.0.0.1:port) and wait until ready_path answers."""
    env = {**os.environ, **(extra_env or {})}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")]))
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with log_path.open("wb") as log:
        proc = subprocess.Popen(
            list(argv),
            cwd=REPO_ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    _live.add(proc)
    server = ServerProcess(proc, f"http://127.0.0.1:{port}", log_path)
    _wait_ready(server, ready_path, time.monotonic() + READY_TIMEOUT)
    return server


def start_server(
    data_dir: Path,
    *,
    port: int = 0,
    rate_limit: int = 10**9,
    extra_env: Mapping[str, str] | None = None,
) -> ServerProcess:
    """``fieldhouse init`` a workspace in data_dir, then ``fieldhouse serve`` it."""
    env = {**os.environ, **(extra_env or {})}
    cli = [sys.executable, "-m", "fieldhouse"]
    done = subprocess.run(
        [*cli, "init", "--data-dir", str(data_dir), "--name", "Bench"],
        env=env,
        capture_output=True,
        timeout=READY_TIMEOUT,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"fieldhouse init failed ({done.returncode}): {done.stderr.decode()}")
    lines = [line for line in done.stdout.decode().splitlines() if line.strip()]
    ids = json.loads(lines[-1])
    port = port or free_port()
    argv = [*cli, "serve", "--data-dir", str(data_dir), "--port", str(port)]
    argv += ["--rate-limit", str(rate_limit)]
    server = spawn_server(
        argv,
        port=port,
        ready_path="/openapi.json",
        log_path=data_dir / "server.log",
        extra_env=extra_env,
    )
    server.api_key = ids["apiKey"]
    server.account_id = ids["accountId"]
    server.user_id = ids["userId"]
    server.api_key_id = ids["apiKeyId"]
    return server


@contextmanager
def running_server(
    data_dir: Path,
    *,
    port: int = 0,
    rate_limit: int = 10**9,
    extra_env: Mapping[str, str] | None = None,
) -> Iterator[ServerProcess]:
    """``start_server`` as a context manager."""
    server = start_server(data_dir, port=port, rate_limit=rate_limit, extra_env=extra_env)
    try:
        yield server
    finally:
        server.stop()


@contextmanager
def total_timeout(seconds: float) -> Iterator[None]:
    """A watchdog: past ``seconds``, kill every server this module started and exit 3."""

    def expire() -> None:
        print(f"benchmark: total timeout of {seconds:.0f} s reached, aborting", file=sys.stderr)
        for proc in list(_live):
            proc.kill()
        os._exit(3)

    timer = threading.Timer(seconds, expire)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()


@dataclass
class LoadResult:
    requests: int
    errors: int
    statuses: dict[str, int]
    elapsed: float
    latencies_ms: list[float] = field(repr=False)
    #: CPU seconds of the generator process per wall second (1.0 = one core busy)
    client_cpu: float = 0.0

    @property
    def rps(self) -> float:
        return self.requests / self.elapsed if self.elapsed > 0 else 0.0

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
) -> LoadResult:
    """Closed loop: ``concurrency`` workers send requests back to back on keep-alive connections.

    Requests started during ``warmup`` are not recorded; workers stop starting requests after
    ``warmup + duration`` and the whole run is cut ``request_timeout`` seconds after that.
    """
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    latencies: list[float] = []
    statuses: Counter[str] = Counter()
    errors = 0
    last_done = 0.0

    def build(client: httpx.AsyncClient, seq: int) -> httpx.Request:
        if not isinstance(target, str):
            return target(client, seq)
        body = body_factory(seq) if body_factory is not None else None
        return client.build_request(method, target, content=body)

    async def worker(client: httpx.AsyncClient, index: int) -> None:
        nonlocal errors, last_done
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
            last_done = max(last_done, done)

    timeout = httpx.Timeout(request_timeout)
    async with httpx.AsyncClient(headers=headers, limits=limits, timeout=timeout) as client:
        measure_from = time.perf_counter() + warmup
        stop_at = measure_from + duration
        with trio.move_on_after(warmup + duration + request_timeout):
            async with trio.open_nursery() as nursery:
                for index in range(concurrency):
                    nursery.start_soon(worker, client, index)
                await trio.sleep(max(0.0, measure_from - time.perf_counter()))
                cpu0, wall0 = time.process_time(), time.perf_counter()
        cpu = (time.process_time() - cpu0) / max(1e-9, time.perf_counter() - wall0)
    elapsed = max(last_done - measure_from, 1e-9) if latencies else duration
    return LoadResult(len(latencies), errors, dict(statuses), elapsed, latencies, cpu)


def run_load(
    target: str | RequestFactory,
    *,
    concurrency: int,
    duration: float,
    headers: Mapping[str, str] | None = None,
    method: str = "GET",
    body_factory: BodyFactory | None = None,
    warmup: float = 1.0,
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
        )

    return trio.run(main)


def _cell(value: object) -> str:
    if isinstance(value, float):
        return f"{value:,.1f}"
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
