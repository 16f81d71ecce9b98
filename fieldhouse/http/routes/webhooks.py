"""Webhooks of a workspace: register, list, delete, their delivery log and replay."""

from __future__ import annotations

import secrets
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from pydantic import AnyHttpUrl, Field

from fieldhouse.actors.agent_ops import ApplyObjects, ObjectWrite
from fieldhouse.egress import AllowList, Egress, RefusedTarget
from fieldhouse.http.endpoint import Routes
from fieldhouse.http.models import Open, Strict, Timestamp, Uuid
from fieldhouse.model.activity import ActivityKind
from fieldhouse.model.clock import new_id
from fieldhouse.model.errors import Issue, NotFound, ValidationFailed
from fieldhouse.model.principal import Principal
from fieldhouse.services import Services
from fieldhouse.storage.objects import ObjectRow
from fieldhouse.webhooks import DELIVERY, WEBHOOK, WallClock, stamp

routes = Routes()
SIGNING = (
    "Each delivery is a POST of JSON signed with the secret returned at registration: header "
    '`Fieldhouse-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`, '
    "plus `Fieldhouse-Webhook-Id` and `Fieldhouse-Delivery-Id` (the same on every retry); the "
    "body's `id` is that delivery id and `activityId` the activity entry's. Non-2xx answers "
    "(redirects too: none is followed) are retried after 2, 4, 8 ... seconds, at most 10 "
    "attempts. The URL must reach a public address: loopback, private, link-local (cloud "
    "metadata), multicast, reserved and unspecified addresses, `localhost` and names that "
    "resolve to any of these are refused here (400 `validation_error` on `url`) and again at "
    "every delivery, after DNS resolution; the server's operator may allow named hosts. "
    "Credentials in the URL are sent as Basic auth and never shown again."
)
REFUSED = (
    "{detail}: a webhook may only target public addresses (the server's operator can allow "
    "a host with FIELDHOUSE_WEBHOOK_ALLOW_HOSTS)"
)


class WebhookBody(Strict):
    url: AnyHttpUrl
    #: activity types to deliver (empty: every entry); an unknown one is refused
    eventTypes: list[ActivityKind] = Field(default_factory=list, max_length=50)


class WebhookOut(Open):
    id: Uuid
    url: str
    eventTypes: list[str]
    createdDateTime: Timestamp
    secret: str | None = None


class WebhookEnvelope(Open):
    webhook: WebhookOut


class WebhookList(Open):
    webhooks: list[WebhookOut]


class DeliveryOut(Open):
    id: str = Field(description="<webhookId>-<seq>: the webhook and the activity entry")
    webhookId: Uuid
    status: str
    attemptCount: int
    attempts: list[dict[str, Any]]
    nextAttemptAt: Timestamp | None
    event: dict[str, Any]


class DeliveryList(Open):
    deliveries: list[DeliveryOut]


class DeliveryEnvelope(Open):
    delivery: DeliveryOut


def _shown(url: str) -> str:
    """A URL with its user name and password, if any, replaced by ``***``."""
    parts = urlsplit(url)
    if parts.username is None and parts.password is None:
        return url
    return urlunsplit(parts._replace(netloc="***@" + parts.netloc.rpartition("@")[2]))


def _hook(row: ObjectRow, *, secret: bool = False) -> dict[str, Any]:
    out = {
        "id": row.object_id,
        "url": _shown(row.data["url"]),
        "eventTypes": row.data.get("eventTypes", []),
        "createdDateTime": row.created_at,
    }
    if secret:
        out["secret"] = row.data["secret"]
    return out


def _delivery(row: ObjectRow) -> dict[str, Any]:
    return {
        "id": row.object_id,
        "webhookId": row.data["webhookId"],
        "status": row.status,
        "attemptCount": row.data.get("attemptCount", 0),
        "attempts": row.data.get("attempts", []),
        "nextAttemptAt": row.due_at if row.status == "pending" else None,
        "event": row.data["event"],
    }


async def _live_hook(svc: Services, principal: Principal, webhook_id: str) -> ObjectRow:
    row = await svc.store.get_object(principal.account_id, WEBHOOK, webhook_id)
    if row is None or row.status != "active":
        raise NotFound(f"Webhook {webhook_id} not found")
    return row


