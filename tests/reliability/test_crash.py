"""Crash safety: SIGKILL the real server in the middle of concurrent writes, restart it on the
same data, and find every acknowledged write intact and nothing half-written."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
import trio

from tests.reliability.procs import cli, fetch, serve

WORKERS = 16
#: acknowledged creates before the kill; the workers keep writing while it lands
KILL_AFTER = 120
STAGES = ("lead", "qualified", "proposal", "negotiation", "won", "lost")


@dataclass
class Ledger:
    """What the clients sent and what the server acknowledged."""

    #: recordId -> the fields of its last acknowledged state
    acked: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: recordId -> fields of an update that was sent but never acknowledged
    in_flight: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: displayName -> fields of a create that was sent but never acknowledged
    unacked_creates: dict[str, dict[str, Any]] = field(default_factory=dict)
    creates: int = 0


def _fields(worker: int, n: int, version: int) -> dict[str, Any]:
    return {
        "name": f"w{worker}-{n}",
        "stage": STAGES[(n + version) % len(STAGES)],
        "amount": {"amount": worker * 1000 + n * 10 + version, "currency": "USD"},
    }


async def _writer(
    client: httpx.AsyncClient, worker: int, ledger: Ledger, enough: trio.Event
) -> None:
    """Create a record, update it twice, repeat, until the server goes away."""
    n = 0
    try:
        while True:
            name = f"w{worker}-{n}"
            body = _fields(worker, n, 0)
            ledger.unacked_creates[name] = body
            resp = await client.post(
                "/v1/modules/deals/records", json={"displayName": name, "fields": body}
            )
            assert resp.status_code == 201, resp.text
            record_id = resp.json()["record"]["recordId"]
            del ledger.unacked_creates[name]
            ledger.acked[record_id] = body
            ledger.creates += 1
            if ledger.creates >= KILL_AFTER:
                enough.set()
            for version in (1, 2):
                change = _fields(worker, n, version)
                ledger.in_flight[record_id] = change
                resp = await client.patch(
                    f"/v1/modules/deals/records/{record_id}", json={"fields": change}
                )
                assert resp.status_code == 200, resp.text
                del ledger.in_flight[record_id]
                ledger.acked[record_id] = change
            n += 1
    except httpx.TransportError:
        return  # the server was killed under this request: it stays unacknowledged


def _number(text: str) -> int:
    return int(text.removeprefix("DEAL-"))


def _subset(fields: dict[str, Any], expected: dict[str, Any]) -> bool:
    return all(fields.get(k) == v for k, v in expected.items())


# httpx leaves a request's body iterator unfinished when the server dies under it; the garbage
# collector then reports it. That is the client's artefact of the kill, not a server fault.
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
async def test_sigkill_mid_load_loses_no_acknowledged_write(
    db_url: str, tmp_path: Path, backend: str
) -> None:
    made = cli(db_url, "init", "--name", "Crash", "--template", "deals")
    account = made["accountId"]
    headers = {"Authorization": f"Bearer {made['apiKey']}"}
    ledger = Ledger()
    log = tmp_path / "server.log"
    async with serve(db_url, tmp_path / "data", log=log) as server:
        enough = trio.Event()
        async with (
            httpx.AsyncClient(base_url=server.base, headers=headers, timeout=30) as client,
            trio.open_nursery() as nursery,
        ):
            for worker in range(WORKERS):
                nursery.start_soon(_writer, client, worker, ledger, enough)
            with trio.fail_after(120):
                await enough.wait()
            server.kill_all()  # SIGKILL (every process) while the writers are mid-request
            with trio.fail_after(60):
                await server.process.wait()
    assert len(ledger.acked) >= KILL_AFTER

    async with (
        serve(db_url, tmp_path / "data", log=log) as server,
        httpx.AsyncClient(base_url=server.base, headers=headers, timeout=30) as client,
    ):
        # every acknowledged write is there with its exact values (an update that was in
        # flight at the kill may or may not have landed, but only whole)
        for record_id, expected in ledger.acked.items():
            resp = await client.get(f"/v1/modules/deals/records/{record_id}")
            assert resp.status_code == 200, (record_id, resp.text)
            got = resp.json()["record"]["fields"]
            pending = ledger.in_flight.get(record_id)
            assert _subset(got, expected) or (pending is not None and _subset(got, pending)), (
                record_id,
                got,
                expected,
                pending,
            )
        # new records after the restart continue the auto-number sequence
        after = []
        for i in range(5):
            resp = await client.post(
                "/v1/modules/deals/records",
                json={"displayName": f"after-{i}", "fields": _fields(99, i, 0)},
            )
            assert resp.status_code == 201, resp.text
            after.append(resp.json()["record"])

    records = await fetch(
        db_url,
        "SELECT id, display_name, fields FROM records WHERE account_id = $1 AND deleted_at IS NULL",
        account,
    )
    by_name = {r["display_name"]: r for r in records}
    # an unacknowledged create is absent, or present whole (all its fields)
    for name, body in ledger.unacked_creates.items():
        row = by_name.get(name)
        if row is not None:
            stored = row["fields"] if isinstance(row["fields"], dict) else json.loads(row["fields"])
            assert _subset(stored, body) or row["id"] in ledger.in_flight, (name, stored)
    # every record has exactly one creation entry in the activity feed, and vice versa
    created = await fetch(
        db_url,
        "SELECT record_id FROM activity WHERE account_id = $1 AND activity_type = 'record_created'",
        account,
    )
    created_ids = [r["record_id"] for r in created]
    assert sorted(created_ids) == sorted(r["id"] for r in records)
    # auto-numbers are unique, never reused, and the ones issued after the restart are new
    numbers = []
    for row in records:
        stored = row["fields"] if isinstance(row["fields"], dict) else json.loads(row["fields"])
        numbers.append(stored["deal-number"])
    assert len(numbers) == len(set(numbers)) == len(records)
    later = {a["fields"]["deal-number"] for a in after}
    before_max = max(_number(n) for n in numbers if n not in later)
    assert all(_number(n) > before_max for n in later)
    # the activity sequence has no gaps and no duplicates
    seqs = [
        r["seq"]
        for r in await fetch(
            db_url, "SELECT seq FROM activity WHERE account_id = $1 ORDER BY seq", account
        )
    ]
    assert seqs == list(range(1, len(seqs) + 1))
    # each acknowledged update left its entry (two per record whose updates both landed)
    updated = await fetch(
        db_url,
        "SELECT record_id, count(*) AS n FROM activity WHERE account_id = $1"
        " AND activity_type = 'record_updated' GROUP BY record_id",
        account,
    )
    counts = {r["record_id"]: r["n"] for r in updated}
    for record_id, expected in ledger.acked.items():
        if expected["amount"]["amount"] % 10 == 2 and record_id not in ledger.in_flight:
            assert counts.get(record_id) == 2, record_id
