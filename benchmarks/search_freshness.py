"""Freshness under load, against a real server: ``python -m benchmarks.search_freshness
[--seconds 30] [--rate 200] [--writers 16] [--probe-every 50] [--embedder minilm-int8]
[--workers N]``.

Starts ``fieldhouse serve`` on a fresh workspace (``benchmarks.servers``: SQLite in a temporary
data directory, the server's own workers and embedding process), waits until its search has
vectors, and creates tasks through ``POST /v1/modules/tasks/records`` at ``--rate`` creates a
second in all, from ``--writers`` connections, for ``--seconds``. Each title is a unique word
and eight words of ``search_words.txt``. Measured through ``POST /v1/search``:

- searchable by words at once: every ``--probe-every``-th record is searched for by its title
  as soon as its 201 is in; the first answer must hold it (a record's words are written by its
  own transaction);
- the vector lag of every record: ``coverage.vectorsWaiting`` is read every SAMPLE_EVERY
  seconds, until it is 0 after the writes stop; the queue is embedded oldest first, so once
  ``created - waiting`` records have their vectors, so have the first that many created, and a
  record's lag is the time from its 201 to the first such answer;
- the same lag seen directly, for a few probed records at a time (WATCH, one search in flight
  so the probing stays light): searched again every WATCH_INTERVAL until the record's hit
  carries a similarity (the record's own title is its nearest text, so it is among the vector
  half's candidates once its vector is in the answering worker's matrix).

Prints the rate reached, the create latency, what the probes found, the vector lag's
p50 / p99 / max both ways, the backlog while writing and how long it took to drain after, and
the server's CPU (all its processes).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import trio

from benchmarks.search_bench import _sentence
from benchmarks.servers import ServerProcess, running_server, total_timeout

WATCH = 8  # records whose vector is looked for directly at a time (one search in flight)
WATCH_INTERVAL = 0.5  # seconds between looks for one watched record's vector
PROBERS = 2  # first looks in flight at most (the probing must not load the server much)
SAMPLE_EVERY = 0.25  # seconds between looks at the backlog
GIVE_UP = 120.0
READY = 120.0  # seconds the embedding model may take to load before the run


@dataclass
class Probe:
    record_id: str
    title: str
    created: float  # trio.current_time() when the 201 was in
    next_look: float = 0.0


@dataclass
class Tally:
    started: float = 0.0
    created_at: list[float] = field(default_factory=list)  # each 201, in order
    errors: Counter[str] = field(default_factory=Counter)
    create_ms: list[float] = field(default_factory=list)
    found_at_once: int = 0
    missed_at_once: int = 0
    first_answer_ms: list[float] = field(default_factory=list)
    watched_lags: list[float] = field(default_factory=list)
    watched_lost: int = 0
    #: (trio.current_time() when the answer came, records waiting, 201s in before asking)
    samples: list[tuple[float, int, int]] = field(default_factory=list)


def _quantiles(values: list[float], unit: str, scale: float = 1.0) -> str:
    if not values:
        return "none"
    v = sorted(x * scale for x in values)
    p99 = v[min(len(v) - 1, int(len(v) * 0.99))]
    return f"p50 {v[len(v) // 2]:.2f} {unit}  p99 {p99:.2f} {unit}  max {v[-1]:.2f} {unit}"


def backlog_lags(created_at: list[float], samples: list[tuple[float, int, int]]) -> list[float]:
    """Each record's vector lag read off the backlog samples: records are embedded oldest
    first, so once ``known - waiting`` records have their vectors, the first that many
    created have (records created but not yet answered count as waiting: a lag is overstated
    by at most the creates in flight)."""
    lags: list[float] = []
    for t, waiting, known in samples:
        while len(lags) < max(0, known - waiting):
            lags.append(t - created_at[len(lags)])
    return lags


async def _search(client: httpx.AsyncClient, query: str, limit: int = 5) -> dict[str, Any]:
    answer = await client.post(
        "/v1/search", json={"query": query, "limit": limit, "minSimilarity": 0}
    )
    answer.raise_for_status()
    found: dict[str, Any] = answer.json()
    return found


async def _ready(client: httpx.AsyncClient) -> None:
    """Wait until the semantic half runs (the model is loaded) and nothing waits for a vector."""
    deadline = trio.current_time() + READY
    while trio.current_time() < deadline:
        coverage = (await _search(client, "warm up the model")).get("coverage") or {}
        if coverage.get("vectors") and not coverage.get("vectorsWaiting"):
            return
        await trio.sleep(0.5)
    raise SystemExit(f"the server's search had no vectors within {READY:.0f} s")


def _hit(found: dict[str, Any], record_id: str) -> dict[str, Any] | None:
    return next((h for h in found["results"] if h["sourceId"] == record_id), None)


async def run(args: argparse.Namespace, server: ServerProcess) -> None:
    headers = {"Authorization": f"Bearer {server.api_key}"}

    def client() -> httpx.AsyncClient:
        return httpx.AsyncClient(
            base_url=server.base_url,
            headers=headers,
            timeout=30.0,
            limits=httpx.Limits(max_connections=1),
        )

    tally = Tally()
    async with client() as c:
        await _ready(c)
    send, receive = trio.open_memory_channel[Probe](100_000)
    watched: list[Probe] = []
    writing = True
    probed = False  # every probe had its first look: no record is watched from now on
    drained = trio.Event()  # the writes stopped and no record waits for its vector
    settled = trio.Event()  # every probe had its first look and no record is watched
    rng = random.Random(5)

    async def writer(w: int) -> None:
        n = 0
        next_at = trio.current_time()
        async with client() as c:
            while trio.current_time() < stop_at:
                await trio.sleep_until(next_at)
                next_at += args.writers / args.rate
                title = f"zq{w}x{n} {_sentence(rng, 8)}"
                n += 1
                sent = trio.current_time()
                try:
                    answer = await c.post(
                        "/v1/modules/tasks/records",
                        json={"displayName": title, "fields": {"title": title, "status": "todo"}},
                    )
                except httpx.HTTPError as exc:
                    tally.errors[type(exc).__name__] += 1
                    continue
                done = trio.current_time()
                if answer.status_code != 201:
                    tally.errors[f"{answer.status_code} {answer.text[:120]}"] += 1
                    continue
                tally.create_ms.append(1000 * (done - sent))
                tally.created_at.append(done)
                if len(tally.created_at) % args.probe_every == 0:
                    send.send_nowait(Probe(answer.json()["record"]["recordId"], title, done))

    async def prober() -> None:
        """The first search after a probed record's 201: is it found by its words?"""
        async with client() as c:
            async for probe in receive:
                hit = _hit(await _search(c, probe.title), probe.record_id)
                now = trio.current_time()
                tally.first_answer_ms.append(1000 * (now - probe.created))
                if hit is None:
                    tally.missed_at_once += 1
                else:
                    tally.found_at_once += 1
                if hit is not None and hit["metadata"].get("similarity") is not None:
                    tally.watched_lags.append(now - probe.created)
                elif len(watched) < WATCH:
                    probe.next_look = now + WATCH_INTERVAL
                    watched.append(probe)

    async def watcher() -> None:
        """Look for the watched records' vectors, one search at a time."""
        async with client() as c:
            while watched or not probed:
                due = min(watched, key=lambda p: p.next_look, default=None)
                if due is None or due.next_look > trio.current_time():
                    await trio.sleep(0.05)
                    continue
                hit = _hit(await _search(c, due.title), due.record_id)
                now = trio.current_time()
                if hit is not None and hit["metadata"].get("similarity") is not None:
                    tally.watched_lags.append(now - due.created)
                    watched.remove(due)
                elif now - due.created > GIVE_UP:
                    tally.watched_lost += 1
                    watched.remove(due)
                else:
                    due.next_look = now + WATCH_INTERVAL
        settled.set()

    async def sampler() -> None:
        async with client() as c:
            while True:
                known = len(tally.created_at)
                coverage = (await _search(c, "backlog sample", 1)).get("coverage") or {}
                waiting = int(coverage["vectorsWaiting"])
                now = trio.current_time()
                tally.samples.append((now, waiting, known))
                if not writing and not waiting:
                    drained.set()
                    return
                await trio.sleep(SAMPLE_EVERY)

    cpu0 = server.cpu_seconds()
    start = tally.started = trio.current_time()
    stop_at = start + args.seconds
    async with trio.open_nursery() as nursery:
        nursery.start_soon(sampler)
        nursery.start_soon(watcher)
        async with trio.open_nursery() as probing:
            for _ in range(PROBERS):
                probing.start_soon(prober)
            async with trio.open_nursery() as writers:
                for w in range(args.writers):
                    writers.start_soon(writer, w)
            elapsed = trio.current_time() - start
            writing = False
            send.close()  # the probers end with the last probe
        probed = True
        with trio.move_on_after(GIVE_UP):
            await drained.wait()
            await settled.wait()
        nursery.cancel_scope.cancel()
    cpu1 = server.cpu_seconds()
    _print(args, tally, start + elapsed, drained.is_set(), cpu0, cpu1)


