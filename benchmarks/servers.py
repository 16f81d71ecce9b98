"""Servers under benchmark, each in its own subprocess, and a watchdog for whole runs."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

import httpx

REPO_ROOT = Path(__file__).resolve().parent.parent
READY_TIMEOUT = 30.0
STOP_TIMEOUT = 10.0
#: every server started and not yet stopped, for the watchdog to kill
_live: set[subprocess.Popen[bytes]] = set()


def free_port() -> int:
    """A TCP port that was free a moment ago on 127.0.0.1."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def process_tree_cpu(pid: int) -> float | None:
    """User + system CPU seconds of ``pid`` and its live descendants; None without /proc."""
    ticks = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    total, pending, seen = 0, [pid], set()
    while pending:
        current = pending.pop()
        if current in seen:
            continue
        seen.add(current)
        proc = Path("/proc") / str(current)
        try:
            fields = (proc / "stat").read_text().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime
            for task in (proc / "task").iterdir():
                pending += [int(c) for c in (task / "children").read_text().split()]
        except (OSError, ValueError, IndexError):
            if current == pid:
                return None
    return total / ticks


def machine_busy_seconds() -> float | None:
    """Non-idle CPU seconds of the whole machine since boot, summed over cores (Linux only)."""
    try:
        fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    except (OSError, ValueError):
        return None
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    busy = sum(fields[:8]) - idle  # user nice system idle iowait irq softirq steal
    return busy / (os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100)


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

    def cpu_seconds(self) -> float | None:
        """CPU time used so far by the server and its child processes (Linux /proc only)."""
        return process_tree_cpu(self.process.pid)

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


def init_workspace(
    data_dir: Path, env: Mapping[str, str], name: str = "Bench", *options: str
) -> dict[str, str]:
    """``fieldhouse init`` a workspace in data_dir; what it printed (apiKey, accountId, ...)."""
    cli = [sys.executable, "-m", "fieldhouse"]
    done = subprocess.run(
        [*cli, "init", "--data-dir", str(data_dir), "--name", name, *options],
        env=env,
        cwd=REPO_ROOT,
        capture_output=True,
        timeout=READY_TIMEOUT,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"fieldhouse init failed ({done.returncode}): {done.stderr.decode()}")
    lines = [line for line in done.stdout.decode().splitlines() if line.strip()]
    if not lines:
        raise RuntimeError(f"fieldhouse init printed nothing: {done.stderr.decode()}")
    ids: dict[str, str] = json.loads(lines[-1])
    return ids


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
    ids = init_workspace(data_dir, env)
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