@routes.endpoint(
    "POST",
    "/v1/webhooks",
    summary="Register a webhook (its signing secret is shown once)",
    description=SIGNING,
    scope="records:write",
    admin_only=True,
    tag="webhooks",
    body=WebhookBody,
    responses={201: WebhookEnvelope},
)
async def create_webhook(svc: Services, principal: Principal, body: WebhookBody) -> Any:
    egress = Egress(AllowList.parse(svc.settings.webhook_allow_hosts))
    try:
        await egress.check_url(str(body.url))
    except RefusedTarget as exc:
        issue = Issue("refused_target", ("url",), REFUSED.format(detail=exc))
        raise ValidationFailed([issue]) from None
    newest = await svc.store.list_activity(
        principal.account_id, module_ids=None, record_id=None, types=(), limit=1
    )
    data = {
        "url": str(body.url),
        "eventTypes": [kind.value for kind in body.eventTypes],
        "secret": "whsec_" + secrets.token_urlsafe(32),
        # deliveries start with the next write
        "cursor": newest[0]["seq"] if newest else 0,
    }
    write = ObjectWrite(WEBHOOK, new_id(), data, "active")
    rows = await svc.actors.ask(
        principal.account_id, ApplyObjects((write,), actor_user_id=principal.user_id)
    )
    return {"webhook": _hook(rows[0], secret=True)}, 201


@routes.endpoint(
    "GET",
    "/v1/webhooks",
    summary="The workspace's webhooks",
    scope="workspace:read",
    admin_only=True,
    tag="webhooks",
    responses={200: WebhookList},
)
async def list_webhooks(svc: Services, principal: Principal) -> Any:
    rows = await svc.store.list_objects(principal.account_id, WEBHOOK, status="active")
    return {"webhooks": [_hook(r) for r in rows]}


@routes.endpoint(
    "DELETE",
    "/v1/webhooks/{webhookId}",
    summary="Delete a webhook (its pending deliveries are dropped)",
    scope="records:write",
    admin_only=True,
    tag="webhooks",
    responses={204: None},
)
async def delete_webhook(svc: Services, principal: Principal, webhookId: str) -> Any:
    row = await _live_hook(svc, principal, webhookId)
    write = ObjectWrite(WEBHOOK, row.object_id, {}, "deleted", mode="update", expect=("active",))
    await svc.actors.ask(principal.account_id, ApplyObjects((write,)))
    return None, 204


@routes.endpoint(
    "GET",
    "/v1/webhooks/{webhookId}/deliveries",
    summary="A webhook's delivery log, newest first (the last 100)",
    scope="workspace:read",
    admin_only=True,
    tag="webhooks",
    responses={200: DeliveryList},
)
async def list_deliveries(svc: Services, principal: Principal, webhookId: str) -> Any:
    row = await _live_hook(svc, principal, webhookId)
    # a delivery's id is "<webhook id>-<activity seq>": one key range of the objects table
    rows = await svc.store.list_objects(
        principal.account_id, DELIVERY, limit=100, id_prefix=f"{row.object_id}-"
    )
    return {"deliveries": [_delivery(r) for r in rows]}


@routes.endpoint(
    "POST",
    "/v1/webhooks/{webhookId}/deliveries/{deliveryId}/replay",
    summary="Send a delivery again (whatever its status), with fresh retries",
    scope="records:write",
    admin_only=True,
    tag="webhooks",
    responses={200: DeliveryEnvelope},
)
async def replay_delivery(
    svc: Services, principal: Principal, webhookId: str, deliveryId: str
) -> Any:
    await _live_hook(svc, principal, webhookId)
    row = await svc.store.get_object(principal.account_id, DELIVERY, deliveryId)
    if row is None or row.data.get("webhookId") != webhookId:
        raise NotFound(f"Delivery {deliveryId} not found")
    write = ObjectWrite(
        DELIVERY,
        row.object_id,
        {"attemptCount": 0},
        "pending",
        mode="update",
        expect=("pending", "delivered", "failed"),
        due_at=stamp(WallClock().now()),
    )
    rows = await svc.actors.ask(principal.account_id, ApplyObjects((write,)))
    return {"delivery": _delivery(rows[0])}
