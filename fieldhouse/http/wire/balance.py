"""Connections spread evenly over the workers that share one listening socket.

With one socket shared by several processes the kernel gives a new connection to whichever
worker calls ``accept`` first, and in a burst (a load tester opening its connections at once)
that is often the same worker for all of them: 32 keep-alive connections on one process and
none on the other, one core busy for the whole run. ``SO_REUSEPORT`` (a socket per worker)
spreads a burst by a hash of the client's address, blind to load, and left one worker
saturated in steady state; the shared socket does not, since a busy worker accepts later.

So the socket stays shared and each worker looks before it accepts: a worker that holds more
open connections than another accepting worker plus :data:`SLACK` waits (up to
:data:`MAX_DEFER` seconds, polling every :data:`POLL`) for that one to take the connection
instead. A worker that stopped accepting (starting, shutting down, dead) does not count, so
while the others start a new worker takes only its first :data:`SLACK` + 1 connections and
waits to accept more until all of them accept (up to :data:`START_WAIT`): the first worker up
would otherwise take a whole burst that arrives while the others start, and a first request
(a readiness probe, a newcomer's first command) would otherwise wait for the slowest worker
to start (1.3 s of ``serve``'s 5.9 s to the first answer, 2 workers at load 3.6).

The counts live in a small file the supervisor makes (:func:`create`) and every worker maps
(:class:`Shares`): per worker, whether it accepts and how many connections it holds open.
Each worker writes only its own two slots (aligned 8-byte stores) and reads the others'.
"""

from __future__ import annotations

import mmap
import os
import struct
from collections.abc import Awaitable, Callable
from pathlib import Path

import trio

#: a worker defers an accept while it holds more than another accepting worker plus this
SLACK = 1
#: the longest a worker defers one accept (another worker may be busy or stuck)
MAX_DEFER = 0.02
#: how often a deferring worker looks again
POLL = 0.001
#: how long a new worker waits, holding more than SLACK connections, for every worker to accept
START_WAIT = 10.0

_SLOT = struct.Struct("qq")  # accepting (0/1), open connections


def create(path: str | os.PathLike[str], workers: int) -> None:
    """The shared file for ``workers`` workers, none of them accepting."""
    Path(path).write_bytes(bytes(_SLOT.size * workers))


def forget(path: str | os.PathLike[str], index: int) -> None:
    """The supervisor's word that worker ``index`` exited: it accepts nothing and holds no
    connection (its process is gone, and its sockets with it)."""
    with Shares(path, index) as shares:
        shares.stopped()


class Shares:
    """One worker's view of the shared counts (``index`` is its own slot)."""

    def __init__(self, path: str | os.PathLike[str], index: int) -> None:
        with open(path, "r+b") as handle:
            self._map = mmap.mmap(handle.fileno(), 0)
        self._slots = memoryview(self._map).cast("q")
        self.workers = len(self._slots) // 2
        if not 0 <= index < self.workers:
            raise ValueError(f"worker {index} of {self.workers}")
        self._mine = 2 * index

    def __enter__(self) -> Shares:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._slots.release()
        self._map.close()

    def accepting(self) -> None:
        self._slots[self._mine + 1] = 0
        self._slots[self._mine] = 1

    def stopped(self) -> None:
        self._slots[self._mine] = 0
        self._slots[self._mine + 1] = 0

    def opened(self) -> None:
        self._slots[self._mine + 1] += 1

    def closed(self) -> None:
        self._slots[self._mine + 1] -= 1

    @property
    def held(self) -> int:
        return self._slots[self._mine + 1]

    def all_accepting(self) -> bool:
        return all(self._slots[at] for at in range(0, 2 * self.workers, 2))

    def over_share(self) -> bool:
        """Whether another accepting worker holds fewer connections than this one by more
        than SLACK."""
        slots, mine = self._slots, self._slots[self._mine + 1]
        for at in range(0, 2 * self.workers, 2):
            if at != self._mine and slots[at] and slots[at + 1] + SLACK < mine:
                return True
        return False


class BalancedListener(trio.abc.Listener[trio.SocketStream]):
    """A listening socket shared with other workers that accepts only this worker's share
    (see above). A connection counts from its accept; :meth:`serving` counts it out when its
    handler ends."""

    def __init__(self, socket: trio.socket.SocketType, shares: Shares) -> None:
        self._listener = trio.SocketListener(socket)
        self.socket = socket
        self.shares = shares
        #: until when (trio time) this worker waits for the others to start (set at its first
        #: accept), and whether that is over (they all accepted once, or the time is up)
        self._start_until: float | None = None
        self._started = False
        shares.accepting()

    async def accept(self) -> trio.SocketStream:
        if not self._started:
            await self._starting()
        if self.shares.over_share():
            deadline = trio.current_time() + MAX_DEFER
            # the counts change in other processes: nothing here to wait on but the clock
            while self.shares.over_share() and trio.current_time() < deadline:  # noqa: ASYNC110
                await trio.sleep(POLL)
        stream = await self._listener.accept()
        self.shares.opened()
        return stream

    async def _starting(self) -> None:
        """While the other workers start: return at once for this worker's first SLACK + 1
        connections, else once they all accept (at most START_WAIT after the first accept)."""
        if self._start_until is None:
            self._start_until = trio.current_time() + START_WAIT
        if self.shares.held > SLACK:
            with trio.move_on_after(self._start_until - trio.current_time()):
                while not self.shares.all_accepting():  # noqa: ASYNC110 (as below)
                    await trio.sleep(0.01)
        if self.shares.all_accepting() or trio.current_time() >= self._start_until:
            self._started = True

    def serving(
        self, handler: Callable[[trio.SocketStream], Awaitable[object]]
    ) -> Callable[[trio.SocketStream], Awaitable[None]]:
        """``handler`` for connections from this listener, counting each out as it ends."""

        async def counted(stream: trio.SocketStream) -> None:
            try:
                await handler(stream)
            finally:
                self.shares.closed()

        return counted

    async def aclose(self) -> None:
        self.shares.stopped()
        await self._listener.aclose()
