"""The trio-asyncio loop asyncpg runs in: it runs queued callbacks several to a turn, and keeps
asyncio's order, its timers, debug checks and trio's other tasks' turns."""

from __future__ import annotations

import asyncio

import pytest
import trio
import trio_asyncio

from fieldhouse.storage import aioloop
from fieldhouse.storage.aioloop import FastTrioEventLoop, open_loop


async def test_the_loop_is_the_fast_one_and_runs_asyncio_code() -> None:
    async with open_loop() as loop:
        assert isinstance(loop, FastTrioEventLoop)

        async def answer() -> int:
            await asyncio.sleep(0)
            return 42

        assert await trio_asyncio.aio_as_trio(answer)() == 42


async def test_callbacks_run_in_order_and_other_trio_tasks_get_their_turn() -> None:
    ran: list[int] = []
    turns: list[int] = []
    count = aioloop.RUN_AT_ONCE * 3
    async with open_loop() as loop:
        done = trio.Event()

        def step(i: int) -> None:
            ran.append(i)
            if i == count - 1:
                done.set()

        async def other() -> None:
            while not done.is_set():
                turns.append(len(ran))
                await trio.lowlevel.checkpoint()

        async with trio.open_nursery() as nursery:
            nursery.start_soon(other)
            for i in range(count):
                loop.call_soon(step, i)
            await done.wait()
    assert ran == list(range(count))
    # the other task ran while the callbacks were being worked through, not only after
    assert any(0 < n < count for n in turns)


async def test_timers_fire() -> None:
    async with open_loop() as loop:
        fired = trio.Event()
        loop.call_later(0.001, fired.set)
        with trio.fail_after(5):
            await fired.wait()


async def test_debug_mode_still_refuses_a_coroutine_as_callback() -> None:
    async def coroutine_function() -> None:
        pass

    async with open_loop() as loop:
        loop.set_debug(True)
        with pytest.raises(TypeError):
            loop.call_soon(coroutine_function)
        loop.set_debug(False)
