"""The services a request handler may use, built once by :mod:`fieldhouse.runtime`.

Routes receive them as an argument (``svc``); nothing is looked up from a global or stashed on
the web application.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import trio

from fieldhouse.actors.system import ActorSystem
from fieldhouse.agents.registry import GatedExecutor
from fieldhouse.agents.run import AgentRuntime
from fieldhouse.config import Settings
from fieldhouse.http.auth import Authenticator
from fieldhouse.http.ratelimit import Limiter
from fieldhouse.metrics import Metrics
from fieldhouse.search.service import SearchService
from fieldhouse.storage.store import Store


@dataclass(frozen=True)
class Services:
    settings: Settings
    store: Store
    actors: ActorSystem
    auth: Authenticator
    limiter: Limiter
    agents: AgentRuntime
    #: every agent tool behind the approval gate (approvals execute through it)
    tools: GatedExecutor
    #: None when search is switched off (the endpoints then use their fallbacks)
    search: SearchService | None = None
    #: set when the server starts shutting down; open event streams watch it and end
    shutdown: trio.Event = field(default_factory=trio.Event)
    #: this process's Prometheus metrics (GET /metrics)
    metrics: Metrics = field(default_factory=Metrics)
