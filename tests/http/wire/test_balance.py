"""Workers sharing one listening socket take even shares of the connections: a worker over its
share defers to an accepting sibling, for a bounded time; a new worker waits (bounded) until
every worker accepts. Real loopback sockets; trio's autojump clock for the waits."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import trio
import trio.testing

from fieldhouse.http.wire import balance
from fieldhouse.http.wire.balance import (
    MAX_DEFER,
    SLACK,
    START_WAIT,
    BalancedListener,
    Shares,
)


@pytest.fixture
async def listening() -> AsyncIterator[trio.socket.SocketType]:
    sock = trio.socket.socket()
    await sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    with sock:
        yield sock


@pytest.fixture
def shares_path(tmp_path: Path) -> Path:
    path = tmp_path / "connections"
    balance.create(path, 2)
    return path


@pytest.fixture
def pair(shares_path: Path) -> Iterator[tuple[Shares, Shares]]:
    """This worker's shares and its sibling's, the sibling accepting and holding nothing."""
    with Shares(shares_path, 0) as mine, Shares(shares_path, 1) as sibling:
        sibling.accepting()
        yield mine, sibling


@pytest.fixture
async def to_close() -> AsyncIterator[list[trio.SocketStream]]:
    """Streams a test opened (clients and accepted ends), closed after it."""
    streams: list[trio.SocketStream] = []
    yield streams
    for stream in streams:
        await stream.aclose()


async def _clients(sock: trio.socket.SocketType, n: int) -> list[trio.SocketStream]:
    """``n`` connections the kernel has completed (queued for an accept)."""
    host, port = sock.getsockname()
    return [await trio.open_tcp_stream(host, port) for _ in range(n)]


async def test_a_new_worker_answers_at_once_and_waits_for_every_worker_beyond_its_first(
    autojump_clock: trio.testing.MockClock, listening: trio.socket.SocketType, shares_path: Path
) -> None:
    """A first request (a readiness probe, a newcomer's first command) is answered by the
    first worker up; a burst beyond SLACK + 1 connections waits for the others to start."""
    with Shares(shares_path, 0) as mine, Shares(shares_path, 1) as sibling:
        listener = BalancedListener(listening, mine)
        clients = await _clients(listening, SLACK + 2)

        async def sibling_starts() -> None:
            await trio.sleep(1.0)
            sibling.accepting()

        start = trio.current_time()
        async with trio.open_nursery() as nursery:
            nursery.start_soon(sibling_starts)
            at_once = [await listener.accept() for _ in range(SLACK + 1)]
            assert trio.current_time() == start  # the sibling has not started
            waited = await listener.accept()
        assert 1.0 <= trio.current_time() - start < 1.1  # waited for the sibling, no longer
        for stream in [*clients, *at_once, waited]:
            await stream.aclose()


async def test_a_new_worker_waits_no_longer_than_the_start_wait(
    autojump_clock: trio.testing.MockClock, listening: trio.socket.SocketType, shares_path: Path
) -> None:
    with Shares(shares_path, 0) as mine:
        listener = BalancedListener(listening, mine)
        clients = await _clients(listening, SLACK + 3)
        start = trio.current_time()
        held = [await listener.accept() for _ in range(SLACK + 1)]
        assert trio.current_time() == start
        held.append(await listener.accept())  # the sibling never starts
        assert START_WAIT <= trio.current_time() - start < START_WAIT + 0.1
        start = trio.current_time()
        held.append(await listener.accept())  # once, from the first accept
        assert trio.current_time() == start
        for stream in [*clients, *held]:
            await stream.aclose()


async def test_a_worker_over_its_share_defers_until_a_sibling_takes_one(
    autojump_clock: trio.testing.MockClock,
    listening: trio.socket.SocketType,
    pair: tuple[Shares, Shares],
    to_close: list[trio.SocketStream],
) -> None:
    mine, sibling = pair
    listener = BalancedListener(listening, mine)
    to_close += await _clients(listening, 4)
    start = trio.current_time()
    to_close += [await listener.accept(), await listener.accept()]
    assert trio.current_time() == start and mine.held == 2  # within its share: at once

    async def sibling_takes_one() -> None:
        await trio.sleep(MAX_DEFER / 4)
        sibling.opened()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(sibling_takes_one)
        to_close.append(await listener.accept())  # 2 > 0 + SLACK: over its share
    waited = trio.current_time() - start
    assert MAX_DEFER / 4 <= waited < MAX_DEFER / 2  # until the sibling held one more
    # over its share again (3 > 1 + 1), and the sibling takes nothing: not forever
    start = trio.current_time()
    to_close.append(await listener.accept())
    assert MAX_DEFER <= trio.current_time() - start < 2 * MAX_DEFER
    assert mine.held == 4


async def test_a_sibling_that_stopped_accepting_is_not_waited_for(
    autojump_clock: trio.testing.MockClock,
    listening: trio.socket.SocketType,
    shares_path: Path,
    pair: tuple[Shares, Shares],
    to_close: list[trio.SocketStream],
) -> None:
    mine, _ = pair
    listener = BalancedListener(listening, mine)
    to_close += await _clients(listening, 3)
    to_close += [await listener.accept(), await listener.accept()]
    balance.forget(shares_path, 1)  # what the supervisor does when a worker exits
    start = trio.current_time()
    to_close.append(await listener.accept())
    assert trio.current_time() == start


async def test_connections_count_out_when_their_handler_ends_and_a_closed_listener_is_not_accepting(
    listening: trio.socket.SocketType,
    pair: tuple[Shares, Shares],
    to_close: list[trio.SocketStream],
) -> None:
    mine, sibling = pair
    listener = BalancedListener(listening, mine)
    served: list[bytes] = []

    async def echo_once(stream: trio.SocketStream) -> None:
        served.append(await stream.receive_some())
        await stream.aclose()

    handler = listener.serving(echo_once)
    clients = await _clients(listening, 2)
    to_close += clients
    accepted = [await listener.accept(), await listener.accept()]
    assert mine.held == 2
    async with trio.open_nursery() as nursery:
        for stream in accepted:
            nursery.start_soon(handler, stream)
        for client in clients:
            await client.send_all(b"hi")
    assert served == [b"hi", b"hi"] and mine.held == 0
    # held 2 against the sibling's 0 it would have deferred; closed, it does not count
    for _ in range(2):
        sibling.opened()
    await listener.aclose()
    assert not sibling.over_share()


def test_a_worker_index_outside_the_file_is_refused(shares_path: Path) -> None:
    with pytest.raises(ValueError, match="worker 2 of 2"):
        Shares(shares_path, 2)


def test_the_file_starts_with_no_worker_accepting(shares_path: Path) -> None:
    with Shares(shares_path, 0) as first, Shares(shares_path, 1) as second:
        assert not first.all_accepting()
        first.accepting()
        assert not second.all_accepting()
        second.accepting()
        assert first.all_accepting() and second.all_accepting()
