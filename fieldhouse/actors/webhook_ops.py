"""Webhooks of a workspace: the use cases behind ``/v1/webhooks`` (register, list, delete,
the delivery log, replay) and the workspace actor's messages that write them.

Every function takes the principal who acts; the route checks only the scopes and the role.
A webhook's target must reach a public address (checked here at registration, and again by
the dispatcher at every delivery); its deliveries start with the next write of the workspace.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass, replace

from fieldhouse.actors.context import WriteContext
from fieldhouse.actors.messages import Message
from fieldhouse.actors.rights import may_administer
from fieldhouse.actors.system import ActorSystem
from fieldhouse.config import Settings
from fieldhouse.egress import AllowList, Egress, RefusedTarget
from fieldhouse.model.clock import new_id
from fieldhouse.model.errors import Issue, NotFound, ValidationFailed
from fieldhouse.model.principal import Principal
from fieldhouse.model.webhooks import (
    DELIVERY,
    WEBHOOK,
    Delivery,
    DeliveryStatus,
    HookStatus,
    Webhook,
)
from fieldhouse.storage.objects import ObjectRow
from fieldhouse.storage.store import Store

REFUSED = (
    "{detail}: a webhook may only target public addresses (the server's operator can allow "
    "a host with FIELDHOUSE_WEBHOOK_ALLOW_HOSTS)"
)
#: the deliveries a log shows (the newest)
LOG_SIZE = 100


@dataclass(frozen=True)
class CreateWebhook(Message[Webhook]):
    hook: Webhook

    async def apply(self, ctx: WriteContext) -> Webhook:
        await may_administer(ctx, self.by)
        hook = replace(self.hook, created_at=ctx.now)
        await ctx.txn.put_object(_row(ctx, WEBHOOK, hook.webhook_id, hook.data(), hook.status))
        return hook


@dataclass(frozen=True)
class DeleteWebhook(Message[None]):
    """A live webhook is deleted (its pending deliveries are dropped when they come due)."""

    webhook_id: str

    async def apply(self, ctx: WriteContext) -> None:
        await may_administer(ctx, self.by)
        row = await _live_row(ctx, self.webhook_id)
        await ctx.txn.put_object(replace(row, status=HookStatus.DELETED, updated_at=ctx.now))


@dataclass(frozen=True)
class ReplayDelivery(Message[Delivery]):
    """A delivery of a live webhook is due again now, whatever its status, with fresh retries
    (its past attempts stay in its log)."""

    webhook_id: str
    delivery_id: str

    async def apply(self, ctx: WriteContext) -> Delivery:
        await may_administer(ctx, self.by)
        await _live_row(ctx, self.webhook_id)
        row = await ctx.txn.get_object(DELIVERY, self.delivery_id)
        if row is None or row.data.get("webhookId") != self.webhook_id:
            raise NotFound(f"Delivery {self.delivery_id} not found")
        old = Delivery.from_row(row)
        again = replace(old, status=DeliveryStatus.PENDING, attempt_count=0, due_at=ctx.now)
        await ctx.txn.put_object(
            replace(row, data=again.data(), status=again.status, due_at=ctx.now, updated_at=ctx.now)
        )
        return again


def _row(
    ctx: WriteContext, kind: str, object_id: str, data: dict[str, object], status: str
) -> ObjectRow:
    return ObjectRow(ctx.account_id, kind, object_id, dict(data), status, None, ctx.now, ctx.now)


async def _live_row(ctx: WriteContext, webhook_id: str) -> ObjectRow:
    row = await ctx.txn.get_object(WEBHOOK, webhook_id)
    if row is None or row.status != HookStatus.ACTIVE:
        raise NotFound(f"Webhook {webhook_id} not found")
    return row


async def register_webhook(
    actors: ActorSystem,
    store: Store,
    settings: Settings,
    principal: Principal,
    url: str,
    event_types: Sequence[str],
) -> Webhook:
    """Register a webhook of the principal's workspace, with a new signing secret; 400 when
    its URL does not reach a public address (nor a host the operator allowed)."""
    egress = Egress(AllowList.parse(settings.webhook_allow_hosts))
    try:
        await egress.check_url(url)
    except RefusedTarget as exc:
        issue = Issue("refused_target", ("url",), REFUSED.format(detail=exc))
        raise ValidationFailed([issue]) from None
    newest = await store.list_activity(
        principal.account_id, module_ids=None, record_id=None, types=(), limit=1
    )
    hook = Webhook(
        new_id(),
        url,
        tuple(event_types),
        "whsec_" + secrets.token_urlsafe(32),
        # deliveries start with the next write
        newest[0]["seq"] if newest else 0,
    )
    return await actors.ask(CreateWebhook(hook, by=principal))


async def list_webhooks(store: Store, principal: Principal) -> list[Webhook]:
    """The live webhooks of the principal's workspace, newest first."""
    rows = await store.list_objects(principal.account_id, WEBHOOK, status=HookStatus.ACTIVE)
    return [Webhook.from_row(r) for r in rows]


async def live_webhook(store: Store, principal: Principal, webhook_id: str) -> Webhook:
    """A live webhook of the principal's workspace (404 otherwise)."""
    row = await store.get_object(principal.account_id, WEBHOOK, webhook_id)
    if row is None or row.status != HookStatus.ACTIVE:
        raise NotFound(f"Webhook {webhook_id} not found")
    return Webhook.from_row(row)


async def delivery_log(store: Store, principal: Principal, webhook_id: str) -> list[Delivery]:
    """A live webhook's newest deliveries, newest first (404 for no such webhook)."""
    hook = await live_webhook(store, principal, webhook_id)
    # a delivery's id is "<webhook id>-<activity seq>": one key range of the objects table
    rows = await store.list_objects(
        principal.account_id, DELIVERY, limit=LOG_SIZE, id_prefix=f"{hook.webhook_id}-"
    )
    return [Delivery.from_row(r) for r in rows]


async def delete_webhook(actors: ActorSystem, principal: Principal, webhook_id: str) -> None:
    await actors.ask(DeleteWebhook(webhook_id, by=principal))


async def replay_delivery(
    actors: ActorSystem, principal: Principal, webhook_id: str, delivery_id: str
) -> Delivery:
    return await actors.ask(
        ReplayDelivery(webhook_id, delivery_id, by=principal),
    )
