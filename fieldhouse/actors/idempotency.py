"""Idempotency keys, kept as workspace objects and decided inside the workspace transaction.

A request with an ``Idempotency-Key`` first *claims* the key (one actor message, so across
worker processes the workspace lock makes the check-and-claim atomic). While the request runs,
every write it sends through the actor also marks the key ``committed`` in the same
transaction (:class:`Recorded`), so a key is never both unmarked and written: a request that
died before its write can be retried; one that died after it never runs twice. When the
response is known it is stored with the key (``done``) and replayed to every retry.
"""

from __future__ import annotations

import time
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from fieldhouse.actors.context import WriteContext
from fieldhouse.actors.messages import Message, R
from fieldhouse.model.errors import Conflict, Unprocessable
from fieldhouse.storage.objects import ObjectRow

KIND = "idempotency_key"
#: how long a key is remembered after its first use
TTL_SECONDS = 24 * 3600
#: a claim whose request vanished (a crashed process) may be taken over after this long
LEASE_SECONDS = 600
#: a key its request has written (``committed``) waits this long for the request to store its
#: answer (it does so right after the write): a retry meanwhile is told to retry shortly, one
#: after it that the answer was lost
ANSWER_SECONDS = 30.0

#: the key (object id) of the request being served, set by the HTTP layer around a handler
RECORDING: ContextVar[str | None] = ContextVar("fieldhouse_idempotency_key", default=None)


def _iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).isoformat().replace("+00:00", "Z")


def _age(stamp: str, now: float) -> float:
    """Seconds from ISO ``stamp`` to epoch ``now``."""
    return now - datetime.fromisoformat(stamp).timestamp()


@dataclass(frozen=True)
class Claim(Message[ObjectRow | None]):
    """Take the key for a new request (None), or return the finished first answer to replay."""

    key_id: str
    fingerprint: str

    def light(self) -> bool:
        return True

    async def apply(self, ctx: WriteContext) -> ObjectRow | None:
        now = time.time()
        row = await ctx.txn.get_object(KIND, self.key_id)
        if row is not None and row.status != "released" and row.data["expiresAt"] > now:
            if row.data["fingerprint"] != self.fingerprint:
                raise Unprocessable(
                    "This Idempotency-Key was already used for a different request "
                    "(method, path or body differ); use a new key for a new request",
                    code="idempotency_key_reused",
                )
            if row.status == "done":
                return row
            if row.status == "committed" and _age(row.updated_at, now) >= ANSWER_SECONDS:
                raise Conflict(
                    "The first request with this Idempotency-Key was written, but its "
                    "response was lost; read the resource instead of retrying",
                    code="idempotency_response_lost",
                )
            if row.status == "committed" or row.data["leaseUntil"] > now:
                raise Conflict(
                    "A request with this Idempotency-Key is still in progress; retry shortly",
                    code="idempotency_in_progress",
                    headers={"Retry-After": "1"},
                )
        data = {
            "fingerprint": self.fingerprint,
            "leaseUntil": now + LEASE_SECONDS,
            "expiresAt": now + TTL_SECONDS,
        }
        created = row.created_at if row is not None else ctx.now
        expires = _iso(now + TTL_SECONDS)
        await ctx.txn.put_object(
            ObjectRow(ctx.account_id, KIND, self.key_id, data, "running", expires, created, ctx.now)
        )
        return None


@dataclass(frozen=True)
class Recorded(Message[R]):
    """A write made under an idempotency key: the key is marked written with it."""

    inner: Message[R]
    key_id: str

    def light(self) -> bool:
        return self.inner.light()

    async def apply(self, ctx: WriteContext) -> R:
        result = await self.inner.apply(ctx)
        await ctx.txn.transition_object(KIND, self.key_id, "running", "committed", ctx.now)
        return result


@dataclass(frozen=True)
class Finish(Message[None]):
    """Store the first answer; or, for a server error before anything was written, forget the
    key so that a retry runs again."""

    key_id: str
    status: int
    body: Any
    release_unwritten: bool = False

    def light(self) -> bool:
        return True

    async def apply(self, ctx: WriteContext) -> None:
        row = await ctx.txn.get_object(KIND, self.key_id)
        if row is None:
            return
        if self.release_unwritten and row.status == "running":
            await ctx.txn.transition_object(KIND, self.key_id, "running", "released", ctx.now)
            return
        data = {**row.data, "status": self.status, "body": self.body}
        await ctx.txn.put_object(
            ObjectRow(
                ctx.account_id, KIND, self.key_id, data, "done", row.due_at, row.created_at, ctx.now
            )
        )


def wrap_recorded(message: Message[R]) -> Message[R]:
    """The message to send: wrapped in :class:`Recorded` while a keyed request is served."""
    key_id = RECORDING.get()
    if key_id is None or isinstance(message, (Claim, Finish, Recorded)):
        return message
    return Recorded(message, key_id, by=message.by)
