"""GET /v1/events on a real multi-worker `fieldhouse serve`: 1,000 writes while a client hangs
up and resumes with Last-Event-ID at random (its connections land on any worker) sees every
event exactly once, in order; a write through one worker reaches a stream on another."""

from __future__ import annotations

import random
from pathlib import Path

import httpx
import pytest
import trio

from tests.conftest import Workspace
from tests.http.routes.test_events import stream, take
from tests.reliability.procs import cli, serve

TOTAL = 1000
WRITERS = 4


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
async def test_thousand_writes_random_reconnects(db_url: str, tmp_path: Path) -> None:
    made = cli(db_url, "init", "--name", "Events", "--template", "deals")
    ws = Workspace("", "", made["apiKey"], "")
    rng = random.Random(37)
    env = {"FIELDHOUSE_WORKERS": "2"}
    log = tmp_path / "server.log"
    async with (
        serve(db_url, tmp_path / "data", log=log, env=env) as server,
        httpx.AsyncClient(base_url=server.base, headers=ws.headers, timeout=60) as client,
    ):
        newest = (await client.get("/v1/activity", params={"limit": 1})).json()
        first = newest["activities"][0]["seq"] + 1
        received: list[int] = []

        async def write(writer: int) -> None:
            for i in range(TOTAL // WRITERS):
                body = {"displayName": f"D{writer}-{i}", "fields": {"name": "x", "stage": "lead"}}
                resp = await client.post("/v1/modules/deals/records", json=body)
                assert resp.status_code == 201, resp.text

        async def read() -> None:
            last = first - 1
            reconnects = 0
            while len(received) < TOTAL:
                budget = rng.randint(1, 60)
                header = {"Last-Event-ID": str(last)}
                async with stream(client, ws, headers=header) as events:
                    async for name, ident, data in events:
                        if name == "heartbeat":
                            continue
                        assert ident is not None and ident == data["seq"]
                        assert data["values"]["stage"] == "lead"
                        received.append(ident)
                        last = ident
                        budget -= 1
                        if budget == 0 or len(received) == TOTAL:
                            break
                reconnects += 1
            assert reconnects > 10

        with trio.fail_after(300):
            async with trio.open_nursery() as nursery:
                for writer in range(WRITERS):
                    nursery.start_soon(write, writer)
                nursery.start_soon(read)
        # a stream on whichever worker sees a write through whichever worker, within its poll
        async with stream(client, ws) as events:
            for _ in range(4):
                resp = await client.post(
                    "/v1/modules/deals/records",
                    json={"displayName": "Late", "fields": {"name": "y", "stage": "lead"}},
                )
                assert resp.status_code == 201
            late = await take(events, 4)
    assert received == list(range(first, first + TOTAL))
    assert [i for _, i, _ in late] == list(range(first + TOTAL, first + TOTAL + 4))
