"""The services a request handler may use, built once by :mod:`fieldhouse.runtime`.

Routes receive them as an argument (``svc``); nothing is looked up from a global or stashed on
the web application.

The agent runtime and its tools are built at their first use (a chat, a run, an approval):
a worker that serves records never loads the agents package (~3 MB a worker).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

import trio

from fieldhouse.actors.system import ActorSystem
from fieldhouse.config import Settings
from fieldhouse.http.auth import Authenticator
from fieldhouse.http.ratelimit import Limiter
from fieldhouse.metrics import Metrics
from fieldhouse.search.service import SearchService
from fieldhouse.storage.store import Store

if TYPE_CHECKING:
    from fieldhouse.agents.registry import GatedExecutor
    from fieldhouse.agents.run import AgentRuntime


@dataclass(frozen=True)
class Services:
    settings: Settings
    store: Store
    actors: ActorSystem
    auth: Authenticator
    limiter: Limiter
    #: None when search is switched off (the endpoints then use their fallbacks)
    search: SearchService | None = None
    #: set when the server starts shutting down; open event streams watch it and end
    shutdown: trio.Event = field(default_factory=trio.Event)
    #: this process's Prometheus metrics (GET /metrics)
    metrics: Metrics = field(default_factory=Metrics)

    @cached_property
    def tools(self) -> GatedExecutor:
        """Every agent tool behind the approval gate (approvals execute through it)."""
        from fieldhouse.agents.registry import build_executor  # (at the first agent request)

        return build_executor()

    @cached_property
    def agents(self) -> AgentRuntime:
        """The agent runtime: the provider the settings name, the tools, the run records."""
        from fieldhouse.agents.providers import make_provider  # (at the first agent request)
        from fieldhouse.agents.run import AgentRuntime

        provider = make_provider(self.settings)
        agents = AgentRuntime(self.settings, self.actors, self.store, provider, self.tools)
        agents.on_end.append(self.metrics.agent_run_ended)
        return agents
