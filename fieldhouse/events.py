"""The workspace's realtime event stream (``GET /v1/events``): the activity log, followed.

The store is the source of truth. A stream reads the activity entries above its cursor
(``seq``, gap-free per workspace), a page at a time, sends those its reader may see, moves
the cursor past every entry read (seen or not), and when it has caught up waits for a
wake-up: a commit of this process's actors (:class:`Wakeups`), or at most
:data:`POLL_SECONDS`, so writes made through another worker or server are seen too. Resuming
from the ``seq`` of the last event received (``Last-Event-ID`` or ``afterSeq``) therefore
misses and repeats nothing, on whatever worker the reconnect lands.

Record events carry ``values``: the changed fields' values (an update's values after it, a
created record's values as the record holds them when the event is read).

Memory is bounded: at most :data:`BUFFER` events wait for the client. When the buffer stays
full for :data:`SLOW_SECONDS` (the client does not read), what waits is dropped and the stream
ends with ``event: overflow`` ``{"afterSeq": N}``: N is the seq of the last event the client
was handed, the place to resume from. A client that does not take even that within another
:data:`SLOW_SECONDS` is disconnected. During silence a ``: heartbeat`` comment goes every
:data:`HEARTBEAT_SECONDS`.
"""

from __future__ import annotations

import weakref
from collections.abc import Collection, Mapping, Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

import orjson
import trio

from fieldhouse.actors.context import Event
from fieldhouse.actors.system import ActorSystem
from fieldhouse.model.activity import ActivityKind
from fieldhouse.storage.store import Store

#: seconds of silence before a heartbeat comment
HEARTBEAT_SECONDS = 15.0
#: seconds between two reads of the store when no local commit woke the stream
POLL_SECONDS = 1.0
#: events that may wait for a slow client
BUFFER = 64
#: seconds the buffer may stay full (and then the overflow event unread) before giving up
SLOW_SECONDS = 10.0
#: entries read from the store at once
PAGE = 200

HEARTBEAT = b": heartbeat\n\n"
OVERFLOW = "overflow"
_RECORD_VALUES = (ActivityKind.RECORD_CREATED.value, ActivityKind.RECORD_UPDATED.value)


class SlowReader(Exception):
    """The client took not even the overflow event in time: the connection is closed."""


@dataclass(frozen=True)
class Selection:
    """Which entries a stream sends: module ids (None: every module and workspace-level
    entries), one record, activity types (empty: all)."""

    module_ids: Collection[str] | None
    record_id: str | None
    types: Collection[str]
    #: archived modules: their records' entries are left out (the module's own are sent)
    archived_module_ids: Collection[str] = ()
    #: per module id, the slugs of its archived fields: left out of ``values``
    archived_fields: Mapping[str, Collection[str]] = field(default_factory=dict)


class Wakeups:
    """Per workspace, an event set by every commit of this process's actors that wrote an
    activity entry. Take :meth:`current` before reading the store, wait on it after."""

    def __init__(self) -> None:
        self._events: dict[str, trio.Event] = {}

    def current(self, account_id: str) -> trio.Event:
        event = self._events.get(account_id)
        if event is None:
            event = self._events[account_id] = trio.Event()
        return event

    def committed(self, events: Sequence[Event]) -> None:
        for account_id in {e.account_id for e in events if e.seq is not None}:
            woken = self._events.pop(account_id, None)
            if woken is not None:
                woken.set()


_WAKEUPS: weakref.WeakKeyDictionary[ActorSystem, Wakeups] = weakref.WeakKeyDictionary()


def wakeups(actors: ActorSystem) -> Wakeups:
    """The actor system's wake-ups (subscribed once per system)."""
    found = _WAKEUPS.get(actors)
    if found is None:
        found = _WAKEUPS[actors] = Wakeups()
        actors.subscribe(found.committed)
    return found


