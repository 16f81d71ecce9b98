"""The executor over every tool: what the run loop hands each tool call to."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import ValidationError

from fieldhouse.agents.contract import ToolCall, ToolContext, ToolOutcome, ToolSpec
from fieldhouse.agents.gate import parse, run_approved, run_call
from fieldhouse.agents.tools import ALL_TOOLS, Tool
from fieldhouse.model.agents import Approval


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

    def tool(self, name: str) -> Tool | None:
        return self._tools.get(name)

    async def execute_approved(self, approval: Approval, ctx: ToolContext) -> ToolOutcome:
        """Run the call an approver approved, using that approval up."""
        return await run_approved(self._tools.get(approval.tool), approval, ctx)


def build_executor() -> GatedExecutor:
    """The executor over all tools."""
    return GatedExecutor(ALL_TOOLS)
