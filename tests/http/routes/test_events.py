"""GET /v1/events on a real served socket: events with their values, filters, the role's
modules only, resuming by Last-Event-ID and afterSeq, bad input. (1,000 writes read across
the workers of a real server: tests/reliability/test_events_stream.py.)"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial
from typing import Any
from urllib.parse import urlencode

import httpx
import orjson
import trio

from fieldhouse.actors import admin_ops as ops
from fieldhouse.http.wire.server import serve_app
from fieldhouse.runtime import Runtime, open_runtime
from tests.conftest import Workspace, add_user
from tests.http.test_auth import assert_envelope
from tests.http.test_records_crud import create, records_url

URL = "/v1/events"
Event = tuple[str, int | None, Any]


@asynccontextmanager
async def served(runtime: Runtime) -> AsyncIterator[httpx.AsyncClient]:
    stop = trio.Event()
    async with trio.open_nursery() as nursery:
        binds = await nursery.start(partial(serve_app, runtime, shutdown_trigger=stop.wait))
        async with httpx.AsyncClient(base_url=binds[0], timeout=30) as client:
            yield client
        stop.set()


async def second_server(
    runtime: Runtime, task_status: trio.TaskStatus[httpx.AsyncClient] = trio.TASK_STATUS_IGNORED
) -> None:
    """Another runtime over the same database, serving on a loopback port until cancelled:
    a second server (or worker) start with ``nursery.start(second_server, runtime)``."""
    async with open_runtime(runtime.settings) as second, served(second) as other:
        task_status.started(other)
        await trio.sleep_forever()


class Sse:
    """A Server-Sent Events client on a raw socket (HTTP/1.0: the body runs to the close),
    so hanging up at any point is just closing it."""

    def __init__(self, sock: trio.SocketStream, rest: bytes) -> None:
        self.sock = sock
        self.text = rest

    async def __anext__(self) -> Event:
        """(name, id, data) per event; ("heartbeat", None, None) per comment."""
        while b"\n\n" not in self.text:
            data = await self.sock.receive_some(65536)
            if not data:
                raise StopAsyncIteration
            self.text += data
        block, self.text = self.text.split(b"\n\n", 1)
        name, ident, payload = "", None, b"null"
        for line in block.split(b"\n"):
            if line.startswith(b":"):
                return "heartbeat", None, None
            key, _, value = line.partition(b": ")
            if key == b"id":
                ident = int(value)
            elif key == b"event":
                name = value.decode()
            elif key == b"data":
                payload = value
        return name, ident, orjson.loads(payload)

    def __aiter__(self) -> Sse:
        return self


@asynccontextmanager
async def stream(
    client: httpx.AsyncClient, ws: Workspace, *, headers: Any = None, params: Any = None
) -> AsyncIterator[Sse]:
    """The stream's events after its `open`."""
    host, port = client.base_url.host, client.base_url.port
    assert port is not None
    lines = [f"GET {URL}?{urlencode(params or {})} HTTP/1.0", f"Host: {host}:{port}"]
    lines += [f"{k}: {v}" for k, v in {**ws.headers, **(headers or {})}.items()]
    sock = await trio.open_tcp_stream(host, port)
    async with sock:
        await sock.send_all(("\r\n".join(lines) + "\r\n\r\n").encode())
        received = b""
        with trio.fail_after(20):
            while b"\r\n\r\n" not in received:
                received += await sock.receive_some(65536)
        head, rest = received.split(b"\r\n\r\n", 1)
        status, *fields = head.decode().split("\r\n")
        assert status.split()[1] == "200", received
        got = {k.lower(): v.strip() for k, _, v in (f.partition(":") for f in fields)}
        assert got["content-type"].startswith("text/event-stream")
        assert got["cache-control"] == "no-cache"
        events = Sse(sock, rest)
        with trio.fail_after(20):
            name, _, _ = await anext(events)
        assert name == "open"
        yield events


async def take(events: Sse, count: int) -> list[Event]:
    got: list[Event] = []
    with trio.fail_after(20):
        while len(got) < count:
            event = await anext(events)
            if event[0] != "heartbeat":
                got.append(event)
    return got


