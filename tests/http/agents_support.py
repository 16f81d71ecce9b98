"""Installing an agent runtime with a test provider, executor or settings into an app."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from fieldhouse.agents.contract import ToolExecutor
from fieldhouse.agents.providers import OfflineProvider, Provider
from fieldhouse.agents.registry import build_executor
from fieldhouse.agents.run import AgentRuntime
from fieldhouse.http.routes.agents import RUNTIME_KEY
from fieldhouse.http.server import Runtime


def install_runtime(
    runtime: Runtime,
    provider: Provider | None = None,
    executor: ToolExecutor | None = None,
    **settings: Any,
) -> AgentRuntime:
    """Replace the app's agent runtime (the real executor unless one is given)."""
    merged = replace(runtime.settings, **settings)
    agents = AgentRuntime(
        merged,
        runtime.actors,
        runtime.store,
        provider or OfflineProvider(),
        executor or build_executor(merged),
    )
    runtime.app.extensions[RUNTIME_KEY] = agents
    return agents
