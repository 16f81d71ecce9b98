"""The ActorSystem: spawns one supervised WorkspaceActor per account on first use."""

from __future__ import annotations

import logging
import math
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from typing import Any

import trio

from fieldhouse.actors.context import Event
from fieldhouse.actors.idempotency import wrap_recorded
from fieldhouse.actors.messages import Message, R
from fieldhouse.actors.rights import RightsMemo
from fieldhouse.actors.schemas import SchemaRegistry
from fieldhouse.actors.workspace import ActorCrashed, OnChange, WorkspaceActor, nothing_to_tell
from fieldhouse.config import Settings
from fieldhouse.model.errors import ServiceUnavailable
from fieldhouse.model.schema import ModuleSchema
from fieldhouse.storage.store import Store

log = logging.getLogger("fieldhouse.actors")

Subscriber = Callable[[Sequence[Event]], None]
#: told of each committed batch: its size and the seconds its commit took
BatchObserver = Callable[[int, float], None]


class ActorSystem:
    def __init__(
        self,
        store: Store,
        settings: Settings,
        nursery: trio.Nursery,
        on_change: OnChange = nothing_to_tell,
        epoch: Callable[[], int] | None = None,
    ) -> None:
        self.store = store
        self._on_change = on_change
        self._rights = RightsMemo(store, epoch)
        self.settings = settings
        self.schemas = SchemaRegistry(store)
        self._nursery = nursery
        self._mailboxes: dict[str, trio.MemorySendChannel[Message[Any]]] = {}
        self._subscribers: list[Subscriber] = []
        self._batch_observers: list[BatchObserver] = []
        self._closing = False
        self.restarts = 0

    def background(self, fn: Callable[[], Awaitable[None]]) -> None:
        """Run fn beside the actors (for work no request should wait for)."""
        self._nursery.start_soon(fn)

    def subscribe(self, subscriber: Subscriber) -> None:
        """Call ``subscriber`` with each committed batch's events, in commit order."""
        self._subscribers.append(subscriber)

    @property
    def accepting(self) -> bool:
        """Whether the actors still take messages (False once the server is stopping)."""
        return not self._closing

    def observe_batches(self, observer: BatchObserver) -> None:
        """Call ``observer(size, commit_seconds)`` after each committed batch (metrics)."""
        self._batch_observers.append(observer)

    def mailbox_depth(self) -> int:
        """Messages waiting in every actor's mailbox of this process."""
        return sum(m.statistics().current_buffer_used for m in self._mailboxes.values())

    async def ask(self, message: Message[R]) -> R:
        """Send a message to the actor of the workspace it acts in (``message.by``) and wait
        for its committed result."""
        account_id = message.by.account_id
        if self._closing:
            raise ServiceUnavailable("The server is shutting down", headers={"Retry-After": "1"})
        message = wrap_recorded(message)
        mailbox = self._mailboxes.get(account_id) or self._spawn(account_id)
        try:
            mailbox.send_nowait(message)  # a mailbox with room takes it without a timer
        except trio.WouldBlock:
            await self._send_waiting(mailbox, message)
        except (trio.ClosedResourceError, trio.BrokenResourceError):
            raise ServiceUnavailable(
                "The server is shutting down", headers={"Retry-After": "1"}
            ) from None
        return await message.reply.wait()

    async def _send_waiting(
        self, mailbox: trio.MemorySendChannel[Message[Any]], message: Message[Any]
    ) -> None:
        """Wait for room in a full mailbox, up to the send timeout."""
        timeout = self.settings.actor_send_timeout
        with trio.move_on_after(timeout) as scope:
            try:
                await mailbox.send(message)
            except (trio.ClosedResourceError, trio.BrokenResourceError):
                raise ServiceUnavailable(
                    "The server is shutting down", headers={"Retry-After": "1"}
                ) from None
        if scope.cancelled_caught:
            raise ServiceUnavailable(
                "The workspace is busy; retry shortly",
                headers={"Retry-After": str(max(1, math.ceil(timeout)))},
            )

    def _spawn(self, account_id: str) -> trio.MemorySendChannel[Message[Any]]:
        send, receive = trio.open_memory_channel[Message[Any]](self.settings.actor_mailbox_size)
        self._mailboxes[account_id] = send
        self._nursery.start_soon(self._supervise, account_id, receive)
        return send

    async def _supervise(
        self, account_id: str, mailbox: trio.MemoryReceiveChannel[Message[Any]]
    ) -> None:
        """Run the account's actor; restart it with fresh state whenever a batch crashes."""
        async with mailbox:
            while True:
                actor = WorkspaceActor(
                    self.store,
                    account_id,
                    mailbox,
                    batch_size=self.settings.actor_batch_size,
                    publish=self._publish,
                    on_schema=self._on_schema,
                    on_change=self._on_change,
                    on_batch=self._on_batch,
                    rights=self._rights,
                )
                try:
                    await actor.run()
                    return
                except ActorCrashed:
                    log.exception("workspace actor %s crashed; restarting", account_id)
                    self.restarts += 1
                    self.schemas.forget(account_id)

    def _publish(self, events: Sequence[Event]) -> None:
        for subscriber in self._subscribers:
            try:
                subscriber(events)
            except Exception:
                log.exception("event subscriber failed")

    def _on_batch(self, size: int, commit_seconds: float) -> None:
        for observer in self._batch_observers:
            observer(size, commit_seconds)

    def _on_schema(self, account_id: str, version: int, schemas: dict[str, ModuleSchema]) -> None:
        self.schemas.publish(account_id, version, schemas)

    async def aclose(self) -> None:
        """Stop taking messages; actors finish what is in their mailboxes and exit."""
        self._closing = True
        for mailbox in self._mailboxes.values():
            await mailbox.aclose()


@asynccontextmanager
async def open_actor_system(
    store: Store,
    settings: Settings,
    *,
    on_change: OnChange = nothing_to_tell,
    epoch: Callable[[], int] | None = None,
) -> AsyncIterator[ActorSystem]:
    """The actors over a store; ``on_change`` is awaited after each commit that revoked
    access or changed a schema, before its caller gets the reply. ``epoch``: the change
    epoch that ``on_change`` moves, when every process sees it move at once (the actors then
    remember the rights they read while it stays put: :class:`RightsMemo`)."""
    try:
        async with trio.open_nursery() as nursery:
            system = ActorSystem(store, settings, nursery, on_change, epoch)
            try:
                yield system
            finally:
                await system.aclose()
    except BaseExceptionGroup as group:
        # the body's own error, not a nursery artefact, is what callers want to catch
        if len(group.exceptions) == 1:
            raise group.exceptions[0] from None
        raise
