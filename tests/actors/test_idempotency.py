"""Idempotency keys decided by the workspace actor (no HTTP), on both backends: a key is
claimed once, its first answer is replayed, another request under it is refused, and a write
made under it marks it in the same commit."""

from __future__ import annotations

import time

import pytest

from fieldhouse.actors import idempotency
from fieldhouse.actors.admin_ops import CreateLabel
from fieldhouse.actors.idempotency import (
    KIND,
    RECORDING,
    Claim,
    Finish,
    Recorded,
    wrap_recorded,
)
from fieldhouse.actors.object_ops import ApplyObjects, ObjectWrite
from fieldhouse.model.errors import Conflict, Unprocessable
from fieldhouse.runtime import Runtime
from tests.conftest import Workspace

KEY = "key-1"


async def status_of(runtime: Runtime, ws: Workspace) -> str | None:
    row = await runtime.store.get_object(ws.account_id, KIND, KEY)
    return None if row is None else row.status


async def labels(runtime: Runtime, ws: Workspace) -> list[str]:
    return sorted(label["name"] for label in await runtime.store.list_labels(ws.account_id))


async def test_the_first_answer_is_replayed(runtime: Runtime, ws: Workspace) -> None:
    ask = runtime.actors.ask
    assert await ask(Claim(KEY, "POST /labels A", by=ws.system)) is None
    with pytest.raises(Conflict) as busy:
        await ask(Claim(KEY, "POST /labels A", by=ws.system))
    assert busy.value.code == "idempotency_in_progress"
    assert busy.value.headers == {"Retry-After": "1"}
    await ask(Finish(KEY, 201, {"id": "label-1"}, by=ws.system))
    for _ in range(2):
        replay = await ask(Claim(KEY, "POST /labels A", by=ws.system))
        assert replay is not None and replay.status == "done"
        assert (replay.data["status"], replay.data["body"]) == (201, {"id": "label-1"})


async def test_another_request_under_the_same_key_is_refused(
    runtime: Runtime, ws: Workspace
) -> None:
    ask = runtime.actors.ask
    await ask(Claim(KEY, "POST /labels A", by=ws.system))
    with pytest.raises(Unprocessable) as running:
        await ask(Claim(KEY, "POST /labels B", by=ws.system))
    await ask(Finish(KEY, 201, {"id": "label-1"}, by=ws.system))
    with pytest.raises(Unprocessable) as done:
        await ask(Claim(KEY, "POST /labels B", by=ws.system))
    assert running.value.code == done.value.code == "idempotency_key_reused"
    # the refused request changed nothing: the first answer is still the one replayed
    replay = await ask(Claim(KEY, "POST /labels A", by=ws.system))
    assert replay is not None and replay.data["body"] == {"id": "label-1"}


async def test_a_write_under_a_key_marks_it_in_the_same_commit(
    runtime: Runtime, ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    ask = runtime.actors.ask
    await ask(Claim(KEY, "fp", by=ws.system))
    # a write that fails leaves the key unmarked: the request may be retried
    await ask(CreateLabel("Taken", by=ws.system))
    with pytest.raises(Conflict):
        await ask(Recorded(CreateLabel("Taken", by=ws.system), KEY, by=ws.system))
    assert await status_of(runtime, ws) == "running"
    made = await ask(Recorded(CreateLabel("VIP", by=ws.system), KEY, by=ws.system))
    assert made["name"] == "VIP"
    assert await status_of(runtime, ws) == "committed"
    assert await labels(runtime, ws) == ["Taken", "VIP"]
    # written, its answer on the way: a retry now is told to retry shortly, and never writes
    with pytest.raises(Conflict) as waiting:
        await ask(Claim(KEY, "fp", by=ws.system))
    assert waiting.value.code == "idempotency_in_progress"
    # written but unanswered for ANSWER_SECONDS: the answer was lost
    monkeypatch.setattr(idempotency, "ANSWER_SECONDS", 0.0)
    with pytest.raises(Conflict) as lost:
        await ask(Claim(KEY, "fp", by=ws.system))
    assert lost.value.code == "idempotency_response_lost"
    # a server error after the write is stored as the answer, not released
    await ask(Finish(KEY, 500, {"error": "late"}, release_unwritten=True, by=ws.system))
    replay = await ask(Claim(KEY, "fp", by=ws.system))
    assert replay is not None and replay.data["status"] == 500
    assert await labels(runtime, ws) == ["Taken", "VIP"]


async def test_an_unwritten_failure_releases_the_key(runtime: Runtime, ws: Workspace) -> None:
    ask = runtime.actors.ask
    await ask(Claim(KEY, "fp", by=ws.system))
    await ask(Finish(KEY, 503, {"error": "busy"}, release_unwritten=True, by=ws.system))
    assert await status_of(runtime, ws) == "released"
    # released: the next request under the key runs afresh, even with another body
    assert await ask(Claim(KEY, "other", by=ws.system)) is None
    assert await status_of(runtime, ws) == "running"
    # finishing a key that was never claimed stores nothing
    await ask(Finish("never-claimed", 200, {}, by=ws.system))
    assert await runtime.store.get_object(ws.account_id, KIND, "never-claimed") is None


@pytest.mark.parametrize(
    ("lease", "expires", "fingerprint"),
    [
        (-1, 3600, "fp"),  # a claim whose process died may be taken over
        (3600, -1, "different"),  # an expired key is forgotten, whatever it was used for
    ],
)
async def test_a_stale_claim_is_taken_over(
    runtime: Runtime, ws: Workspace, lease: float, expires: float, fingerprint: str
) -> None:
    now = time.time()
    data = {"fingerprint": "fp", "leaseUntil": now + lease, "expiresAt": now + expires}
    stale = ObjectWrite(KIND, KEY, data, "running", mode="upsert")
    await runtime.actors.ask(ApplyObjects((stale,), by=ws.system))
    assert await runtime.actors.ask(Claim(KEY, fingerprint, by=ws.system)) is None
    row = await runtime.store.get_object(ws.account_id, KIND, KEY)
    assert row is not None and row.status == "running"
    assert row.data["fingerprint"] == fingerprint and row.data["leaseUntil"] > now + 60


async def test_messages_sent_while_a_keyed_request_is_served_are_recorded(
    runtime: Runtime, ws: Workspace
) -> None:
    plain = CreateLabel("Plain", by=ws.as_owner)
    assert wrap_recorded(plain) is plain
    await runtime.actors.ask(Claim(KEY, "fp", by=ws.system))
    token = RECORDING.set(KEY)
    try:
        wrapped = wrap_recorded(plain)
        assert wrapped == Recorded(plain, KEY, by=ws.as_owner)
        finish = Finish(KEY, 200, {}, by=ws.system)
        assert wrap_recorded(finish) is finish
        assert wrap_recorded(wrapped) is wrapped
        await runtime.actors.ask(CreateLabel("Keyed", by=ws.system))
    finally:
        RECORDING.reset(token)
    assert await status_of(runtime, ws) == "committed"
    assert await labels(runtime, ws) == ["Keyed"]
