"""The trio-asyncio loop asyncpg runs in: it runs queued callbacks several to a turn, and keeps
asyncio's order, its timers, debug checks and trio's other tasks' turns."""

from __future__ import annotations

import asyncio
import inspect

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


def test_the_private_names_the_fast_loop_overrides_are_there() -> None:
    """FastTrioEventLoop leans on trio-asyncio's ``_main_loop_one(no_wait)`` (a coroutine that
    raises trio.WouldBlock when ``no_wait`` finds nothing queued) and ``_queue_handle(handle)``,
    and on open_loop's loop being exactly a TrioEventLoop without __slots__ (its class is
    swapped): pyproject.toml pins trio-asyncio below its next minor, and this fails when an
    upgrade changes one."""
    loop_class = trio_asyncio.TrioEventLoop
    main = loop_class._main_loop_one
    assert inspect.iscoroutinefunction(main)
    assert list(inspect.signature(main).parameters) == ["self", "no_wait"]
    assert inspect.signature(main).parameters["no_wait"].default is False
    assert list(inspect.signature(loop_class._queue_handle).parameters) == ["self", "handle"]
    assert "__slots__" not in vars(loop_class)
    assert "__slots__" not in vars(FastTrioEventLoop)


async def test_open_loop_gives_a_trio_event_loop_whose_class_is_swapped() -> None:
    async with trio_asyncio.open_loop() as plain:
        assert type(plain) is trio_asyncio.TrioEventLoop
    async with open_loop() as loop:
        assert type(loop) is FastTrioEventLoop


async def test_a_turn_without_waiting_would_block_and_a_queued_handle_runs() -> None:
    """What FastTrioEventLoop's turn relies on: ``_main_loop_one(no_wait=True)`` raises
    trio.WouldBlock when nothing is queued, and a handle given to ``_queue_handle`` runs."""
    async with trio_asyncio.open_loop() as loop:
        with pytest.raises(trio.WouldBlock):
            await loop._main_loop_one(no_wait=True)
        done = trio.Event()
        loop._queue_handle(asyncio.Handle(done.set, (), loop))
        with trio.fail_after(5):
            await done.wait()
