"""Signed webhooks: the outbox of deliveries and the loop that sends them.

Webhooks and their deliveries are workspace objects (kinds ``webhook`` and
``webhook_delivery``), written through the workspace actor, so they survive a restart. The
activity log is the source: each webhook keeps a cursor (the last activity sequence number it
has queued), and the dispatcher turns the entries above it into deliveries in the same
transaction that advances the cursor. One dispatcher runs per server (worker 0).

A delivery is a POST of JSON with these headers::

    Fieldhouse-Webhook-Id: <webhook id>
    Fieldhouse-Delivery-Id: <delivery id>   (the same on every retry of one delivery)
    Fieldhouse-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>

A receiver recomputes the HMAC over the timestamp, a dot and the raw body with the secret it
was given when it registered, compares in constant time and rejects old timestamps. A non-2xx
answer (a redirect too: none is followed) or a network error is retried after 2, 4, 8 ...
seconds (at most ``MAX_ATTEMPTS`` attempts, the wait capped at one hour); then the delivery is
``failed`` and can be replayed. The body's ``id`` is the delivery id (the header's), and
``activityId`` the activity entry's.

Targets: only public addresses, checked again at every connection after DNS resolution and
pinned to the checked address (:mod:`fieldhouse.egress`); a refused target fails the delivery
at once, with an error that names the host and the kind of address but nothing learnt by
connecting, since no connection is made.

Fairness: each due delivery is sent by its own task, at most ``PER_ENDPOINT`` at once for one
webhook and ``TOTAL`` for all, so a slow receiver holds up only its own deliveries. A webhook
has at most ``WINDOW`` pending deliveries; later activity waits in the activity log (its
cursor stays behind) until they are settled, so one webhook's backlog cannot fill the page of
due deliveries that every pass reads.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import time
from collections.abc import AsyncIterator, Collection, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import replace
from datetime import UTC, datetime
from functools import partial
from typing import TYPE_CHECKING, Any

import orjson
import trio

from fieldhouse.actors.context import Event
from fieldhouse.actors.object_ops import ApplyObjects, ObjectWrite
from fieldhouse.actors.system import ActorSystem
from fieldhouse.config import Settings
from fieldhouse.egress import AllowList, Egress, RefusedTarget
from fieldhouse.model.errors import ApiError
from fieldhouse.model.principal import SystemActor
from fieldhouse.model.webhooks import DELIVERY as DELIVERY
from fieldhouse.model.webhooks import WEBHOOK as WEBHOOK
from fieldhouse.model.webhooks import Delivery, DeliveryStatus, HookStatus, Webhook
from fieldhouse.storage.objects import ObjectRow
from fieldhouse.storage.store import Store

if TYPE_CHECKING:
    import httpx

log = logging.getLogger("fieldhouse.webhooks")
PENDING = DeliveryStatus.PENDING

MAX_ATTEMPTS = 10
BACKOFF_BASE = 2.0
BACKOFF_CAP = 3600.0
POLL_SECONDS = 5.0
SEND_TIMEOUT = 10.0
#: activity entries a pass turns into deliveries per webhook
BATCH = 100
#: pending deliveries a pass reads, oldest due first
DUE_PAGE = 100
#: a webhook's deliveries in flight at once, everyone's, and the pending ones it may have
PER_ENDPOINT = 2
TOTAL = 16
WINDOW = 10
HOOKS_PAGE = 500
#: seconds a pass waits after a wake-up, so a burst of commits costs one pass, not one each
MIN_GAP = 0.05
#: attempts kept in a delivery's log
KEPT_ATTEMPTS = 20


def sign(secret: str, timestamp: int, body: bytes) -> str:
    """The Fieldhouse-Signature header value for a body sent at ``timestamp``."""
    mac = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256)
    return f"t={timestamp},v1={mac.hexdigest()}"


def backoff(attempts: int) -> float:
    """Seconds to wait after the ``attempts``-th failed attempt."""
    return float(min(BACKOFF_CAP, BACKOFF_BASE * 2 ** (attempts - 1)))


class WallClock:
    """Wall time that advances with trio's clock, so tests on a mock clock see the backoff."""

    def __init__(self) -> None:
        self._wall = time.time()
        self._trio = trio.current_time()

    def now(self) -> float:
        return self._wall + (trio.current_time() - self._trio)


def stamp(epoch: float) -> str:
    """A sortable ISO-8601 UTC string (always with microseconds)."""
    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class _Client:
    """The delivery client, opened at the first delivery (into ``opened``, closed with it): a
    server that sends no webhook never loads an HTTP client library."""

    def __init__(self, egress: Egress, opened: AsyncExitStack) -> None:
        self._egress, self._opened = egress, opened
        self._client: httpx.AsyncClient | None = None

    async def opened(self) -> httpx.AsyncClient:
        if self._client is None:  # (only the dispatcher's loop asks: no race)
            from fieldhouse.egress_http import open_client  # (httpx: loaded here)

            self._client = await self._opened.enter_async_context(
                open_client(self._egress, SEND_TIMEOUT)
            )
        return self._client


