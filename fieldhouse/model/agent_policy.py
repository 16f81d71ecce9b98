"""The workspace's agent policy: which tools run without an approval, which record writes need
one, and the caps on what one run may do. Stored as the workspace object ``policy/agents``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

#: defaults of the caps, and the bounds an owner or admin may set them within
MAX_CALLS_PER_STEP = 10
MAX_CALLS_PER_RUN = 50
MAX_ARGUMENT_BYTES = 256 * 1024
RECORD_WRITES_WITHOUT_APPROVAL = 20
BOUNDS = {
    "maxToolCallsPerStep": (1, 50),
    "maxToolCallsPerRun": (1, 500),
    "maxArgumentBytes": (1024, 1024 * 1024),
    "recordWritesWithoutApproval": (0, 500),
}
#: the record tools whose writes count toward ``recordWritesWithoutApproval``
RECORD_WRITES = frozenset({"records.create", "records.update"})


class _Row(Protocol):
    @property
    def data(self) -> dict[str, Any]: ...


def _int(data: dict[str, Any], name: str, default: int) -> int:
    value = data.get(name)
    low, high = BOUNDS[name]
    if isinstance(value, int) and not isinstance(value, bool) and low <= value <= high:
        return value
    return default


@dataclass(frozen=True)
class Policy:
    """Which tools run without an approval, which record writes need one, and the caps.

    Auto-approval is an approval given in advance by the owner or admin who set the policy
    (``set_by``): it never approves that person's own calls, exactly as they may not approve
    their own call by hand. A policy stored without ``setBy`` auto-approves nothing."""

    auto_approve: tuple[str, ...] = ()
    #: "tool" or "tool:module" entries (records.update, records.update:deals)
    require_approval: tuple[str, ...] = ()
    #: the user who set the policy last
    set_by: str | None = None
    #: tool calls one model step may make; the calls past it are not run
    max_calls_per_step: int = MAX_CALLS_PER_STEP
    #: tool calls one run may make (over all its resumes); the run stops there
    max_calls_per_run: int = MAX_CALLS_PER_RUN
    #: the size of one call's arguments as UTF-8 JSON; a larger call is not run or kept
    max_argument_bytes: int = MAX_ARGUMENT_BYTES
    #: record writes (records.create, records.update) a run makes without an approval; the
    #: writes past them wait for one
    record_writes_without_approval: int = RECORD_WRITES_WITHOUT_APPROVAL

    @classmethod
    def from_row(cls, row: _Row | None) -> Policy:
        if row is None:
            return cls()
        d = row.data
        set_by = d.get("setBy")
        return cls(
            tuple(str(n) for n in d.get("autoApprove", [])),
            tuple(str(n) for n in d.get("requireApproval", [])),
            str(set_by) if set_by else None,
            _int(d, "maxToolCallsPerStep", MAX_CALLS_PER_STEP),
            _int(d, "maxToolCallsPerRun", MAX_CALLS_PER_RUN),
            _int(d, "maxArgumentBytes", MAX_ARGUMENT_BYTES),
            _int(d, "recordWritesWithoutApproval", RECORD_WRITES_WITHOUT_APPROVAL),
        )

    def requires(self, tool: str, module: str | None) -> bool:
        return tool in self.require_approval or (
            module is not None and f"{tool}:{module}" in self.require_approval
        )

    def auto_approves(self, tool: str, requester_user_id: str | None) -> bool:
        """Whether ``tool`` runs without an approval for this requester: listed, and set by
        someone else (nobody approves their own calls)."""
        return (
            tool in self.auto_approve
            and self.set_by is not None
            and self.set_by != requester_user_id
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "autoApprove": list(self.auto_approve),
            "requireApproval": list(self.require_approval),
            "setBy": self.set_by,
            "maxToolCallsPerStep": self.max_calls_per_step,
            "maxToolCallsPerRun": self.max_calls_per_run,
            "maxArgumentBytes": self.max_argument_bytes,
            "recordWritesWithoutApproval": self.record_writes_without_approval,
        }
