"""A message's reply: exactly one outcome, delivered to whoever waits."""

from __future__ import annotations

import pytest
import trio

from fieldhouse.actors.messages import Reply


async def test_the_first_outcome_wins() -> None:
    reply: Reply[int] = Reply()
    reply.set_result(1)
    reply.set_result(2)
    reply.set_error(RuntimeError("late"))
    assert await reply.wait() == 1


async def test_an_error_is_raised_to_the_waiter() -> None:
    reply: Reply[int] = Reply()
    got: list[BaseException] = []

    async def waiter() -> None:
        try:
            await reply.wait()
        except LookupError as exc:
            got.append(exc)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(waiter)
        await trio.testing.wait_all_tasks_blocked()
        reply.set_error(LookupError("gone"))
    assert [str(e) for e in got] == ["gone"]
    with pytest.raises(LookupError):
        await reply.wait()
