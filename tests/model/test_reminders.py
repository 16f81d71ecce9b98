"""Reminders as a type: what is stored reads back the same, and only a fired reminder says
when it fired."""

from __future__ import annotations

from fieldhouse.model.agents import ReminderStatus
from fieldhouse.model.reminders import Reminder, Requested
from fieldhouse.storage.objects import ObjectRow

DUE = "2026-03-01T09:00:00.000000Z"
WHO = Requested("u1", "k1", "api_key", "run-1", None)


def stored(r: Reminder) -> ObjectRow:
    return ObjectRow("acct", r.kind, r.object_id, r.data(), r.status, r.due_at, DUE, DUE)


def test_a_reminder_reads_back_what_it_stores_and_fires_once_due() -> None:
    made = Reminder("u1-r1", "Call Ada", "rec-1", WHO, DUE)
    assert "firedAt" not in made.data() and made.data()["createdBy"] == "u1"
    assert Reminder.from_row(stored(made)) == made
    fired = made.fired("2026-03-01T09:00:01.000000Z")
    assert fired.status == ReminderStatus.FIRED and fired.due_at == DUE
    assert Reminder.from_row(stored(fired)) == fired
    assert fired.data()["firedAt"] == fired.fired_at
