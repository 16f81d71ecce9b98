"""A running run's lease: how a process that died is told apart from one that is still working.

While a run is ``running`` its stored ``due_at`` is the end of its lease and ``leaseOwner`` the
process running it (``AgentRuntime.instance``). That process renews the lease every
LEASE_RENEW_SECONDS; a lease that ran out (LEASE_SECONDS after the last renewal) belongs to a
process that died (SIGKILL, a crash, a lost machine) or stalled, and the scheduler's sweep
(``scheduler.sweep_runs``, at start and at every tick) stores the run ``interrupted``. This
holds with any number of worker processes and servers over one database: only runs whose
process stopped renewing are swept. A process whose run was swept while it stalled finds out at
its next write (``SaveRun`` refuses it) and stops: :class:`LeaseLost`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import trio

from fieldhouse.actors.system import ActorSystem
from fieldhouse.agents.run_writes import RenewLease
from fieldhouse.model.clock import to_iso
from fieldhouse.model.principal import SystemActor

log = logging.getLogger("fieldhouse.agents")

LEASE_SECONDS = 30.0
LEASE_RENEW_SECONDS = 10.0
#: how long one renewal may take before the next one is tried
RENEW_WRITE_SECONDS = 5.0


class LeaseLost(Exception):
    """The stored run is no longer this process's: it was declared interrupted (its lease ran
    out) and perhaps resumed elsewhere; this process stops writing it."""


def lease_end() -> str:
    """The end of a lease taken or renewed now."""
    return to_iso(datetime.now(UTC) + timedelta(seconds=LEASE_SECONDS))


async def keep_lease(
    actors: ActorSystem, account_id: str, run_id: str, owner: str, renewed: Callable[[str], None]
) -> None:
    """Renew the run's lease until cancelled; ``renewed`` is told each new end (the run stores
    it with its next write). A failed renewal is logged and the next one tries again."""
    while True:
        await trio.sleep(LEASE_RENEW_SECONDS)
        until = lease_end()
        renewed(until)
        try:
            with trio.move_on_after(RENEW_WRITE_SECONDS):
                await actors.ask(
                    RenewLease(run_id, owner, until, by=SystemActor(account_id, "lease"))
                )
        except Exception:
            log.exception("renewing the lease of agent run %s failed", run_id)
