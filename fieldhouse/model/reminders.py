"""Reminders as a type: a note that fires into the activity feed at its time (scheduled ->
fired), its requester's alone. Stored as a workspace object of kind ``reminder``;
``from_row`` reads one back, ``data()`` is what is stored."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, ClassVar

from fieldhouse.model.agents import ObjectRow, ReminderStatus

REMINDER = "reminder"


def _str(value: Any) -> str | None:
    return None if value is None else str(value)


@dataclass(frozen=True)
class Requested:
    """Who asked for an object, kept in its data: what goes out later goes out only while
    they may still act."""

    created_by: str | None
    api_key_id: str | None
    auth_method: str | None
    run_id: str | None
    agent_id: str | None

    @classmethod
    def from_data(cls, d: dict[str, Any]) -> Requested:
        return cls(
            _str(d.get("createdBy")),
            _str(d.get("apiKeyId")),
            _str(d.get("authMethod")),
            _str(d.get("runId")),
            _str(d.get("agentId")),
        )

    def data(self) -> dict[str, Any]:
        return {
            "createdBy": self.created_by,
            "apiKeyId": self.api_key_id,
            "authMethod": self.auth_method,
            "runId": self.run_id,
            "agentId": self.agent_id,
        }


@dataclass(frozen=True)
class Reminder:
    reminder_id: str
    text: str
    #: a record of the workspace it is about
    record_id: str | None
    requested: Requested
    due_at: str
    status: ReminderStatus = ReminderStatus.SCHEDULED
    fired_at: str | None = None
    kind: ClassVar[str] = REMINDER

    @property
    def object_id(self) -> str:
        return self.reminder_id

    @classmethod
    def from_row(cls, row: ObjectRow) -> Reminder:
        d = row.data
        return cls(
            row.object_id,
            str(d.get("text") or ""),
            _str(d.get("recordId")),
            Requested.from_data(d),
            row.due_at or "",
            ReminderStatus(row.status or ReminderStatus.SCHEDULED),
            _str(d.get("firedAt")),
        )

    def data(self) -> dict[str, Any]:
        stored = {"text": self.text, "recordId": self.record_id, **self.requested.data()}
        if self.fired_at is not None:  # only a fired reminder says when
            stored["firedAt"] = self.fired_at
        return stored

    def fired(self, now: str) -> Reminder:
        return replace(self, status=ReminderStatus.FIRED, fired_at=now)
