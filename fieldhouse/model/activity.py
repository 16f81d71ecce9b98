"""The activity log's vocabulary: every kind of entry the server writes, and the entry itself.

The kinds are the ``activityType`` strings of the activity feeds (SPEC endpoints 18-20), the
values their ``activityTypes`` filter and a webhook's ``eventTypes`` accept. Writers name a
member instead of spelling a string, so a filter can refuse a kind no writer produces (a typo
would otherwise match nothing and look like a quiet feed).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from fieldhouse.model.errors import Issue, ValidationFailed


class ActivityKind(StrEnum):
    """Every activity type the server writes: the values of activityType, which never change."""

    # records (actors/record_ops.py)
    RECORD_CREATED = "record_created"
    RECORD_UPDATED = "record_updated"
    RECORD_DELETED = "record_deleted"
    RECORD_LABELLED = "record_labelled"
    RECORD_TYPED = "record_typed"
    # module schemas (actors/template_ops.py, actors/module_ops.py, actors/admin_ops.py)
    FIELD_CREATED = "field_created"
    FIELD_UPDATED = "field_updated"
    FIELD_BACKFILLED = "field_backfilled"
    FIELD_DELETED = "field_deleted"
    FIELD_ARCHIVED = "field_archived"
    FIELD_UNARCHIVED = "field_unarchived"
    MODULE_CREATED = "module_created"
    MODULE_UPDATED = "module_updated"
    MODULE_ARCHIVED = "module_archived"
    MODULE_UNARCHIVED = "module_unarchived"
    TEMPLATE_INSTALLED = "template_installed"
    TEMPLATE_RESET = "template_reset"
    # workspace access (actors/admin_ops.py)
    USER_CREATED = "user_created"
    USER_DELETED = "user_deleted"
    API_KEY_CREATED = "api_key_created"
    API_KEY_REVOKED = "api_key_revoked"
    # agents, their approvals and policy (agents/writes.py, agents/run_writes.py, agents/gate.py)
    AGENT_TOOL_CALL = "agent_tool_call"
    AGENT_CREATED = "agent_created"
    APPROVAL_REQUESTED = "approval_requested"
    APPROVAL_DECIDED = "approval_decided"
    AGENT_POLICY_CHANGED = "agent_policy_changed"
    # objects of the agent's tools and their schedule (agents/tools/, agents/scheduler.py)
    PAGE_CREATED = "page_created"
    PAGE_PUBLISHED = "page_published"
    OUTREACH_DRAFTED = "outreach_drafted"
    OUTREACH_SCHEDULED = "outreach_scheduled"
    SOCIAL_DRAFTED = "social_drafted"
    SOCIAL_SCHEDULED = "social_scheduled"
    SOCIAL_POSTED = "social_posted"
    EMAIL_DRAFTED = "email_drafted"
    EMAIL_QUEUED = "email_queued"
    EMAIL_SENT = "email_sent"
    EMAIL_FAILED = "email_failed"
    REMINDER_CREATED = "reminder_created"
    REMINDER_FIRED = "reminder_fired"


#: The wire strings, in declaration order (the ``options`` of a refusal).
KIND_NAMES: tuple[str, ...] = tuple(k.value for k in ActivityKind)


@dataclass(frozen=True)
class ActivityEntry:
    """One entry as an actor writes it; the store gives it its sequence number (``seq``)."""

    entry_id: str
    kind: ActivityKind
    user_id: str | None
    created_at: str
    module_id: str | None = None
    record_id: str | None = None
    data: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The entry's JSON form: what the store keeps and the feeds show (they add ``seq``)."""
        return {
            "id": self.entry_id,
            "activityType": self.kind.value,
            "moduleId": self.module_id,
            "recordId": self.record_id,
            "userId": self.user_id,
            "createdDateTime": self.created_at,
            "data": dict(self.data),
        }


def parse_kinds(raw: str | None, path: tuple[str | int, ...]) -> tuple[ActivityKind, ...]:
    """The kinds a comma-separated filter names (blank items ignored, repeats once).

    An unknown name is a 400 whose issue lists the known ones under ``options``.
    """
    names = list(dict.fromkeys(t.strip() for t in (raw or "").split(",") if t.strip()))
    issues = [
        Issue(
            "invalid_enum_value",
            path,
            f"Unknown activity type {name!r}",
            {"options": list(KIND_NAMES), "received": name},
        )
        for name in names
        if name not in KIND_NAMES
    ]
    if issues:
        raise ValidationFailed(issues)
    return tuple(ActivityKind(name) for name in names)
