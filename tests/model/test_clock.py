"""Identifiers and timestamps in the one format every table and response uses."""

from __future__ import annotations

import os
import uuid
from datetime import UTC, datetime, timedelta, timezone

from fieldhouse.model.clock import POOL_BYTES, is_uuid, new_id, now_iso, random_bytes, to_iso


def test_times_are_utc_with_microseconds_and_z() -> None:
    paris = timezone(timedelta(hours=1))
    assert to_iso(datetime(2026, 1, 2, 3, 4, 5, 6, tzinfo=paris)) == "2026-01-02T02:04:05.000006Z"
    assert to_iso(datetime(2026, 1, 2, tzinfo=UTC)) == "2026-01-02T00:00:00.000000Z"


def test_times_sort_as_text_in_time_order() -> None:
    early = datetime(2026, 1, 1, 23, 59, 59, 999999, tzinfo=UTC)
    later = early + timedelta(microseconds=1)
    assert to_iso(early) < to_iso(later)
    before = now_iso()
    assert before <= now_iso()
    assert len(before) == len("2026-01-02T00:00:00.000000Z")


def test_ids_are_canonical_uuids() -> None:
    made = new_id()
    assert is_uuid(made)
    assert made != new_id()


def test_ids_are_random_version_4_uuids_across_many_pool_refills() -> None:
    made = [new_id() for _ in range(3 * POOL_BYTES // 16 + 7)]
    assert len(set(made)) == len(made)
    for text in made:
        parsed = uuid.UUID(text)
        assert str(parsed) == text
        assert parsed.version == 4
        assert parsed.variant == uuid.RFC_4122


def test_random_bytes_are_never_handed_out_twice() -> None:
    pieces = [random_bytes(n) for n in (16, 5, 4096, 1, 10_000, 16)]
    assert [len(p) for p in pieces] == [16, 5, 4096, 1, 10_000, 16]
    assert len({p for p in pieces if len(p) >= 16}) == 4


def test_a_forked_child_does_not_repeat_its_parents_ids() -> None:
    new_id()  # the pool holds unread bytes now
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: its next ids, to the parent
        os.close(read)
        os.write(write, ",".join(new_id() for _ in range(4)).encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        theirs = pipe.read().decode().split(",")
    os.waitpid(pid, 0)
    mine = [new_id() for _ in range(4)]
    assert len(theirs) == 4
    assert not set(theirs) & set(mine)


def test_only_the_canonical_uuid_spelling_counts() -> None:
    assert is_uuid("0b6a9f1e-3f1c-4c33-9d7a-1e2f3a4b5c6d")
    assert is_uuid("0B6A9F1E-3F1C-4C33-9D7A-1E2F3A4B5C6D")
    assert not is_uuid("0b6a9f1e3f1c4c339d7a1e2f3a4b5c6d")  # no dashes
    assert not is_uuid("{0b6a9f1e-3f1c-4c33-9d7a-1e2f3a4b5c6d}")
    assert not is_uuid("contacts")
    assert not is_uuid("")
