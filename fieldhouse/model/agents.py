"""Agent objects as types: runs, approvals and the agent policy, their statuses, and one JSON
form each (what the API shows). They are stored as workspace objects (``storage/objects.py``);
``from_row`` reads one back, ``data()`` is what is stored.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any, ClassVar, Protocol

# the policy is one of the agent objects (re-exported)
from fieldhouse.model.agent_policy import Policy as Policy
from fieldhouse.model.principal import Principal


class ObjectRow(Protocol):
    """A stored workspace object, as ``storage.objects.ObjectRow`` has it."""

    @property
    def object_id(self) -> str: ...
    @property
    def data(self) -> dict[str, Any]: ...
    @property
    def status(self) -> str | None: ...
    @property
    def due_at(self) -> str | None: ...
    @property
    def created_at(self) -> str: ...
    @property
    def updated_at(self) -> str: ...


class StoredObject(Protocol):
    """A typed workspace object (an approval, a webhook, a delivery, a reminder): what the one
    place that turns it into a stored row needs (``ObjectWrite.of`` in ``actors/object_ops.py``).
    Each type reads itself back with ``from_row``."""

    @property
    def kind(self) -> str: ...
    @property
    def object_id(self) -> str: ...
    @property
    def status(self) -> str: ...
    @property
    def due_at(self) -> str | None: ...
    def data(self) -> dict[str, Any]: ...


class Kind(StrEnum):
    """Kinds of agent objects in the objects table."""

    AGENT = "agent"
    RUN = "agent_run"
    APPROVAL = "approval"
    POLICY = "policy"


class RunStatus(StrEnum):
    """A run's states: ``running`` -> ``waiting`` (its model answered while calls wait for
    approvals), ``succeeded``, ``failed``, ``aborted`` (the client went away) or
    ``interrupted`` (the server process running it died). Waiting, aborted and interrupted
    runs are resumed (back to ``running``) any number of times; succeeded and failed ones
    have ended."""

    RUNNING = "running"
    WAITING = "waiting"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    ABORTED = "aborted"
    INTERRUPTED = "interrupted"


#: the states a run is resumed from
RESUMABLE = frozenset({RunStatus.WAITING, RunStatus.ABORTED, RunStatus.INTERRUPTED})


class ApprovalStatus(StrEnum):
    PENDING = "pending"
    APPROVED = "approved"
    REJECTED = "rejected"
    EXECUTED = "executed"
    #: approved, but running the call failed: never usable again
    FAILED = "failed"
    #: not decided (or not run) before its expiry
    EXPIRED = "expired"


POLICY_ID = "agents"
#: why the person who asked for a call may not decide it
NOT_YOURS = (
    "The person who asked for this call may not decide it, with any of their keys or "
    "sessions: another owner or admin must"
)


def _str(value: Any) -> str | None:
    return None if value is None else str(value)


@dataclass(frozen=True)
class Approval:
    """A request to run exactly one tool call of one run, and what became of it."""

    approval_id: str
    tool: str
    arguments: Mapping[str, Any]
    args_hash: str
    status: ApprovalStatus
    description: str
    preview: Mapping[str, Any]
    run_id: str | None
    call_id: str | None
    agent_id: str | None
    requested_by: str | None
    #: the API key of the request (None for a session); it may never decide it alone
    requested_key: str | None
    requested_at: str
    expires_at: str
    decided_by: str | None = None
    decided_at: str | None = None
    reason: str | None = None
    #: the arguments as the model asked for them, when an approver edited them
    original_arguments: Mapping[str, Any] | None = None
    executed_at: str | None = None
    error: str | None = None
    updated_at: str | None = None
    #: how the requester authenticated ("api_key" or "jwt"; None in approvals stored before
    #: it was kept, which were asked for in a session when ``requested_key`` is None)
    requested_auth: str | None = None
    #: what running the approved call gave (status, summary, result): the model reads it
    #: when its run resumes
    outcome: Mapping[str, Any] | None = None
    kind: ClassVar[str] = Kind.APPROVAL

    @property
    def object_id(self) -> str:
        return self.approval_id

    @property
    def due_at(self) -> str | None:
        """A pending approval is due at its expiry (the scheduler stores it expired then)."""
        return self.expires_at if self.status == ApprovalStatus.PENDING else None

    @classmethod
    def from_row(cls, row: ObjectRow) -> Approval:
        d = row.data
        return cls(
            approval_id=row.object_id,
            tool=str(d.get("tool")),
            arguments=dict(d.get("arguments") or {}),
            args_hash=str(d.get("argsHash") or ""),
            status=ApprovalStatus(row.status or "pending"),
            description=str(d.get("description") or ""),
            preview=dict(d.get("preview") or {}),
            run_id=_str(d.get("runId")),
            call_id=_str(d.get("callId")),
            agent_id=_str(d.get("agentId")),
            requested_by=_str(d.get("requestedBy")),
            requested_key=_str(d.get("requestedKey")),
            requested_at=str(d.get("requestedAt") or row.created_at),
            expires_at=str(d.get("expiresAt") or "9999-12-31T00:00:00.000Z"),
            decided_by=_str(d.get("decidedBy")),
            decided_at=_str(d.get("decidedAt")),
            reason=_str(d.get("reason")),
            original_arguments=d.get("originalArguments"),
            executed_at=_str(d.get("executedAt")),
            error=_str(d.get("error")),
            updated_at=row.updated_at,
            requested_auth=_str(d.get("requestedAuth")),
            outcome=d.get("outcome"),
        )

    def data(self) -> dict[str, Any]:
        """What is stored (the status lives in the row's status column)."""
        return {
            "tool": self.tool,
            "arguments": dict(self.arguments),
            "argsHash": self.args_hash,
            "description": self.description,
            "preview": dict(self.preview),
            "runId": self.run_id,
            "callId": self.call_id,
            "agentId": self.agent_id,
            "requestedBy": self.requested_by,
            "requestedKey": self.requested_key,
            "requestedAt": self.requested_at,
            "expiresAt": self.expires_at,
            "decidedBy": self.decided_by,
            "decidedAt": self.decided_at,
            "reason": self.reason,
            "originalArguments": (
                dict(self.original_arguments) if self.original_arguments is not None else None
            ),
            "executedAt": self.executed_at,
            "error": self.error,
            "requestedAuth": self.requested_auth,
            "outcome": dict(self.outcome) if self.outcome is not None else None,
        }

    def expired(self, now: str) -> bool:
        return self.expires_at <= now

    def decidable_by(self, decider: Principal) -> bool:
        """Whether ``decider`` may decide this call: anyone but the person who asked for it,
        with any of their keys or sessions (the role is the route's to check)."""
        same_key = decider.api_key_id is not None and decider.api_key_id == self.requested_key
        return not same_key and decider.user_id != self.requested_by

    def as_of(self, now: str) -> Approval:
        """What a reader sees at ``now``: a pending approval past its expiry is ``expired``
        (it can no longer be decided) even before anything has written that down."""
        if self.status == ApprovalStatus.PENDING and self.expired(now):
            return self.but(status=ApprovalStatus.EXPIRED)
        return self

    def but(self, **changes: Any) -> Approval:
        return replace(self, **changes)

    def to_json(self) -> dict[str, Any]:
        """The Approval of the API: the stored data without the hash and the requesting key."""
        shown = {k: v for k, v in self.data().items() if k not in ("argsHash", "requestedKey")}
        return {"id": self.approval_id, "status": str(self.status), **shown}


@dataclass
class ToolCallEntry:
    """One tool call of a run, as the run record shows it."""

    call_id: str
    tool: str
    arguments: Mapping[str, Any]
    status: str
    summary: str = ""
    result: Mapping[str, Any] = field(default_factory=dict)
    approval_id: str | None = None
    duration_ms: int = 0
    #: the record text the call read (module, id, displayName), so a reader sees what the
    #: model was shown
    read: list[Mapping[str, Any]] = field(default_factory=list)
    #: who set the policy that let this call run without an approval
    auto_approved_by: str | None = None

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> ToolCallEntry:
        return cls(
            str(d.get("callId")),
            str(d.get("tool")),
            dict(d.get("arguments") or {}),
            str(d.get("status")),
            str(d.get("summary") or ""),
            dict(d.get("result") or {}),
            _str(d.get("approvalId")),
            int(d.get("durationMs") or 0),
            list(d.get("read") or []),
            _str(d.get("autoApprovedBy")),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "callId": self.call_id,
            "tool": self.tool,
            "arguments": dict(self.arguments),
            "status": self.status,
            "summary": self.summary,
            "result": dict(self.result),
            "approvalId": self.approval_id,
            "durationMs": self.duration_ms,
            "read": [dict(r) for r in self.read],
            "autoApprovedBy": self.auto_approved_by,
        }


@dataclass(frozen=True)
class RunRecord:
    """An agent run as stored and as ``GET /v1/agents/runs/{id}`` shows it."""

    run_id: str
    agent_id: str | None
    user_id: str | None
    api_key_id: str | None
    message: str
    provider: str
    status: RunStatus
    steps: int
    tool_calls: list[ToolCallEntry]
    pending_approvals: list[str]
    response: str
    duration_ms: int
    error: str | None
    created_at: str
    updated_at: str | None = None
    #: how the requester authenticated ("api_key" or "jwt"): with user_id and api_key_id, who
    #: the run acts for, whoever resumes it
    auth_method: str | None = None
    #: the server process running it (while ``running``) and until when its lease holds:
    #: a running run whose lease ran out was in a process that died
    lease_owner: str | None = None
    lease_until: str | None = None

    @classmethod
    def from_row(cls, row: ObjectRow) -> RunRecord:
        d = row.data
        status = row.status or RunStatus.RUNNING
        return cls(
            run_id=row.object_id,
            agent_id=_str(d.get("agentId")),
            user_id=_str(d.get("userId")),
            api_key_id=_str(d.get("apiKeyId")),
            message=str(d.get("message") or ""),
            provider=str(d.get("provider") or ""),
            # runs stored before the statuses were named "succeeded" said "completed"
            status=RunStatus.SUCCEEDED if status == "completed" else RunStatus(status),
            steps=int(d.get("steps") or 0),
            tool_calls=[ToolCallEntry.from_json(e) for e in d.get("toolCalls") or []],
            pending_approvals=[str(a) for a in d.get("pendingApprovals") or []],
            response=str(d.get("response") or ""),
            duration_ms=int(d.get("durationMs") or 0),
            error=_str(d.get("error")),
            created_at=row.created_at,
            updated_at=row.updated_at,
            auth_method=_str(d.get("authMethod")),
            lease_owner=_str(d.get("leaseOwner")),
            lease_until=row.due_at,
        )

    @property
    def resumable(self) -> bool:
        """Whether the run may go on: waiting, aborted or interrupted (or, stored before runs
        waited by name, ended with a call still waiting for its approval)."""
        if self.status in RESUMABLE:
            return True
        legacy_wait = any(e.status == "pending_approval" for e in self.tool_calls)
        return self.status == RunStatus.SUCCEEDED and legacy_wait and self.auth_method is None

    def data(self) -> dict[str, Any]:
        return {
            "runId": self.run_id,
            "agentId": self.agent_id,
            "userId": self.user_id,
            "apiKeyId": self.api_key_id,
            "message": self.message,
            "provider": self.provider,
            "status": str(self.status),
            "steps": self.steps,
            "toolCalls": [e.to_json() for e in self.tool_calls],
            "pendingApprovals": list(self.pending_approvals),
            "response": self.response,
            "durationMs": self.duration_ms,
            "error": self.error,
            "authMethod": self.auth_method,
            "leaseOwner": self.lease_owner,
        }

    def to_json(self) -> dict[str, Any]:
        """The AgentRun of the API (without the requester's key id and the lease)."""
        body = self.data()
        del body["apiKeyId"], body["leaseOwner"]
        return {**body, "createdDateTime": self.created_at, "updatedDateTime": self.updated_at}


#: the object kinds of the outreach tools' emails and social posts (the scheduler sends
#: and posts them without loading the tools)
EMAIL = "email"
POST = "social_post"


class EmailStatus(StrEnum):
    DRAFT = "draft"
    QUEUED = "queued"
    SENDING = "sending"
    SENT = "sent"
    FAILED = "failed"


class PostStatus(StrEnum):
    DRAFT = "draft"
    SCHEDULED = "scheduled"
    POSTED = "posted"


class PageStatus(StrEnum):
    DRAFT = "draft"
    PUBLISHED = "published"


class SequenceStatus(StrEnum):
    DRAFT = "draft"
    SCHEDULED = "scheduled"


class ReminderStatus(StrEnum):
    SCHEDULED = "scheduled"
    FIRED = "fired"
