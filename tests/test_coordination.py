"""What processes on one database tell each other: the change epoch and rate reservations."""

from __future__ import annotations

from pathlib import Path

import trio

from fieldhouse.coordination import FileCoordination, LocalCoordination
from fieldhouse.http.ratelimit import SharedWindowLimiter


def _files(tmp_path: Path) -> FileCoordination:
    return FileCoordination(tmp_path / "db.epoch", tmp_path / "db.ratelimits")


async def test_a_bump_in_one_process_moves_the_epoch_every_other_process_reads(
    tmp_path: Path,
) -> None:
    one, other = _files(tmp_path), _files(tmp_path)  # two mappings, as two processes have
    try:
        seen = other.epoch()
        assert one.epoch() == seen
        await one.bump()
        assert other.epoch() != seen
        moved = other.epoch()
        await other.bump()
        assert one.epoch() not in (seen, moved)
    finally:
        one.close()
        other.close()


async def test_reservations_add_up_across_processes(tmp_path: Path) -> None:
    one, other = _files(tmp_path), _files(tmp_path)
    try:
        assert await one.reserve_rate_hits("key:a", 100, 5) == 5
        assert await other.reserve_rate_hits("key:a", 100, 3) == 8
        assert await other.reserve_rate_hits("key:a", 101, 1) == 1  # a new window
        assert await one.reserve_rate_hits("key:b", 100, 2) == 2  # another key
    finally:
        one.close()
        other.close()


async def test_leases_never_admit_more_than_the_limit_across_processes(tmp_path: Path) -> None:
    files = [_files(tmp_path), _files(tmp_path)]
    limiters = [SharedWindowLimiter(f, 20, clock=lambda: 6_000.0) for f in files]
    allowed: list[bool] = []

    async def hit(limiter: SharedWindowLimiter) -> None:
        allowed.append((await limiter.check("key:k")).allowed)

    try:
        async with trio.open_nursery() as nursery:
            for i in range(60):
                nursery.start_soon(hit, limiters[i % 2])
        assert len(allowed) == 60
        # exactly the limit: never more, and no lease left holding requests back at the end
        assert allowed.count(True) == 20
    finally:
        for f in files:
            f.close()


async def test_a_key_alone_on_one_process_gets_its_whole_limit() -> None:
    limiter = SharedWindowLimiter(LocalCoordination(), 25, clock=lambda: 600.0)
    states = [await limiter.check("key:k") for _ in range(30)]
    assert [s.allowed for s in states] == [True] * 25 + [False] * 5
    assert [s.remaining for s in states[:3]] == [24, 23, 22]
    assert states[24].remaining == 0 and states[29].retry_after == 60
