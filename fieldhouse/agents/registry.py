"""The executor over every tool: what the run loop hands each tool call to."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import ValidationError

from fieldhouse.agents.contract import ToolCall, ToolContext, ToolOutcome, ToolSpec
from fieldhouse.agents.gate import parse, run_call
from fieldhouse.agents.tools import ALL_TOOLS, Tool
from fieldhouse.config import Settings
from fieldhouse.storage.objects import ObjectRow


class GatedExecutor:
    """A :class:`~fieldhouse.agents.contract.ToolExecutor`: every call goes through the gate."""

    def __init__(self, tools: Sequence[Tool]) -> None:
        self._tools = {t.spec.name: t for t in tools}

    def specs(self) -> list[ToolSpec]:
        return [t.spec for t in self._tools.values()]

    def names(self) -> frozenset[str]:
        return frozenset(self._tools)

    def external(self) -> frozenset[str]:
        return frozenset(n for n, t in self._tools.items() if t.spec.external)

    def label(self, call: ToolCall) -> str:
        tool = self._tools.get(call.name)
        if tool is None:
            return f"Calling an unknown tool {call.name!r}"
        try:
            return tool.describe(parse(tool, call.arguments))
        except (ValidationError, TypeError, ValueError):
            return f"Using {call.name}"

    async def execute(self, call: ToolCall, ctx: ToolContext) -> ToolOutcome:
        return await run_call(self._tools.get(call.name), call, ctx)

    async def execute_approved(self, approval: ObjectRow, ctx: ToolContext) -> ToolOutcome:
        """Run the call an approval was granted for, using that approval first."""
        call = ToolCall(
            f"approval-{approval.object_id}",
            str(approval.data.get("tool")),
            dict(approval.data.get("arguments") or {}),
        )
        return await run_call(self._tools.get(call.name), call, ctx, approval_id=approval.object_id)


def build_executor(settings: Settings) -> GatedExecutor:
    """The executor over all tools (settings reserved for tools that need configuration)."""
    del settings
    return GatedExecutor(ALL_TOOLS)