async def latest_seq(store: Store, account_id: str) -> int:
    """The workspace's newest activity seq (0 when it has none)."""
    newest = await store.list_activity(
        account_id, module_ids=None, record_id=None, types=(), limit=1
    )
    return int(newest[0]["seq"]) if newest else 0


async def read_page(
    store: Store, account_id: str, after: int, selection: Selection, limit: int = PAGE
) -> tuple[list[dict[str, Any]], int]:
    """The selected entries above ``after`` (oldest first, with ``values`` on record events)
    and the cursor past them."""
    if selection.module_ids is not None and not selection.module_ids:
        return [], await latest_seq(store, account_id)
    entries, after = await _selected(store, account_id, after, selection, limit)
    if entries:
        await _add_values(store, account_id, entries, selection)
    return entries, after


async def _selected(
    store: Store, account_id: str, after: int, selection: Selection, limit: int
) -> tuple[list[dict[str, Any]], int]:
    """The entries above ``after`` the selection shows, read a page at a time until a page is
    short or ``limit`` are left once filtered, and the cursor past every entry read."""
    entries: list[dict[str, Any]] = []
    while True:
        page = await store.list_activity(
            account_id,
            module_ids=selection.module_ids,
            record_id=selection.record_id,
            types=selection.types,
            limit=limit,
            after_seq=after,
        )
        if not page:
            break
        after = int(page[-1]["seq"])
        entries += [e for e in page if _shown(e, selection)]
        if len(page) < limit or len(entries) >= limit:
            break
    return entries, after


async def _add_values(
    store: Store, account_id: str, entries: list[dict[str, Any]], selection: Selection
) -> None:
    """Give each record event its ``values`` (a created record's as it is now read), without
    archived fields."""
    created = [
        e["recordId"]
        for e in entries
        if e["activityType"] == ActivityKind.RECORD_CREATED.value and e["recordId"]
    ]
    current = {r.record_id: r.fields for r in await store.get_records(account_id, created)}
    for entry in entries:
        if entry["activityType"] in _RECORD_VALUES:
            entry["values"] = _values(entry, current.get(entry["recordId"] or ""))
            hidden = selection.archived_fields.get(entry["moduleId"])
            if hidden:
                entry["values"] = {k: v for k, v in entry["values"].items() if k not in hidden}


def _shown(entry: dict[str, Any], selection: Selection) -> bool:
    """Not an entry of a record of an archived module."""
    return entry["moduleId"] not in selection.archived_module_ids or not str(
        entry["activityType"]
    ).startswith("record_")


def _values(entry: dict[str, Any], fields: dict[str, Any] | None) -> dict[str, Any]:
    data = entry.get("data") or {}
    if entry["activityType"] == ActivityKind.RECORD_UPDATED.value:
        changes = data.get("changes") or {}
        return {slug: change.get("after") for slug, change in changes.items()}
    if fields is None:  # deleted since
        return {}
    return {slug: fields.get(slug) for slug in data.get("fields") or ()}


def encode(entry: dict[str, Any]) -> bytes:
    return (
        b"id: %d\nevent: %s\ndata: " % (entry["seq"], entry["activityType"].encode())
        + orjson.dumps(entry)
        + b"\n\n"
    )


@dataclass
class Tuning:
    heartbeat: float = HEARTBEAT_SECONDS
    poll: float = POLL_SECONDS
    buffer: int = BUFFER
    slow: float = SLOW_SECONDS


