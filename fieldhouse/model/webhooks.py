"""Webhooks and their deliveries as types. Both are stored as workspace objects (kinds
``webhook`` and ``webhook_delivery``, ``storage/objects.py``); ``from_row`` reads one back,
``data()`` is what is stored and ``to_json`` what the API shows."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar
from urllib.parse import urlsplit, urlunsplit

from fieldhouse.model.agents import ObjectRow

WEBHOOK = "webhook"
DELIVERY = "webhook_delivery"


class HookStatus(StrEnum):
    ACTIVE = "active"
    DELETED = "deleted"


class DeliveryStatus(StrEnum):
    PENDING = "pending"
    DELIVERED = "delivered"
    FAILED = "failed"


def shown_url(url: str) -> str:
    """A URL with its user name and password, if any, replaced by ``***``."""
    parts = urlsplit(url)
    if parts.username is None and parts.password is None:
        return url
    return urlunsplit(parts._replace(netloc="***@" + parts.netloc.rpartition("@")[2]))


@dataclass(frozen=True)
class Webhook:
    """A registered target of the workspace's activity, and how far it has been queued."""

    webhook_id: str
    url: str
    #: activity types to deliver (empty: every entry)
    event_types: tuple[str, ...]
    secret: str
    #: the last activity sequence number queued as a delivery
    cursor: int
    status: HookStatus = HookStatus.ACTIVE
    created_at: str = ""
    kind: ClassVar[str] = WEBHOOK

    @property
    def object_id(self) -> str:
        return self.webhook_id

    @property
    def due_at(self) -> None:
        return None

    @classmethod
    def from_row(cls, row: ObjectRow) -> Webhook:
        d = row.data
        return cls(
            row.object_id,
            str(d["url"]),
            tuple(str(t) for t in d.get("eventTypes") or ()),
            str(d.get("secret") or ""),
            int(d.get("cursor") or 0),
            HookStatus(row.status or HookStatus.ACTIVE),
            row.created_at,
        )

    def data(self) -> dict[str, Any]:
        return {
            "url": self.url,
            "eventTypes": list(self.event_types),
            "secret": self.secret,
            "cursor": self.cursor,
        }

    def to_json(self, *, secret: bool = False) -> dict[str, Any]:
        """The webhook of the API: its URL without credentials, the secret only when asked
        (once, at registration)."""
        out: dict[str, Any] = {
            "id": self.webhook_id,
            "url": shown_url(self.url),
            "eventTypes": list(self.event_types),
            "createdDateTime": self.created_at,
        }
        if secret:
            out["secret"] = self.secret
        return out


@dataclass(frozen=True)
class Delivery:
    """One activity entry to send to one webhook, and its attempts so far."""

    delivery_id: str
    webhook_id: str
    status: DeliveryStatus
    event: Mapping[str, Any]
    attempt_count: int = 0
    attempts: tuple[Mapping[str, Any], ...] = ()
    #: when the next attempt is due (pending deliveries)
    due_at: str | None = None
    kind: ClassVar[str] = DELIVERY

    @property
    def object_id(self) -> str:
        return self.delivery_id

    @classmethod
    def from_row(cls, row: ObjectRow) -> Delivery:
        d = row.data
        return cls(
            row.object_id,
            str(d["webhookId"]),
            DeliveryStatus(row.status or DeliveryStatus.PENDING),
            dict(d.get("event") or {}),
            int(d.get("attemptCount") or 0),
            tuple(d.get("attempts") or ()),
            row.due_at,
        )

    def data(self) -> dict[str, Any]:
        return {
            "webhookId": self.webhook_id,
            "event": dict(self.event),
            "attemptCount": self.attempt_count,
            "attempts": [dict(a) for a in self.attempts],
        }

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.delivery_id,
            "webhookId": self.webhook_id,
            "status": str(self.status),
            "attemptCount": self.attempt_count,
            "attempts": [dict(a) for a in self.attempts],
            "nextAttemptAt": self.due_at if self.status == DeliveryStatus.PENDING else None,
            "event": dict(self.event),
        }
