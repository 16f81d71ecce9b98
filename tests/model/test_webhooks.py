"""Webhooks and deliveries as types: what is stored reads back the same, a URL never shows its
credentials, and only a pending delivery has a next attempt."""

from __future__ import annotations

from dataclasses import replace

from fieldhouse.model.webhooks import Delivery, DeliveryStatus, Webhook, shown_url
from fieldhouse.storage.objects import ObjectRow

AT = "2026-01-01T00:00:00.000000Z"


def stored(object_id: str, data: dict[str, object], status: str, due: str | None) -> ObjectRow:
    return ObjectRow("acct", "x", object_id, dict(data), status, due, AT, AT)


def test_a_webhook_reads_back_what_it_stores() -> None:
    hook = Webhook("h1", "https://a:b@example.com/x", ("record_created",), "whsec_s", 4)
    back = Webhook.from_row(stored("h1", hook.data(), "active", None))
    assert back == replace(hook, created_at=AT)
    assert back.to_json()["url"] == "https://***@example.com/x"
    assert shown_url("https://example.com/x?q=1") == "https://example.com/x?q=1"


def test_only_a_pending_delivery_has_a_next_attempt() -> None:
    sent = Delivery("h1-3", "h1", DeliveryStatus.DELIVERED, {"seq": 3}, 1, ({"at": AT},), AT)
    back = Delivery.from_row(stored("h1-3", sent.data(), "delivered", AT))
    assert back == sent
    assert back.to_json()["nextAttemptAt"] is None
    pending = Delivery.from_row(stored("h1-3", sent.data(), "pending", AT))
    assert pending.to_json()["nextAttemptAt"] == AT
