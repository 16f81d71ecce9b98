"""Webhooks of a workspace: register, list, delete, their delivery log and replay. The use
cases live in ``actors/webhook_ops.py``; this module parses, checks scopes and shapes answers."""

from __future__ import annotations

from typing import Any

from pydantic import AnyHttpUrl, Field

from fieldhouse.actors import webhook_ops as hooks
from fieldhouse.http.endpoint import Routes
from fieldhouse.http.models import Open, Strict, Timestamp, Uuid
from fieldhouse.model.activity import ActivityKind
from fieldhouse.model.principal import Principal
from fieldhouse.services import Services

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
    types = [kind.value for kind in body.eventTypes]
    hook = await hooks.register_webhook(
        svc.actors, svc.store, svc.settings, principal, str(body.url), types
    )
    return {"webhook": hook.to_json(secret=True)}, 201


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
    return {"webhooks": [h.to_json() for h in await hooks.list_webhooks(svc.store, principal)]}


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
    await hooks.delete_webhook(svc.actors, principal, webhookId)
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
    log = await hooks.delivery_log(svc.store, principal, webhookId)
    return {"deliveries": [d.to_json() for d in log]}


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
    delivery = await hooks.replay_delivery(svc.actors, principal, webhookId, deliveryId)
    return {"delivery": delivery.to_json()}
