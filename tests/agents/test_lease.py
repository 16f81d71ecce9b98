"""A running run's lease: its process renews it, a sweep leaves a live run alone, and a run
swept while its process stalled stops writing (issue 32 item 2)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import trio
import trio.testing

from fieldhouse.agents.contract import ToolCall, ToolSpec
from fieldhouse.agents.lease import LEASE_RENEW_SECONDS
from fieldhouse.agents.providers.base import Step, TextSink, Turn
from fieldhouse.agents.registry import build_executor
from fieldhouse.agents.run import TAKEN_OVER, AgentRun, AgentRuntime, RunRequest
from fieldhouse.agents.run_writes import AGENT_RUN
from fieldhouse.agents.scheduler import sweep_runs
from fieldhouse.runtime import Runtime
from fieldhouse.storage.objects import ObjectRow
from fieldhouse.storage.store import Store
from tests.agents.toolkit import principal_of
from tests.conftest import Workspace

LATER = "2100-01-02T00:00:00.000000Z"


@dataclass
class InFlight:
    """A model whose first step makes a contact and whose second never answers; it notes the
    run as stored while that second step is in flight (what a SIGKILL would leave)."""

    store: Store
    account_id: str
    waiting: trio.Event = field(default_factory=trio.Event)
    release: trio.Event = field(default_factory=trio.Event)
    snapshot: ObjectRow | None = None
    name: str = "in-flight"

    async def step(self, turns: Sequence[Turn], tools: Sequence[ToolSpec], emit: TextSink) -> Step:
        if not any(t.role == "tool" for t in turns):
            args = {"module": "contacts", "displayName": "Ada", "fields": {"first-name": "Ada"}}
            return Step((ToolCall("c1", "records.create", args),))
        if self.snapshot is None:
            runs = await self.store.list_objects(self.account_id, AGENT_RUN)
            self.snapshot = runs[0]
            self.waiting.set()
        await self.release.wait()
        await emit("Done.")
        return Step((), "Done.")


async def test_a_live_run_keeps_its_lease_and_a_lost_one_stops_writing(
    runtime: Runtime, ws: Workspace, mock_clock: trio.testing.MockClock
) -> None:
    """A running run renews its lease: a sweep past its first lease leaves it running. Once a
    sweep finds it lapsed anyway (a process stalled past its lease), the run stops writing:
    what the sweep stored stays."""
    model = InFlight(runtime.store, ws.account_id)
    rt = AgentRuntime(runtime.settings, runtime.actors, runtime.store, model, build_executor())
    run = AgentRun(rt, RunRequest(await principal_of(runtime, ws), "make Ada", None))
    async with trio.open_nursery() as nursery:
        nursery.start_soon(run.execute)
        await model.waiting.wait()
        assert model.snapshot is not None and model.snapshot.due_at is not None
        first = model.snapshot.due_at
        mock_clock.jump(LEASE_RENEW_SECONDS)
        for _ in range(1000):  # the renewal is one actor write: wait for it, not for time
            await trio.testing.wait_all_tasks_blocked()
            row = await runtime.store.get_object(ws.account_id, AGENT_RUN, run.run_id)
            if row is not None and row.due_at is not None and row.due_at > first:
                break
        else:
            raise AssertionError("the lease was not renewed")
        assert await sweep_runs(runtime.store, runtime.actors, first) == 0
        # the process stalled past its lease: another one stores the run interrupted
        assert await sweep_runs(runtime.store, runtime.actors, LATER) == 1
        model.release.set()
    row = await runtime.store.get_object(ws.account_id, AGENT_RUN, run.run_id)
    assert row is not None and row.status == "interrupted"
    assert run.status == "aborted" and run.error == TAKEN_OVER
