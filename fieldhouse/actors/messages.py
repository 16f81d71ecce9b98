"""Messages to a workspace actor: each names its handler and its result type.

A message is a frozen dataclass ``Message[R]`` whose :meth:`Message.apply` is the handler that
runs it inside the workspace's write transaction and returns an ``R``; the actor system's
``ask(CreateRecord(..., by=principal))`` is therefore typed ``-> RecordRow``. A reader follows a
request from the route to ``CreateRecord.apply`` without any registry in between.

Every message says who acts (``by``): a :class:`~fieldhouse.model.principal.Principal` with
the rights of its credential, or the server itself (a
:class:`~fieldhouse.model.principal.SystemActor`). The message goes to the actor of that
principal's workspace, and its handler checks that principal's rights (``actors/rights.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Generic, TypeVar

import trio

from fieldhouse.actors.context import WriteContext
from fieldhouse.model.principal import Acting

R = TypeVar("R")


class Reply(Generic[R]):
    """Where the actor puts one message's outcome: a value or an error, exactly once."""

    __slots__ = ("_done", "_error", "_value")

    def __init__(self) -> None:
        self._done = trio.Event()
        self._value: R | None = None
        self._error: BaseException | None = None

    def set_result(self, value: R) -> None:
        if not self._done.is_set():
            self._value = value
            self._done.set()

    def set_error(self, error: BaseException) -> None:
        if not self._done.is_set():
            self._error = error
            self._done.set()

    async def wait(self) -> R:
        await self._done.wait()
        if self._error is not None:
            raise self._error
        return self._value  # type: ignore[return-value]  # set_result ran: an R


@dataclass(frozen=True)
class Message(Generic[R]):
    """Base of every actor message. ``by`` is who acts: its workspace is the one written, its
    rights are checked by the handler, its user is the activity's."""

    by: Acting = field(kw_only=True)
    reply: Reply[R] = field(default_factory=Reply, compare=False, repr=False, kw_only=True)

    def light(self) -> bool:
        """Whether the handler writes a few records at most (a batch of light messages may
        run its transaction without a thread hop: ``Store.write(light=True)``)."""
        return False

    async def apply(self, ctx: WriteContext) -> R:
        """Apply the message inside the workspace's write transaction (the handler)."""
        raise NotImplementedError(f"{type(self).__name__} has no handler")
