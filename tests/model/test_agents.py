"""Agent objects as types: stored data reads back to the same object, one JSON form each."""

from __future__ import annotations

from fieldhouse.model.agents import (
    Approval,
    ApprovalStatus,
    Policy,
    RunRecord,
    RunStatus,
    ToolCallEntry,
)
from fieldhouse.model.principal import Principal, Role
from fieldhouse.storage.objects import ObjectRow

APPROVAL = Approval(
    approval_id="a1",
    tool="email.send",
    arguments={"to": ["ada@example.com"]},
    args_hash="h",
    status=ApprovalStatus.PENDING,
    description="Sending",
    preview={"to": ["ada@example.com"]},
    run_id="r1",
    call_id="c1",
    agent_id=None,
    requested_by="u1",
    requested_key="k1",
    requested_at="2026-01-01T00:00:00.000000Z",
    expires_at="2026-01-08T00:00:00.000000Z",
)


def row(kind: str, object_id: str, data: dict[str, object], status: str) -> ObjectRow:
    return ObjectRow("acc", kind, object_id, data, status, None, "t0", "t1")


def test_an_approval_reads_back_as_stored() -> None:
    back = Approval.from_row(row("approval", "a1", APPROVAL.data(), "pending"))
    assert back == APPROVAL.but(updated_at="t1")
    shown = back.to_json()
    assert shown["id"] == "a1" and shown["status"] == "pending" and "requestedKey" not in shown
    assert back.expired("2026-01-08T00:00:00.000000Z")
    assert not back.expired("2026-01-07T23:59:59.999999Z")


def test_policy_requires_per_tool_and_module() -> None:
    policy = Policy(("email.send",), ("records.update:deals", "records.create"))
    assert policy.requires("records.update", "deals")
    assert not policy.requires("records.update", "contacts")
    assert policy.requires("records.create", "contacts")
    assert Policy.from_row(None) == Policy()
    stored = row("policy", "agents", policy.to_json(), "active")
    assert Policy.from_row(stored) == policy


def test_a_run_reads_back_and_old_statuses_map() -> None:
    entry = ToolCallEntry("c1", "records.get", {"module": "deals"}, "ok", read=[{"recordId": "x"}])
    run = RunRecord(
        "r1", None, "u1", "k1", "hi", "offline", RunStatus.ABORTED, 2, [entry], [], "", 5,
        "gone", "t0",
    )  # fmt: skip
    back = RunRecord.from_row(row("agent_run", "r1", run.data(), "aborted"))
    assert back.tool_calls == [entry] and back.status == RunStatus.ABORTED
    assert "apiKeyId" not in back.to_json() and back.to_json()["updatedDateTime"] == "t1"
    legacy = RunRecord.from_row(row("agent_run", "r2", {"message": "x"}, "completed"))
    assert legacy.status == RunStatus.SUCCEEDED


def test_anyone_but_the_asker_decides_and_only_a_pending_approval_is_due() -> None:
    owner = Role("owner", None, None)

    def who(user: str, key: str | None) -> Principal:
        return Principal("acc", user, user, owner, None, "api_key" if key else "jwt", key, user)

    assert APPROVAL.decidable_by(who("u2", "k2")) and APPROVAL.decidable_by(who("u2", None))
    assert not APPROVAL.decidable_by(who("u1", None))  # the asker, in a session
    assert not APPROVAL.decidable_by(who("u1", "k9"))  # the asker, with another key
    assert not APPROVAL.decidable_by(who("u2", "k1"))  # the asking key, whoever holds it
    assert APPROVAL.due_at == APPROVAL.expires_at
    assert APPROVAL.but(status=ApprovalStatus.REJECTED).due_at is None
