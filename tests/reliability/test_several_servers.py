"""Two `fieldhouse serve` supervisors, each with its own data directory and port, over one
PostgreSQL database behave as one server: a record written through one is found by its words
through the other at once and by its meaning once its vector is made (by either server's
embedding process, never twice), one order of writes a workspace, gap-free auto-numbers, and
rate limits counted once."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import httpx
import trio

from tests.reliability.procs import cli, serve

VECTOR_DEADLINE = 60.0
WINDOW = 60  # seconds of a rate-limit window


async def test_two_servers_over_one_postgres_are_one(pg_url: str, tmp_path: Path) -> None:
    made = cli(pg_url, "init", "--name", "Shared")
    headers = {"Authorization": f"Bearer {made['apiKey']}"}
    # a key of its own for the rate limit (its window counts nothing else)
    fresh = cli(pg_url, "key", "create", "--workspace", made["accountId"])
    limited = {"Authorization": f"Bearer {fresh['apiKey']}"}
    # and one per server for waiting on the vectors (the servers allow 40 requests a minute
    # a key: polling with the first key while a loaded machine embeds ran into that limit)
    keys = [cli(pg_url, "key", "create", "--workspace", made["accountId"]) for _ in range(2)]
    pollers = [{"Authorization": f"Bearer {k['apiKey']}"} for k in keys]
    env = {
        "FIELDHOUSE_WORKERS": "2",
        "FIELDHOUSE_SEARCH": "on",
        # a static model: loads in a moment, and the machinery is the same as MiniLM's
        "FIELDHOUSE_EMBEDDER": "wordllama-256",
    }
    dirs = [tmp_path / "a", tmp_path / "b"]
    for d in dirs:
        d.mkdir()
    async with (
        serve(pg_url, dirs[0], log=tmp_path / "a.log", env=env, rate_limit=40) as one,
        serve(pg_url, dirs[1], log=tmp_path / "b.log", env=env, rate_limit=40) as two,
        httpx.AsyncClient(base_url=one.base, headers=headers) as a,
        httpx.AsyncClient(base_url=two.base, headers=headers) as b,
    ):
        body = {"displayName": "Borealis Shipping", "fields": {"name": "Borealis Shipping"}}
        resp = await a.post("/v1/modules/companies/records", json=body)
        assert resp.status_code == 201, resp.text
        rid = resp.json()["record"]["recordId"]
        found = (await b.post("/v1/search", json={"query": "borealis"})).json()
        assert [r["sourceId"] for r in found["results"]] == [rid]  # no waiting

        # auto-numbers from both servers at once: one gap-free sequence
        numbers: list[int] = []

        async def task(client: httpx.AsyncClient, i: int) -> None:
            made = await client.post(
                "/v1/modules/tasks/records",
                json={
                    "displayName": f"Task {i}",
                    "fields": {"title": f"Task {i}", "status": "todo"},
                },
            )
            assert made.status_code == 201, made.text
            number = made.json()["record"]["fields"]["task-number"]
            numbers.append(int(re.sub(r"\D", "", str(number))))

        async with trio.open_nursery() as nursery:
            for i in range(16):
                nursery.start_soon(task, a if i % 2 else b, i)
        assert sorted(numbers) == list(range(1, 17))

        # one order of writes: every entry once, numbered without gaps
        resp = await b.get("/v1/activity", params={"limit": 50})
        assert resp.status_code == 200, resp.text
        seqs = sorted(_seqs(resp.json()))
        assert len(seqs) >= 17
        assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))

        # its vector is made once, by one of the servers, and then both search by meaning
        # (each server's answer says whether its vector half ran: its own embedding process
        # may still be loading the model when the other's has made every vector)
        for client, poller in zip((a, b), pollers, strict=True):
            with trio.fail_after(VECTOR_DEADLINE):
                while True:
                    asked = await client.post(
                        "/v1/search", json={"query": "borealis"}, headers=poller
                    )
                    assert asked.status_code == 200, asked.text
                    coverage = asked.json()["coverage"]
                    if coverage["vectorsWaiting"] == 0 and coverage["vectors"]:
                        break
                    await trio.sleep(VECTOR_DEADLINE / 30)  # the embedder's lag; 30 asks at most
            found = (await client.post("/v1/search", json={"query": "borealis shipping"})).json()
            assert found["coverage"]["vectors"]
            assert found["results"][0]["metadata"]["similarity"] is not None

        # the rate limit is counted once, in the database: 40 a minute across both servers
        # (the window is the wall clock's minute: start well inside one)
        left = WINDOW - time.time() % WINDOW
        if left < 15:
            await trio.sleep(left + 0.1)
        statuses = []
        for i in range(60):
            client = a if i % 2 else b
            statuses.append((await client.get("/v1/me", headers=limited)).status_code)
        # counted per server, 30 each would all pass
        assert statuses.count(200) == 40 and statuses.count(429) == 20


def _seqs(feed: dict[str, Any]) -> list[int]:
    entries = feed["activities"]
    return [int(e["seq"]) for e in entries]
