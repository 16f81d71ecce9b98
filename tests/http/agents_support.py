"""Installing an agent runtime with a test provider, executor or settings into an app."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from fieldhouse.agents.contract import ToolExecutor
from fieldhouse.agents.providers import OfflineProvider, Provider
from fieldhouse.agents.registry import build_executor
from fieldhouse.agents.run import AgentRuntime
from fieldhouse.runtime import Runtime


def install_runtime(
    runtime: Runtime,
    provider: Provider | None = None,
    executor: ToolExecutor | None = None,
    **settings: Any,
) -> AgentRuntime:
    """Give the app's agent runtime a test provider, executor or settings (the real executor
    unless one is given); the app keeps the same AgentRuntime object."""
    agents = runtime.services.agents
    agents.settings = replace(runtime.settings, **settings)
    agents.provider = provider or OfflineProvider()
    agents.executor = executor or build_executor()
    return agents
