"""Real `fieldhouse serve` subprocesses for the reliability tests, and direct database reads.

A server is started on a free loopback port and polled until it answers, within a deadline;
nothing here sleeps to wait out a race.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import trio
import trio_asyncio

STARTUP_DEADLINE = 60.0
STOP_DEADLINE = 20.0


def cli(database_url: str, *args: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    """Run one admin command; its JSON answer."""
    done = subprocess.run(
        [sys.executable, "-m", "fieldhouse", *args, "--database-url", database_url],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


#: /proc/net/tcp's states of a connection the server has not closed: established, close-wait
_OPEN = ("01", "08")


@dataclass
class Served:
    process: trio.Process
    base: str
    log: Path

    async def output(self) -> str:
        return await trio.Path(self.log).read_text(errors="replace")

    def worker_pids(self) -> list[int]:
        """The supervisor's worker processes (none when it serves in-process)."""
        pids = []
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    stat = (entry / "stat").read_text()
                except OSError:
                    continue
                if int(stat[stat.rfind(")") + 2 :].split()[1]) == self.process.pid:
                    pids.append(int(entry.name))
        return pids

    def connections_of(self, pid: int) -> int:
        """How many TCP connections to the server's port process ``pid`` holds open, closed
        by the client or not (its socket inodes matched against the kernel's table)."""
        port = int(self.base.rsplit(":", 1)[1])
        established = set()
        for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
            fields = line.split()
            if int(fields[1].rsplit(":", 1)[1], 16) == port and fields[3] in _OPEN:
                established.add(fields[9])
        held = 0
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            try:
                target = os.readlink(fd)
            except OSError:
                continue  # closed meanwhile
            if target.startswith("socket:[") and target[8:-1] in established:
                held += 1
        return held

    def kill_all(self) -> None:
        """SIGKILL the whole server at once, the supervisor and every worker (a crash). Each
        child runs in a process group of its own (fieldhouse.supervisor), so it is named."""
        children = self.worker_pids()
        os.killpg(self.process.pid, signal.SIGKILL)
        for pid in children:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)

    async def wait(self, deadline: float = STOP_DEADLINE) -> int:
        """The exit code, waiting at most ``deadline`` seconds (then SIGKILL and fail)."""
        with trio.move_on_after(deadline):
            return await self.process.wait()
        os.killpg(self.process.pid, signal.SIGKILL)
        await self.process.wait()
        raise AssertionError(f"server did not exit within {deadline} s:\n{await self.output()}")


async def _wait_until_serving(served: Served) -> None:
    with trio.move_on_after(STARTUP_DEADLINE):
        async with httpx.AsyncClient(base_url=served.base) as client:
            while served.process.returncode is None:
                try:
                    await client.get("/openapi.json")
                    return
                except httpx.TransportError:
                    await trio.sleep(0.05)  # polling a starting subprocess's port
    raise AssertionError(f"server {served.base} did not start:\n{await served.output()}")


@asynccontextmanager
async def serve(
    database_url: str,
    data_dir: Path,
    *,
    log: Path,
    env: dict[str, str] | None = None,
    module: Sequence[str] = ("fieldhouse",),
    rate_limit: int = 1_000_000,
    cwd: Path | None = None,
) -> AsyncIterator[Served]:
    """A `fieldhouse serve` subprocess; on exit it is killed if still running. With ``cwd``
    it runs there as a user types it: the installed ``fieldhouse`` command (``python -m``
    would import a ``fieldhouse`` found in ``cwd``)."""
    port = free_port()
    program = [sys.executable, "-m", *module]
    if cwd is not None:
        program = [str(Path(sys.executable).with_name("fieldhouse"))]
    command = [*program, "serve", "--database-url", database_url]
    command += ["--data-dir", str(data_dir), "--port", str(port), "--rate-limit", str(rate_limit)]
    full_env = {
        **os.environ,
        "FIELDHOUSE_LOG_LEVEL": "WARNING",
        "FIELDHOUSE_SEARCH": "off",
        # a module other than fieldhouse patches the server in its own process: no workers
        **({} if module == ("fieldhouse",) else {"FIELDHOUSE_WORKERS": "1"}),
        **(env or {}),
    }
    with log.open("ab") as out:
        proc = await trio.lowlevel.open_process(
            command,
            stdout=out,
            stderr=subprocess.STDOUT,
            env=full_env,
            start_new_session=True,
            cwd=cwd,
        )
    served = Served(proc, f"http://127.0.0.1:{port}", log)
    try:
        await _wait_until_serving(served)
        yield served
    finally:
        with trio.CancelScope(shield=True):
            if proc.returncode is None:
                served.kill_all()
                await proc.wait()


def sqlite_url(data_dir: Path) -> str:
    return f"sqlite:///{(data_dir / 'fieldhouse.sqlite3').resolve()}"


async def fetch(database_url: str, sql: str, *args: Any) -> list[dict[str, Any]]:
    """Rows of one query, read straight from the database (SQLite or PostgreSQL).

    Write the query with ``$1`` placeholders; they become ``?`` on SQLite.
    """
    if database_url.startswith("sqlite:///"):
        path = database_url.removeprefix("sqlite:///")
        for i in range(len(args), 0, -1):
            sql = sql.replace(f"${i}", "?")

        def read() -> list[dict[str, Any]]:
            with sqlite3.connect(path) as conn:
                conn.row_factory = sqlite3.Row
                return [dict(r) for r in conn.execute(sql, args)]

        return await trio.to_thread.run_sync(read)
    async with trio_asyncio.open_loop():
        conn = await trio_asyncio.aio_as_trio(asyncpg.connect)(database_url)
        try:
            rows = await trio_asyncio.aio_as_trio(conn.fetch)(sql, *args)
        finally:
            await trio_asyncio.aio_as_trio(conn.close)()
    return [dict(r) for r in rows]
