"""The agent policy as a type: what it reads back from storage, its caps' defaults and bounds,
and whom its auto-approval covers."""

from __future__ import annotations

from fieldhouse.model.agent_policy import (
    BOUNDS,
    MAX_ARGUMENT_BYTES,
    MAX_CALLS_PER_RUN,
    MAX_CALLS_PER_STEP,
    RECORD_WRITES_WITHOUT_APPROVAL,
    Policy,
)
from fieldhouse.storage.objects import ObjectRow


def stored(data: dict[str, object]) -> ObjectRow:
    return ObjectRow("acc", "policy", "agents", data, "active", None, "t0", "t1")


def test_defaults_and_a_round_trip() -> None:
    default = Policy()
    assert (
        default.max_calls_per_step,
        default.max_calls_per_run,
        default.max_argument_bytes,
        default.record_writes_without_approval,
    ) == (MAX_CALLS_PER_STEP, MAX_CALLS_PER_RUN, MAX_ARGUMENT_BYTES, RECORD_WRITES_WITHOUT_APPROVAL)
    for name, value in (
        ("maxToolCallsPerStep", MAX_CALLS_PER_STEP),
        ("maxToolCallsPerRun", MAX_CALLS_PER_RUN),
        ("maxArgumentBytes", MAX_ARGUMENT_BYTES),
        ("recordWritesWithoutApproval", RECORD_WRITES_WITHOUT_APPROVAL),
    ):
        low, high = BOUNDS[name]
        assert low <= value <= high
    set_ = Policy(("email.send",), ("records.update:deals",), "u1", 3, 30, 2048, 0)
    assert Policy.from_row(stored(set_.to_json())) == set_
    assert Policy.from_row(stored({"maxToolCallsPerRun": 10_000})).max_calls_per_run == 50


def test_auto_approval_is_never_for_its_setter_nor_without_one() -> None:
    policy = Policy(("email.send",), set_by="owner")
    assert policy.auto_approves("email.send", "member")
    assert not policy.auto_approves("email.send", "owner")
    assert not policy.auto_approves("pages.publish", "member")
    assert not Policy.from_row(stored({"autoApprove": ["email.send"]})).auto_approves(
        "email.send", "member"
    )
