"""A real `fieldhouse serve --workers 2` on SQLite, met the way an operator meets it: /metrics
adds up both worker processes, stderr carries one JSON line per request, and a second server
(or a restore) on the same data directory refuses to start."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import trio

STARTUP_DEADLINE = 60.0
ME_TOTAL = 'fieldhouse_http_requests_total{method="GET",route="/v1/me",status="200"}'


@dataclass(frozen=True)
class Served:
    base: str
    data_dir: Path
    log: Path
    key: str
    key_id: str

    def log_lines(self) -> list[dict[str, Any]]:
        lines = self.log.read_text().splitlines()
        return [json.loads(line) for line in lines if line.startswith("{")]


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "fieldhouse", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@asynccontextmanager
async def serving(tmp: Path, workers: int = 2) -> AsyncIterator[Served]:
    data = tmp / "data"
    made = cli("init", "--data-dir", str(data), "--name", "Ops")
    assert made.returncode == 0, made.stderr
    key = json.loads(made.stdout)
    port = _free_port()
    log = tmp / "server.log"
    env = {**os.environ, "FIELDHOUSE_LOG_FORMAT": "json", "FIELDHOUSE_SEARCH": "off"}
    command = [sys.executable, "-m", "fieldhouse", "serve", "--data-dir", str(data)]
    command += ["--port", str(port), "--workers", str(workers)]
    with log.open("wb") as out:
        proc = await trio.lowlevel.open_process(
            command, stdout=out, stderr=subprocess.STDOUT, env=env
        )
    base = f"http://127.0.0.1:{port}"
    try:
        await _wait_ready(base, proc, log)
        yield Served(base, data, log, key["apiKey"], key["apiKeyId"])
    finally:
        with trio.CancelScope(shield=True):
            if proc.returncode is None:
                proc.terminate()
            with trio.move_on_after(20) as scope:
                await proc.wait()
            if scope.cancelled_caught:
                proc.kill()
                await proc.wait()


async def _wait_ready(base: str, proc: trio.Process, log: Path) -> None:
    """Poll /readyz of the starting server within a deadline."""
    with trio.move_on_after(STARTUP_DEADLINE):
        async with httpx.AsyncClient(base_url=base) as client:
            while proc.returncode is None:
                try:
                    if (await client.get("/readyz")).status_code == 200:
                        return
                except httpx.TransportError:
                    pass
                await trio.sleep(0.1)
    output = await trio.Path(log).read_text()
    raise AssertionError(f"server {base} did not start:\n{output}")


async def _get_fresh_connection(base: str, path: str, **kw: Any) -> httpx.Response:
    # a new connection each time, so the kernel may hand it to either worker
    async with httpx.AsyncClient(base_url=base) as client:
        return await client.get(path, **kw)


def _sample(text: str, name: str) -> float:
    for line in text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[-1])
    raise AssertionError(f"{name} not in the scrape:\n{text}")


async def test_two_workers_one_scrape_logs_and_lock(tmp_path: Path) -> None:
    async with serving(tmp_path) as server:
        headers = {"Authorization": f"Bearer {server.key}"}
        sent = 0
        # until both workers have answered some (the kernel picks; bounded, not timed)
        while sent < 400:
            for _ in range(10):
                answer = await _get_fresh_connection(server.base, "/v1/me", headers=headers)
                assert answer.status_code == 200
                sent += 1
            workers = {
                line.get("worker") for line in server.log_lines() if line.get("route") == "/v1/me"
            }
            if workers == {0, 1}:
                break
        assert workers == {0, 1}, "the kernel never handed a connection to the second worker"
        for _ in range(6):
            scrape = await _get_fresh_connection(server.base, "/metrics")
            assert scrape.status_code == 200
            assert _sample(scrape.text, ME_TOTAL) == sent

        traced = await _get_fresh_connection(
            server.base, "/v1/me", headers={**headers, "X-Request-Id": "ops-trace-1"}
        )
        assert traced.headers["X-Request-Id"] == "ops-trace-1"
        lines = server.log_lines()
        mine = [line for line in lines if line.get("requestId") == "ops-trace-1"]
        assert len(mine) == 1
        line = mine[0]
        assert line["logger"] == "fieldhouse.access"
        assert line["method"] == "GET"
        assert line["route"] == "/v1/me"
        assert line["status"] == 200
        assert line["keyId"] == server.key_id
        assert line["workspaceId"]
        assert line["durationMs"] > 0
        assert server.key not in server.log.read_text()

        # a second server on the same data directory refuses, and so does a restore
        second = cli("serve", "--data-dir", str(server.data_dir), "--port", str(_free_port()))
        assert second.returncode == 2
        assert "Another fieldhouse server is using" in second.stderr
        backup = cli("backup", str(tmp_path / "backups"), "--data-dir", str(server.data_dir))
        assert backup.returncode == 0, backup.stderr
        copy = json.loads(backup.stdout)["backup"]
        restore = cli("restore", copy, "--data-dir", str(server.data_dir))
        assert restore.returncode == 2
        assert "Another fieldhouse server is using" in restore.stderr
