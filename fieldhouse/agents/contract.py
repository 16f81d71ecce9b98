"""The seam between the agent run loop (run.py, providers/) and the tools (tools/, gate.py).

The loop asks a provider for the next step, and hands every tool call the provider returns to
a :class:`ToolExecutor`, which passes it through the approval gate before anything runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

if TYPE_CHECKING:
    from fieldhouse.actors.system import ActorSystem
    from fieldhouse.config import Settings
    from fieldhouse.model.principal import Principal
    from fieldhouse.storage.store import Store

OutcomeStatus = Literal["ok", "pending_approval", "rejected", "error", "aborted"]


@dataclass(frozen=True)
class ToolSpec:
    """What a provider is told about a tool (OpenAI/Anthropic tool definitions are made from it)."""

    name: str
    description: str
    #: JSON Schema (draft 2020-12) of the arguments object
    parameters: Mapping[str, Any]
    #: True for tools with external effects: they run only after an approval for exactly
    #: these arguments has been granted
    external: bool = False


@dataclass(frozen=True)
class ToolCall:
    call_id: str
    name: str
    arguments: Mapping[str, Any]


@dataclass(frozen=True)
class ToolOutcome:
    status: OutcomeStatus
    #: structured result fed back to the model (never streamed raw to the client)
    result: Mapping[str, Any] = field(default_factory=dict)
    #: one short human sentence built from the result ("Created contact Ada Lovelace.")
    summary: str = ""
    #: set when status is pending_approval
    approval_id: str | None = None
    #: the records whose text the call read (module, recordId, displayName)
    read: tuple[Mapping[str, Any], ...] = ()
    #: set when the policy let an external call run without an approval: who set it
    auto_approved_by: str | None = None


@dataclass(frozen=True)
class ToolContext:
    """Who runs the tool and with what: tools obey the permissions of ``principal``, which is
    always the run's requester with their rights as read just before the call (never whoever
    resumed the run or approved the call)."""

    principal: Principal
    actors: ActorSystem
    store: Store
    settings: Settings
    run_id: str
    agent_id: str | None
    #: record writes the run has made so far without an approval (the policy's
    #: ``recordWritesWithoutApproval`` makes the writes past it wait for one)
    record_writes: int = 0


class ToolExecutor(Protocol):
    def specs(self) -> list[ToolSpec]:
        """Every tool the model may call."""

    def label(self, call: ToolCall) -> str:
        """A short human-readable description for the stream's tool_call event."""

    async def execute(self, call: ToolCall, ctx: ToolContext) -> ToolOutcome:
        """Run one call through the approval gate. Never raises for a bad call: unknown tools,
        invalid arguments and permission problems come back as status "error"."""