class Dispatcher:
    """Turns activity into deliveries and sends them. Woken by every local commit, it looks
    only at the webhooks of the workspaces those commits touched (one indexed query finds the
    active hooks of all workspaces) and bursts of commits are coalesced into one pass per
    ``MIN_GAP``; every ``POLL_SECONDS`` a full pass covers writes made by other processes.
    Each finished delivery wakes it too, to send the next of that webhook."""

    def __init__(self, store: Store, actors: ActorSystem, egress: Egress | None = None) -> None:
        self.store = store
        self.actors = actors
        self.egress = egress or Egress()
        self.clock = WallClock()
        self.wake = trio.Event()
        #: workspaces with local commits (or finished deliveries) since the last pass
        self.touched: set[str] = set()
        #: deliveries being sent, and each webhook's share of PER_ENDPOINT
        self.sending: set[str] = set()
        self.endpoints: dict[str, trio.CapacityLimiter] = {}
        self.total = trio.CapacityLimiter(TOTAL)

    def notify(self, events: Sequence[Event]) -> None:
        self.touched.update(e.account_id for e in events)
        self.wake.set()

    async def run(
        self, stop: trio.Event, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
    ) -> None:
        everything = True  # the first pass, and every pass the timer starts
        async with AsyncExitStack() as opened, trio.open_nursery() as senders:
            client = _Client(self.egress, opened)
            task_status.started()
            while not stop.is_set():
                self.wake = trio.Event()
                touched, self.touched = self.touched, set()
                try:
                    await self.enqueue(None if everything else touched)
                    wait = await self.send_due(client, senders)
                except Exception:
                    log.exception("webhook dispatch failed")
                    wait = POLL_SECONDS
                with trio.move_on_after(wait) as timer:
                    async with trio.open_nursery() as nursery:

                        async def first(event: trio.Event) -> None:
                            await event.wait()
                            nursery.cancel_scope.cancel()

                        nursery.start_soon(first, self.wake)
                        nursery.start_soon(first, stop)
                everything = timer.cancelled_caught
                if not everything:
                    with trio.move_on_after(MIN_GAP):  # let a burst of commits gather
                        await stop.wait()  # (but not hold up a shutdown)
            # deliveries cut short stay pending, and are sent again after a restart
            senders.cancel_scope.cancel()

    async def enqueue(self, accounts: Collection[str] | None = None) -> None:
        """Queue a delivery for each new activity entry of each active webhook (of
        ``accounts`` only, when given)."""
        after = ("", "")
        while True:
            hooks = await self.store.objects_of_kind(
                WEBHOOK, "active", after=after, limit=HOOKS_PAGE
            )
            for hook in hooks:
                if accounts is None or hook.account_id in accounts:
                    await self._enqueue_hook(hook.account_id, Webhook.from_row(hook))
            if len(hooks) < HOOKS_PAGE:
                return
            after = (hooks[-1].account_id, hooks[-1].object_id)

    async def _enqueue_hook(self, account_id: str, hook: Webhook) -> None:
        entries = await self.store.list_activity(
            account_id,
            module_ids=None,
            record_id=None,
            types=(),
            limit=BATCH,
            after_seq=hook.cursor,
        )
        if not entries:
            return
        pending = await self.store.list_objects(
            account_id, DELIVERY, status="pending", limit=WINDOW, id_prefix=f"{hook.webhook_id}-"
        )
        room = WINDOW - len(pending)
        wanted = set(hook.event_types)
        due = stamp(self.clock.now())
        writes: list[ObjectWrite] = []
        cursor = hook.cursor
        for e in entries:
            if not wanted or e["activityType"] in wanted:
                if len(writes) == room:
                    break  # the rest waits in the activity log
                event = {"workspaceId": account_id, **e}
                delivery = Delivery(
                    f"{hook.webhook_id}-{e['seq']}", hook.webhook_id, PENDING, event, due_at=due
                )
                writes.append(ObjectWrite.of(delivery))
            cursor = e["seq"]
        if cursor == hook.cursor:
            return
        advance = ObjectWrite.of(replace(hook, cursor=cursor), "update", (HookStatus.ACTIVE,))
        try:
            await self.actors.ask(
                ApplyObjects((*writes, advance), by=SystemActor(account_id, "webhooks"))
            )
        except ApiError as exc:  # deleted meanwhile, or another server queued them
            log.info("webhook %s: %s", hook.webhook_id, exc.message)

    async def send_due(self, client: _Client, senders: trio.Nursery) -> float:
        """Start sending every due delivery whose webhook has a free slot; return the seconds
        until the next one is due (a finished delivery wakes the loop before that)."""
        now = self.clock.now()
        for row in await self.store.due_objects(DELIVERY, "pending", "9999", DUE_PAGE):
            if row.due_at is None:
                continue
            if row.due_at > stamp(now):  # the first one not due yet: the rest are later
                due = datetime.strptime(row.due_at, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)
                return max(0.0, min(POLL_SECONDS, due.timestamp() - now))
            if row.object_id in self.sending:
                continue
            hook_id = row.data["webhookId"]
            endpoint = self.endpoints.setdefault(hook_id, trio.CapacityLimiter(PER_ENDPOINT))
            try:
                endpoint.acquire_on_behalf_of_nowait(row.object_id)
            except trio.WouldBlock:
                continue  # its webhook is busy: the next pass after one of those ends
            self.sending.add(row.object_id)
            senders.start_soon(self._deliver, await client.opened(), endpoint, row)
        return POLL_SECONDS

    async def _deliver(
        self, client: httpx.AsyncClient, endpoint: trio.CapacityLimiter, row: ObjectRow
    ) -> None:
        try:
            async with self.total:
                await self._send(client, row.account_id, row)
        except Exception:
            log.exception("delivery %s failed", row.object_id)
        finally:
            endpoint.release_on_behalf_of(row.object_id)
            hook_id = row.data["webhookId"]
            if self.endpoints.get(hook_id) is endpoint and not endpoint.borrowed_tokens:
                del self.endpoints[hook_id]
            self.sending.discard(row.object_id)
            self.touched.add(row.account_id)  # its webhook may have more to queue
            self.wake.set()

    async def _send(self, client: httpx.AsyncClient, account_id: str, row: ObjectRow) -> None:
        import httpx  # (loaded with the client, at the first delivery)

        delivery = Delivery.from_row(row)
        hook = await self.store.get_object(account_id, WEBHOOK, delivery.webhook_id)
        started = self.clock.now()
        attempt: dict[str, Any] = {"at": stamp(started)}
        if hook is None or hook.status != HookStatus.ACTIVE:
            attempt["error"] = "the webhook was deleted"
            ok, final = False, True
        else:
            target = Webhook.from_row(hook)
            event = delivery.event
            body = orjson.dumps(
                {**event, "id": delivery.delivery_id, "activityId": event.get("id")}
            )
            headers = {
                "Content-Type": "application/json",
                "User-Agent": "Fieldhouse-Webhooks",
                "Fieldhouse-Webhook-Id": target.webhook_id,
                "Fieldhouse-Delivery-Id": delivery.delivery_id,
                "Fieldhouse-Signature": sign(target.secret, int(started), body),
            }
            final = False
            try:
                resp = await client.post(target.url, content=body, headers=headers)
                attempt["statusCode"] = resp.status_code
                ok = 200 <= resp.status_code < 300
            except RefusedTarget as exc:  # nothing was sent, and no retry will be
                attempt.update(error=f"refused: {exc}; nothing was sent", refused=True)
                ok, final = False, True
            except httpx.HTTPError as exc:
                attempt["error"] = f"{type(exc).__name__}: {exc}"
                ok = False
        count = delivery.attempt_count + 1
        attempts = (*delivery.attempts, attempt)[-KEPT_ATTEMPTS:]
        if ok:
            status, due = DeliveryStatus.DELIVERED, None
        elif final or count >= MAX_ATTEMPTS:
            status, due = DeliveryStatus.FAILED, None
        else:
            status, due = PENDING, stamp(self.clock.now() + backoff(count))
        after = replace(delivery, status=status, attempt_count=count, attempts=attempts, due_at=due)
        try:
            await self.actors.ask(
                ApplyObjects(
                    (ObjectWrite.of(after, "update", (PENDING,)),),
                    by=SystemActor(account_id, "webhooks"),
                )
            )
        except ApiError as exc:
            log.info("delivery %s: %s", delivery.delivery_id, exc.message)


@asynccontextmanager
async def open_dispatcher(
    store: Store, actors: ActorSystem, settings: Settings | None = None
) -> AsyncIterator[Dispatcher]:
    """Deliver webhooks for the duration of the block; woken by every committed write. Targets
    outside ``settings.webhook_allow_hosts`` must be public addresses."""
    allow = AllowList.parse(settings.webhook_allow_hosts if settings is not None else ())
    dispatcher = Dispatcher(store, actors, Egress(allow))
    actors.subscribe(dispatcher.notify)
    stop = trio.Event()
    async with trio.open_nursery() as nursery:
        await nursery.start(partial(dispatcher.run, stop))
        try:
            yield dispatcher
        finally:
            stop.set()
