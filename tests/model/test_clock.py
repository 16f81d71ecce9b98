"""Identifiers and timestamps in the one format every table and response uses."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

from fieldhouse.model.clock import is_uuid, new_id, now_iso, to_iso


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


def test_only_the_canonical_uuid_spelling_counts() -> None:
    assert is_uuid("0b6a9f1e-3f1c-4c33-9d7a-1e2f3a4b5c6d")
    assert is_uuid("0B6A9F1E-3F1C-4C33-9D7A-1E2F3A4B5C6D")
    assert not is_uuid("0b6a9f1e3f1c4c339d7a1e2f3a4b5c6d")  # no dashes
    assert not is_uuid("{0b6a9f1e-3f1c-4c33-9d7a-1e2f3a4b5c6d}")
    assert not is_uuid("contacts")
    assert not is_uuid("")