async def test_events_carry_values_and_resume(runtime: Runtime, ws: Workspace) -> None:
    async with served(runtime) as client:
        async with stream(client, ws) as events:
            deal = await create(client, ws, "deals", {"probability": 10}, name="Big")
            rid = deal["recordId"]
            (created,) = await take(events, 1)
            patch = {"fields": {"probability": 20}}
            resp = await client.patch(records_url("deals", rid), headers=ws.headers, json=patch)
            assert resp.status_code == 200
            (updated,) = await take(events, 1)
        assert created[0] == "record_created" and updated[0] == "record_updated"
        assert created[1] is not None and updated[1] == created[1] + 1
        assert created[2]["seq"] == created[1] and created[2]["recordId"] == rid
        assert created[2]["values"]["probability"] == 10
        assert created[2]["values"]["name"] == "Deal"
        assert updated[2]["values"] == {"probability": 20}
        assert updated[2]["data"]["changes"]["probability"] == {"before": 10, "after": 20}
        # read again later, a created record's values are the record's now
        async with stream(client, ws, params={"afterSeq": created[1] - 1}) as events:
            (replayed,) = await take(events, 1)
        assert replayed[2]["values"]["probability"] == 20
        await client.delete(records_url("deals", rid), headers=ws.headers)
        # Last-Event-ID resumes after the created one; afterSeq too; the header wins
        header = {"Last-Event-ID": str(created[1])}
        async with stream(client, ws, headers=header, params={"afterSeq": 0}) as events:
            again = await take(events, 2)
        assert [(n, i) for n, i, _ in again] == [
            ("record_updated", updated[1]),
            ("record_deleted", updated[1] + 1),
        ]
        async with stream(client, ws, params={"afterSeq": updated[1]}) as events:
            (deleted,) = await take(events, 1)
        assert deleted[:2] == ("record_deleted", updated[1] + 1)


async def test_filters_and_role(runtime: Runtime, ws: Workspace, other_ws: Workspace) -> None:
    await runtime.actors.ask(
        ops.CreateRole("sales", frozenset({"deals"}), frozenset({"deals"}), by=ws.system)
    )
    sales = await add_user(runtime, ws, "sales")
    async with served(runtime) as client:
        start = {"afterSeq": 0}
        contact = await create(client, ws, "contacts")
        deal = await create(client, ws, "deals")
        await create(client, other_ws, "deals")
        other = await create(client, ws, "deals")
        await client.delete(records_url("deals", other["recordId"]), headers=ws.headers)
        tail = await create(client, ws, "tasks")
        last_deal = await create(client, ws, "deals")  # the last entry: every stream reaches it

        async def ids(who: Workspace, **params: Any) -> list[tuple[str, str | None]]:
            """(type, record) of the selected events up to the tasks record."""
            async with stream(client, who, params={**start, **params}) as events:
                got: list[tuple[str, str | None]] = []
                with trio.fail_after(20):
                    async for name, _, data in events:
                        if name == "heartbeat":
                            continue
                        got.append((name, data["recordId"]))
                        if data["seq"] >= last_seq:
                            return got
            raise AssertionError("stream ended")

        everything = await client.get(
            "/v1/activity", headers=ws.headers, params={"afterSeq": 0, "limit": 50}
        )
        last_seq = everything.json()["activities"][-1]["seq"]
        owner = await ids(ws)
        assert ("record_created", contact["recordId"]) in owner
        assert ("record_created", tail["recordId"]) in owner
        assert owner[-1] == ("record_created", last_deal["recordId"])
        # the sales role views deals only: no contact, no task, no workspace-level entries
        records = {"activityTypes": "record_created,record_deleted"}
        async with stream(client, sales, params={**start, **records}) as events:
            got = await take(events, 4)
        assert [(n, d["recordId"]) for n, _, d in got] == [
            ("record_created", deal["recordId"]),
            ("record_created", other["recordId"]),
            ("record_deleted", other["recordId"]),
            ("record_created", last_deal["recordId"]),
        ]
        by_record = {"modules": "deals", "recordId": other["recordId"]}
        async with stream(client, ws, params={**start, **by_record}) as events:
            got = await take(events, 2)
        assert [n for n, _, _ in got] == ["record_created", "record_deleted"]
        typed = {"activityTypes": "record_deleted"}
        async with stream(client, ws, params={**start, **typed}) as events:
            (only,) = await take(events, 1)
        assert (only[0], only[2]["recordId"]) == ("record_deleted", other["recordId"])
        # a module the role cannot view is a 404, as for the module's own feed
        resp = await client.get(URL, headers=sales.headers, params={"modules": "contacts"})
        assert_envelope(resp, 404, "not_found")
        resp = await client.get(URL, headers=ws.headers, params={"activityTypes": "nope"})
        assert_envelope(resp, 400, "validation_error")
        resp = await client.get(URL, headers={**ws.headers, "Last-Event-ID": "x1"})
        assert_envelope(resp, 400, "validation_error")
        resp = await client.get(URL, headers=ws.headers, params={"afterSeq": "-1"})
        assert_envelope(resp, 400, "validation_error")
        assert_envelope(await client.get(URL), 401, "unauthorized")


async def test_openapi_documents_the_stream(client: httpx.AsyncClient) -> None:
    op = (await client.get("/openapi.json")).json()["paths"]["/events"]["get"]
    assert op["x-required-scope"] == "workspace:read"
    assert list(op["responses"]["200"]["content"]) == ["text/event-stream"]
    assert {p["name"] for p in op["parameters"]} >= {"modules", "recordId", "afterSeq"}
    for words in ("Last-Event-ID", "overflow", "heartbeat", "event: record_updated"):
        assert words in op["description"]
