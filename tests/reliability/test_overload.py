"""Overload: a full workspace mailbox makes callers wait (back-pressure) up to a deadline, then
answers 503 ``service_unavailable`` with Retry-After; memory stays bounded by the mailbox.

The actor's store write is held shut by a ``trio.Event`` and the deadline is crossed with
trio's ``MockClock``, so nothing here sleeps or depends on timing."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import replace
from typing import Any

import httpx
import pytest
import trio
import trio.testing

from fieldhouse.config import Settings
from fieldhouse.runtime import Runtime
from fieldhouse.storage.write_txn import WriteTxn
from tests.conftest import Workspace

MAILBOX = 3
SEND_TIMEOUT = 5.0


@pytest.fixture
def backend() -> str:
    # the mailbox is the same whatever the store; the mock clock wants no asyncio loop beside it
    return "sqlite"


@pytest.fixture
def settings(settings: Settings) -> Settings:
    return replace(
        settings,
        actor_mailbox_size=MAILBOX,
        actor_send_timeout=SEND_TIMEOUT,
        actor_batch_size=1,
        search_enabled=False,
    )


class Gate:
    """Holds the store's write transactions until opened."""

    def __init__(self, runtime: Runtime) -> None:
        self.open = trio.Event()
        self.entered = trio.Event()
        store = runtime.store
        real_write = store.write

        @asynccontextmanager
        async def gated(account_id: str, *, light: bool = False) -> AsyncIterator[WriteTxn]:
            self.entered.set()
            await self.open.wait()
            async with real_write(account_id, light=light) as txn:
                yield txn

        store.write = gated  # type: ignore[method-assign]


async def until(condition: Callable[[], bool]) -> None:
    """Let every task run until condition holds (worker threads may need several rounds)."""
    while not condition():
        await trio.testing.wait_all_tasks_blocked()
        await trio.lowlevel.checkpoint()


def create(client: httpx.AsyncClient, ws: Workspace, n: int) -> Awaitable[httpx.Response]:
    return client.post(
        "/v1/modules/tasks/records",
        headers=ws.headers,
        json={"displayName": f"Task {n}", "fields": {"title": f"Task {n}", "status": "todo"}},
    )


async def test_full_mailbox_waits_then_503_then_recovers(
    runtime: Runtime, client: httpx.AsyncClient, ws: Workspace, mock_clock: trio.testing.MockClock
) -> None:
    gate = Gate(runtime)
    mailbox = runtime.actors._mailboxes[ws.account_id]
    results: dict[int, httpx.Response] = {}

    async def send(n: int) -> None:
        results[n] = await create(client, ws, n)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(send, 0)  # the actor takes it and blocks in the store
        await gate.entered.wait()
        for n in range(1, MAILBOX + 1):
            nursery.start_soon(send, n)
        await until(lambda: mailbox.statistics().current_buffer_used == MAILBOX)
        nursery.start_soon(send, 99)  # finds the mailbox full: it waits
        await until(lambda: mailbox.statistics().tasks_waiting_send == 1)
        mock_clock.jump(SEND_TIMEOUT / 2)
        await trio.testing.wait_all_tasks_blocked()
        assert 99 not in results  # still waiting: back-pressure, not an early rejection
        assert mailbox.statistics().current_buffer_used == MAILBOX  # nothing queued beyond
        mock_clock.jump(SEND_TIMEOUT / 2 + 0.01)
        await until(lambda: 99 in results)
        busy = results[99]
        assert busy.status_code == 503
        error = busy.json()["error"]
        assert error["code"] == "service_unavailable"
        assert error["statusCode"] == 503
        assert int(busy.headers["Retry-After"]) >= 1
        assert "X-RateLimit-Limit" in busy.headers
        assert all(n not in results for n in range(MAILBOX + 1))  # the queued ones still wait
        gate.open.set()
    assert [results[n].status_code for n in range(MAILBOX + 1)] == [201] * (MAILBOX + 1)
    after = await create(client, ws, 100)
    assert after.status_code == 201  # recovered
    listed = await client.get("/v1/modules/tasks/records", headers=ws.headers)
    names = {r["displayName"] for r in listed.json()["records"]}
    assert "Task 99" not in names  # the refused write never happened
    assert {f"Task {n}" for n in (*range(MAILBOX + 1), 100)} <= names


async def test_a_waiting_caller_gets_in_when_room_frees(
    runtime: Runtime, client: httpx.AsyncClient, ws: Workspace, mock_clock: trio.testing.MockClock
) -> None:
    gate = Gate(runtime)
    mailbox = runtime.actors._mailboxes[ws.account_id]
    results: dict[int, httpx.Response] = {}

    async def send(n: int) -> None:
        results[n] = await create(client, ws, n)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(send, 0)
        await gate.entered.wait()
        for n in range(1, MAILBOX + 2):  # one more than fits
            nursery.start_soon(send, n)
        await until(lambda: mailbox.statistics().tasks_waiting_send == 1)
        mock_clock.jump(SEND_TIMEOUT - 0.5)
        gate.open.set()  # room frees before the deadline
    assert {r.status_code for r in results.values()} == {201}
    assert len(results) == MAILBOX + 2


async def test_shutting_down_answers_503(
    runtime: Runtime, client: httpx.AsyncClient, ws: Workspace
) -> None:
    await runtime.actors.aclose()
    resp = await create(client, ws, 1)
    assert resp.status_code == 503
    body: dict[str, Any] = resp.json()
    assert body["error"]["code"] == "service_unavailable"
    assert resp.headers["Retry-After"] == "1"
