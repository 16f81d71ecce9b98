"""Messages to a workspace actor, each carrying a one-slot reply."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

import trio

if TYPE_CHECKING:
    from fieldhouse.actors.context import WriteContext


class Reply:
    """Where the actor puts one message's outcome: a value or an error, exactly once."""

    __slots__ = ("_done", "_error", "_value")

    def __init__(self) -> None:
        self._done = trio.Event()
        self._value: Any = None
        self._error: BaseException | None = None

    @property
    def done(self) -> bool:
        return self._done.is_set()

    def set_result(self, value: Any) -> None:
        if not self._done.is_set():
            self._value = value
            self._done.set()

    def set_error(self, error: BaseException) -> None:
        if not self._done.is_set():
            self._error = error
            self._done.set()

    async def wait(self) -> Any:
        await self._done.wait()
        if self._error is not None:
            raise self._error
        return self._value


@dataclass(frozen=True)
class Message:
    """Base of every actor message. ``actor_user_id`` is who asked (for activity)."""

    actor_user_id: str | None = field(default=None, kw_only=True)
    reply: Reply = field(default_factory=Reply, compare=False, repr=False, kw_only=True)


M = TypeVar("M", bound=Message)
Handler = Callable[["WriteContext", Any], Awaitable[Any]]
HANDLERS: dict[type[Message], Handler] = {}


def handles(kind: type[M]) -> Callable[[Callable[[WriteContext, M], Awaitable[Any]]], Handler]:
    """Register the function that applies one kind of message inside a write transaction."""

    def register(fn: Callable[[WriteContext, M], Awaitable[Any]]) -> Handler:
        HANDLERS[kind] = fn
        return fn

    return register
