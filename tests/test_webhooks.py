"""Webhook deliveries: the signature a receiver checks, the retry backoff, the timestamps."""

from __future__ import annotations

import hashlib
import hmac

import pytest
import trio
import trio.testing

from fieldhouse.webhooks import BACKOFF_CAP, WallClock, backoff, sign, stamp


def test_the_signature_is_an_hmac_of_the_timestamp_and_the_body() -> None:
    body = b'{"event":"record.created"}'
    header = sign("whsec_1", 1_700_000_000, body)
    expected = hmac.new(b"whsec_1", b"1700000000." + body, hashlib.sha256).hexdigest()
    assert header == f"t=1700000000,v1={expected}"
    assert sign("whsec_2", 1_700_000_000, body) != header
    assert sign("whsec_1", 1_700_000_001, body) != header


def test_backoff_doubles_up_to_an_hour() -> None:
    assert [backoff(n) for n in (1, 2, 3, 4)] == [2.0, 4.0, 8.0, 16.0]
    assert backoff(30) == BACKOFF_CAP == 3600.0


def test_stamps_are_utc_with_microseconds() -> None:
    assert stamp(0) == "1970-01-01T00:00:00.000000Z"
    assert stamp(1.5) < stamp(2.0)


async def test_the_wall_clock_advances_with_trios_clock(
    autojump_clock: trio.testing.MockClock,
) -> None:
    clock = WallClock()
    start = clock.now()
    await trio.sleep(backoff(3))
    assert clock.now() - start == pytest.approx(8.0)
