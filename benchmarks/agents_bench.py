"""Agent chat over a real socket: time to `open` and to the first token, runs/s at N
concurrent streams (offline provider), and client-disconnect-to-run-cancellation latency.

Server and load generator share one process (the cancellation time is read from the run's
end hook, which needs the same trio clock), so on a small machine they compete for one core.

    python -m benchmarks.agents_bench [--database-url URL] [--seconds 10] [--concurrency 16]

With ``--database-url`` (a PostgreSQL server, as a URL of a database to connect to) the run
uses a fresh database ``fh_bench_<random>`` created on that server and dropped afterwards.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Sequence
from contextlib import nullcontext
from functools import partial
from pathlib import Path

import httpx
import trio

from benchmarks.records_load import fresh_postgres
from fieldhouse.actors.bootstrap import init_workspace
from fieldhouse.agents.contract import ToolSpec
from fieldhouse.agents.providers import OfflineProvider
from fieldhouse.agents.providers.base import Provider, Step, TextSink, Turn
from fieldhouse.agents.run import AgentRuntime
from fieldhouse.config import Settings
from fieldhouse.http.wire.server import serve_app
from fieldhouse.runtime import Runtime, open_runtime

URL = "/v1/agents/messages?stream=true"
MESSAGES = (
    "create a contact named Ada Lovelace{i} with email ada{i}@example.com",
    "remind me to call Bob{i} tomorrow at 9",
    "find deals over 10000 in stage won",
    "draft an email to bob{i}@example.com about Pricing saying Hello",
    "what can you do?",
)


def pct(values: Sequence[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def summary(name: str, values_ms: Sequence[float]) -> str:
    return (
        f"{name:<28} n={len(values_ms):<5} p50={pct(values_ms, 50):7.2f} ms  "
        f"p99={pct(values_ms, 99):7.2f} ms  max={max(values_ms):7.2f} ms"
    )


def install(rt: Runtime, provider: Provider) -> AgentRuntime:
    agents = rt.services.agents
    agents.provider = provider
    return agents


async def one_stream(client: httpx.AsyncClient, key: str, message: str) -> tuple[float, float]:
    """(ms to the open event, ms to the first token) of one full stream."""
    began = time.perf_counter()
    opened = first = 0.0
    headers = {"Authorization": f"Bearer {key}"}
    async with client.stream("POST", URL, json={"message": message}, headers=headers) as res:
        async for line in res.aiter_lines():
            if not opened and line == "event: open":
                opened = time.perf_counter() - began
            elif not first and line == "event: token":
                first = time.perf_counter() - began
    return opened * 1000, first * 1000


async def latency(client: httpx.AsyncClient, key: str, runs: int) -> None:
    opens, firsts = [], []
    for i in range(runs):
        opened, first = await one_stream(client, key, MESSAGES[i % len(MESSAGES)].format(i=i))
        opens.append(opened)
        firsts.append(first)
    print(summary("time to open (sequential)", opens))
    print(summary("time to first token", firsts))


async def throughput(client: httpx.AsyncClient, key: str, seconds: float, workers: int) -> None:
    done = 0
    firsts: list[float] = []

    async def worker(w: int) -> None:
        nonlocal done
        i = 0
        while True:
            message = MESSAGES[i % len(MESSAGES)].format(i=f"{w}x{i}")
            _, first = await one_stream(client, key, message)
            firsts.append(first)
            done += 1
            i += 1

    began = time.perf_counter()
    with trio.move_on_after(seconds):
        async with trio.open_nursery() as nursery:
            for w in range(workers):
                nursery.start_soon(worker, w)
    elapsed = time.perf_counter() - began
    print(
        f"runs/s at {workers} concurrent streams: {done / elapsed:.1f} ({done} in {elapsed:.1f} s)"
    )
    print(summary(f"first token at {workers} streams", firsts))


class Blocked:
    name = "blocked"

    async def step(self, turns: Sequence[Turn], tools: Sequence[ToolSpec], emit: TextSink) -> Step:
        await emit("thinking ")
        await trio.sleep_forever()
        raise AssertionError("unreachable")


async def disconnects(rt: Runtime, port: int, key: str, rounds: int) -> None:
    agents = install(rt, Blocked())
    ended: list[float] = []
    event = trio.Event()

    def on_end(run_id: str, status: str, at: float) -> None:
        ended.append(at)
        event.set()

    agents.on_end.append(on_end)
    body = b'{"message": "wait"}'
    request = (
        b"POST "
        + URL.encode()
        + b" HTTP/1.1\r\nHost: bench\r\nAuthorization: Bearer "
        + key.encode()
        + b"\r\nContent-Type: application/json\r\nContent-Length: "
        + str(len(body)).encode()
        + b"\r\n\r\n"
        + body
    )
    latencies = []
    for _ in range(rounds):
        event = trio.Event()
        ended.clear()
        sock = await trio.open_tcp_stream("127.0.0.1", port)
        await sock.send_all(request)
        received = b""
        while b"event: token" not in received:
            received += await sock.receive_some(65536)
        closed = trio.current_time()
        await sock.aclose()
        with trio.fail_after(5):
            await event.wait()
        latencies.append((ended[0] - closed) * 1000)
    print(summary("disconnect -> run cancelled", latencies))


async def main(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(
            data_dir=Path(tmp),
            database_url=args.fresh_url,
            rate_limit=10**9,
            port=0,
            search_enabled=False,
        )
        async with open_runtime(settings) as rt:
            made, key = await init_workspace(rt.actors, "Bench", None)
            del made
            install(rt, OfflineProvider())
            stop = trio.Event()
            async with trio.open_nursery() as nursery:
                binds = await nursery.start(partial(serve_app, rt, shutdown_trigger=stop.wait))
                base = binds[0]
                port = int(base.rsplit(":", 1)[1])
                limits = httpx.Limits(max_connections=args.concurrency * 2)
                async with httpx.AsyncClient(base_url=base, timeout=30, limits=limits) as client:
                    print(f"store: {type(rt.store).__name__}; server and client in one process")
                    await latency(client, key.api_key, args.runs)
                    await throughput(client, key.api_key, args.seconds, args.concurrency)
                await disconnects(rt, port, key.api_key, args.disconnects)
                stop.set()


def cli() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--database-url", default="")
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--disconnects", type=int, default=50)
    args = parser.parse_args()
    with fresh_postgres(args.database_url) if args.database_url else nullcontext("") as url:
        args.fresh_url = url
        trio.run(main, args)


if __name__ == "__main__":
    cli()