class EventsBody:
    """The stream's body: a producer task (in a nursery the dispatch's sending runs inside)
    follows the store into a bounded channel; iterating sends its events and heartbeats."""

    def __init__(
        self,
        store: Store,
        wake: Wakeups,
        account_id: str,
        after: int,
        selection: Selection,
        *,
        tuning: Tuning | None = None,
        shutdown: trio.Event | None = None,
    ) -> None:
        self._store = store
        self._wake = wake
        self._account_id = account_id
        self._after = after
        self._selection = selection
        self._tuning = tuning or Tuning()
        self._shutdown = shutdown
        self._stack = AsyncExitStack()
        self._nursery: trio.Nursery | None = None
        self._items: trio.MemoryReceiveChannel[tuple[int, bytes]] | None = None
        self._first: bytes | None = encode_open(after)
        self._done = False
        #: the seq of the last event handed to the client
        self.delivered = after
        #: set once the overflow event is queued
        self.overflowed = trio.Event()
        self._taken = trio.Event()

    async def __aenter__(self) -> EventsBody:
        send, receive = trio.open_memory_channel[tuple[int, bytes]](self._tuning.buffer)
        self._items = receive
        nursery = await self._stack.enter_async_context(trio.open_nursery())
        self._nursery = nursery
        producer = trio.CancelScope()
        nursery.start_soon(self._produce, producer, send, receive.clone())
        if self._shutdown is not None:
            nursery.start_soon(self._stop_on, self._shutdown, producer)
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_value: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._nursery is not None:
            self._nursery.cancel_scope.cancel()
        try:
            await self._stack.__aexit__(exc_type, exc_value, tb)
        except BaseExceptionGroup as group:
            # the nursery wraps the body's own error; hand on the error itself
            if len(group.exceptions) == 1:
                raise group.exceptions[0] from None
            raise

    @staticmethod
    async def _stop_on(shutdown: trio.Event, producer: trio.CancelScope) -> None:
        """The server stops: the stream ends (the client resumes elsewhere)."""
        await shutdown.wait()
        producer.cancel()

    async def _produce(
        self,
        scope: trio.CancelScope,
        send: trio.MemorySendChannel[tuple[int, bytes]],
        drain: trio.MemoryReceiveChannel[tuple[int, bytes]],
    ) -> None:
        tuning = self._tuning
        after = self._after
        with scope, drain:
            async with send:
                while True:
                    woken = self._wake.current(self._account_id)
                    entries, after = await read_page(
                        self._store, self._account_id, after, self._selection
                    )
                    for entry in entries:
                        item = (int(entry["seq"]), encode(entry))
                        try:
                            send.send_nowait(item)
                            continue
                        except trio.WouldBlock:
                            pass
                        with trio.move_on_after(tuning.slow):
                            await send.send(item)
                            continue
                        await self._overflow(send, drain)
                        return
                    if len(entries) < PAGE:
                        with trio.move_on_after(tuning.poll):
                            await woken.wait()

    async def _overflow(
        self,
        send: trio.MemorySendChannel[tuple[int, bytes]],
        drain: trio.MemoryReceiveChannel[tuple[int, bytes]],
    ) -> None:
        """Drop what waits, queue the overflow event; the client must take it in time."""
        while True:
            try:
                drain.receive_nowait()
            except trio.WouldBlock:
                break
        data = {"afterSeq": self.delivered, "reason": "the client did not keep up"}
        send.send_nowait(
            (-1, b"event: " + OVERFLOW.encode() + b"\ndata: " + orjson.dumps(data) + b"\n\n")
        )
        self.overflowed.set()
        with trio.move_on_after(self._tuning.slow):
            await self._taken.wait()
            return
        raise SlowReader(f"the client did not read past seq {self.delivered}")

    def __aiter__(self) -> EventsBody:
        return self

    async def __anext__(self) -> bytes:
        if self._first is not None:
            first, self._first = self._first, None
            return first
        if self._done or self._items is None:
            raise StopAsyncIteration
        with trio.move_on_after(self._tuning.heartbeat):
            try:
                seq, data = await self._items.receive()
            except trio.EndOfChannel:
                raise StopAsyncIteration from None
            if seq < 0:
                self._done = True
                self._taken.set()
            else:
                self.delivered = seq
            return data
        return HEARTBEAT


def encode_open(after: int) -> bytes:
    """The first event: where the stream starts (no ``id``: it is not an activity entry)."""
    return b"event: open\ndata: " + orjson.dumps({"afterSeq": after}) + b"\n\n"
