"""Receivers for webhook tests: real HTTP servers on loopback ports, started before the
Fieldhouse server so that its allow-list can name exactly their host:port (loopback targets
are refused otherwise)."""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import replace
from functools import partial
from typing import Any

import httpx
import trio
from hypercorn.config import Config
from hypercorn.trio import serve

from fieldhouse.config import Settings
from tests.conftest import Workspace


class Receiver:
    """An ASGI app that records each POST and answers 500 to the first ``fail`` of them; with
    ``hold`` set, it answers only once that event is set (what it got is recorded at once);
    with ``redirect_to``, it answers 307 to there."""

    def __init__(self, fail: int = 0) -> None:
        self.fail = fail
        self.hold: trio.Event | None = None
        self.redirect_to: str | None = None
        self.got: list[tuple[float, dict[str, str], bytes]] = []
        self.answered = 0
        self.changed = trio.Event()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                await send({"type": message["type"] + ".complete"})
                if message["type"] == "lifespan.shutdown":
                    return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
        self.got.append((trio.current_time(), headers, body))
        status = 500 if len(self.got) <= self.fail else 204
        self._changed()
        if self.hold is not None:
            await self.hold.wait()
        headers_out: list[tuple[bytes, bytes]] = []
        if self.redirect_to is not None:
            status, headers_out = 307, [(b"location", self.redirect_to.encode())]
        await send({"type": "http.response.start", "status": status, "headers": headers_out})
        await send({"type": "http.response.body", "body": b""})
        self.answered += 1

    def _changed(self) -> None:
        self.changed.set()
        self.changed = trio.Event()

    async def wait_for(self, count: int) -> None:
        with trio.fail_after(600):  # mock seconds where a test runs on the mock clock
            while len(self.got) < count:
                await self.changed.wait()


async def start_receiver(nursery: trio.Nursery, receiver: Receiver) -> str:
    """Serve ``receiver`` on a free loopback port; its base URL (``http://127.0.0.1:<port>``)."""
    config = Config()
    config.bind = ["127.0.0.1:0"]
    config.accesslog = None
    binds: list[str] = await nursery.start(partial(serve, receiver, config))  # type: ignore[arg-type]
    return binds[0]


async def start_receivers(nursery: trio.Nursery, count: int = 2) -> list[tuple[Receiver, str]]:
    out = []
    for _ in range(count):
        receiver = Receiver()
        out.append((receiver, await start_receiver(nursery, receiver)))
    return out


def allowing(settings: Settings, receivers: list[tuple[Receiver, str]]) -> Settings:
    """``settings`` whose webhook allow-list is these receivers' host:port and nothing else."""
    hosts = tuple(url.removeprefix("http://") for _, url in receivers)
    return replace(settings, webhook_allow_hosts=hosts)


def verify(secret: str, headers: dict[str, str], body: bytes) -> None:
    parts = dict(p.split("=", 1) for p in headers["fieldhouse-signature"].split(","))
    expected = hmac.new(secret.encode(), f"{parts['t']}.".encode() + body, hashlib.sha256)
    assert hmac.compare_digest(parts["v1"], expected.hexdigest())


async def register(
    client: httpx.AsyncClient, ws: Workspace, url: str, **extra: Any
) -> dict[str, Any]:
    resp = await client.post("/v1/webhooks", headers=ws.headers, json={"url": url, **extra})
    assert resp.status_code == 201, resp.text
    hook: dict[str, Any] = resp.json()["webhook"]
    assert hook["secret"].startswith("whsec_")
    return hook


async def deliveries(
    client: httpx.AsyncClient, ws: Workspace, hook_id: str
) -> list[dict[str, Any]]:
    resp = await client.get(f"/v1/webhooks/{hook_id}/deliveries", headers=ws.headers)
    assert resp.status_code == 200, resp.text
    found: list[dict[str, Any]] = resp.json()["deliveries"]
    return found


async def settled(client: httpx.AsyncClient, ws: Workspace, hook_id: str) -> dict[str, Any]:
    """A webhook's newest delivery once it has an attempt (polled: nothing else tells)."""
    with trio.fail_after(60):
        while True:
            log = await deliveries(client, ws, hook_id)
            if log and log[0]["attempts"]:
                return log[0]
            await trio.sleep(0.05)