def _print(
    args: argparse.Namespace,
    tally: Tally,
    stopped: float,
    drained: bool,
    cpu0: float | None,
    cpu1: float | None,
) -> None:
    created = len(tally.created_at)
    elapsed = stopped - tally.started
    errors = f" {dict(tally.errors)}" if tally.errors else ""
    print(
        f"{created} records created in {elapsed:.1f} s ({created / elapsed:.0f}/s of "
        f"{args.rate:.0f}/s asked, {args.writers} connections), {sum(tally.errors.values())} "
        f"errors{errors}; create latency {_quantiles(tally.create_ms, 'ms')}"
    )
    probes = tally.found_at_once + tally.missed_at_once
    print(
        f"searchable by its words at once: {tally.found_at_once} of {probes} probed records "
        f"found by the first search after their 201 (answered "
        f"{_quantiles(tally.first_answer_ms, 'ms')} after the 201)"
    )
    lags = backlog_lags(tally.created_at, tally.samples)
    print(
        f"vector lag, every record (201 -> out of vectorsWaiting, looked at every "
        f"{SAMPLE_EVERY} s): {_quantiles(lags, 's')}; {created - len(lags)} still waiting at "
        f"the end"
    )
    print(
        f"vector lag, watched records (201 -> a search shows its similarity, looked at every "
        f"{WATCH_INTERVAL} s), {len(tally.watched_lags)} records: "
        f"{_quantiles(tally.watched_lags, 's')}; none within {GIVE_UP:.0f} s: "
        f"{tally.watched_lost}"
    )
    during = [n for t, n, _ in tally.samples if t <= stopped] or [0]
    after = [t for t, n, _ in tally.samples if t > stopped and not n]
    end = f"0 again {after[0] - stopped:.1f} s after they stopped" if drained else "never 0"
    print(
        f"vectorsWaiting while writing: mean {statistics.mean(during):.0f}, max {max(during)}, "
        f"{during[-1]} when the writes stopped; {end}"
    )
    if cpu0 is not None and cpu1 is not None and created:
        load = " / ".join(f"{x:.1f}" for x in os.getloadavg())
        print(
            f"server CPU (every process) {cpu1 - cpu0:.1f} s, "
            f"{1000 * (cpu1 - cpu0) / created:.2f} ms a record; load average {load}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--rate", type=float, default=200.0, help="creates a second in all")
    parser.add_argument("--writers", type=int, default=16)
    parser.add_argument("--probe-every", type=int, default=50)
    parser.add_argument("--embedder", default=None, help="FIELDHOUSE_EMBEDDER (the server's)")
    parser.add_argument("--workers", type=int, default=None, help="the server's workers")
    args = parser.parse_args()
    env = {"FIELDHOUSE_LOG_LEVEL": "WARNING"}
    if args.embedder:
        env["FIELDHOUSE_EMBEDDER"] = args.embedder
    if args.workers:
        env["FIELDHOUSE_WORKERS"] = str(args.workers)
    with (
        total_timeout(args.seconds + 3 * GIVE_UP + READY),
        tempfile.TemporaryDirectory(prefix="fh-freshness-") as tmp,
        running_server(Path(tmp) / "data", extra_env=env) as server,
    ):
        trio.run(run, args, server)


if __name__ == "__main__":
    main()
