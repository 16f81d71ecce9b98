"""The webhook use cases, without HTTP: registration refuses internal targets and writes
nothing, a webhook is its workspace's alone, deletion and replay act on live webhooks only, and
a replayed delivery starts its retries afresh with its log kept."""

from __future__ import annotations

from dataclasses import replace

import pytest

from fieldhouse.actors import webhook_ops as hooks
from fieldhouse.actors.object_ops import ApplyObjects, ObjectWrite
from fieldhouse.config import Settings
from fieldhouse.model.errors import NotFound, ValidationFailed
from fieldhouse.model.webhooks import DELIVERY, DeliveryStatus
from fieldhouse.runtime import Runtime
from tests.agents.toolkit import principal_of
from tests.conftest import Workspace, make_workspace

#: allowed, and nothing listens there: a delivery the dispatcher sends fails at once
TARGET = "http://127.0.0.1:1/hook"


@pytest.fixture
def settings(settings: Settings) -> Settings:
    return replace(settings, webhook_allow_hosts=("127.0.0.1:1",))


async def test_an_internal_target_is_refused_and_nothing_is_written(
    runtime: Runtime, ws: Workspace
) -> None:
    owner = await principal_of(runtime, ws)
    with pytest.raises(ValidationFailed) as caught:
        await hooks.register_webhook(
            runtime.actors, runtime.store, runtime.settings, owner, "http://127.0.0.1:2/", []
        )
    assert [i.path for i in caught.value.issues] == [("url",)]
    assert await hooks.list_webhooks(runtime.store, owner) == []


async def test_a_webhook_is_its_workspaces_alone_until_deleted(
    runtime: Runtime, ws: Workspace
) -> None:
    owner = await principal_of(runtime, ws)
    other = await principal_of(runtime, await make_workspace(runtime, "Other"))
    newest = await runtime.store.list_activity(
        ws.account_id, module_ids=None, record_id=None, types=(), limit=1
    )
    url = "http://ann:pw@127.0.0.1:1/hook"
    hook = await hooks.register_webhook(
        runtime.actors, runtime.store, runtime.settings, owner, url, ["record_created"]
    )
    assert hook.cursor == (newest[0]["seq"] if newest else 0)  # deliveries start after it
    assert (
        hook.secret.startswith("whsec_") and hook.to_json()["url"] == "http://***@127.0.0.1:1/hook"
    )
    assert "secret" not in hook.to_json() and hook.to_json(secret=True)["secret"] == hook.secret
    assert await hooks.list_webhooks(runtime.store, owner) == [hook]
    assert await hooks.list_webhooks(runtime.store, other) == []
    with pytest.raises(NotFound):
        await hooks.delete_webhook(runtime.actors, other, hook.webhook_id)
    with pytest.raises(NotFound):
        await hooks.delivery_log(runtime.store, other, hook.webhook_id)
    await hooks.delete_webhook(runtime.actors, owner, hook.webhook_id)
    assert await hooks.list_webhooks(runtime.store, owner) == []
    with pytest.raises(NotFound):
        await hooks.delete_webhook(runtime.actors, owner, hook.webhook_id)


async def test_a_replayed_delivery_retries_afresh_and_keeps_its_log(
    runtime: Runtime, ws: Workspace
) -> None:
    owner = await principal_of(runtime, ws)
    args = (runtime.actors, runtime.store, runtime.settings, owner)
    hook = await hooks.register_webhook(*args, TARGET, [])
    second = await hooks.register_webhook(*args, TARGET, [])
    tried = [{"at": "2026-01-01T00:00:00.000000Z", "statusCode": 500}]
    data = {
        "webhookId": hook.webhook_id,
        "event": {"seq": 7},
        "attemptCount": 10,
        "attempts": tried,
    }
    seeded = ObjectWrite(DELIVERY, f"{hook.webhook_id}-7", data, "failed")
    await runtime.actors.ask(ApplyObjects((seeded,), by=ws.system))
    with pytest.raises(NotFound, match="Delivery"):
        await hooks.replay_delivery(runtime.actors, owner, second.webhook_id, seeded.object_id)
    again = await hooks.replay_delivery(runtime.actors, owner, hook.webhook_id, seeded.object_id)
    assert again.status == DeliveryStatus.PENDING and again.attempt_count == 0
    assert again.attempts == tuple(tried) and again.due_at is not None
    assert again.to_json()["nextAttemptAt"] == again.due_at
    (logged,) = await hooks.delivery_log(runtime.store, owner, hook.webhook_id)
    assert logged.delivery_id == seeded.object_id and logged.attempts[0] == tried[0]
    assert await hooks.delivery_log(runtime.store, owner, second.webhook_id) == []
