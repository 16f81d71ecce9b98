"""Identifiers and timestamps, in the one format every table and response uses."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime


def new_id() -> str:
    return str(uuid.uuid4())


def to_iso(moment: datetime) -> str:
    """ISO 8601 in UTC with microseconds and a Z: sorts as text in time order."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def now_iso() -> str:
    return to_iso(datetime.now(UTC))


def is_uuid(text: str) -> bool:
    try:
        return str(uuid.UUID(text)) == text.lower() and len(text) == 36
    except (ValueError, AttributeError, TypeError):
        return False
