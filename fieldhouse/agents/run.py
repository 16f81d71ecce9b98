"""One agent run: ask the provider for a step, run its tool calls through the executor (and so
the approval gate), feed the outcomes back, until a final answer, the step limit or the run's
deadline. The run executes in the request's task tree: when the request is cancelled (client
gone), the provider call or tool in progress is cancelled, no further tool starts, and the
record is stored as aborted from a shielded ``finally``.

The run record is written in ordered, shielded steps (the workspace actor applies one
workspace's messages in order): ``running`` before the first model call, each tool call as it
starts and as it ends, then the end: ``waiting`` when calls wait for approvals, else
``succeeded``, ``failed`` or ``aborted``; a call in flight when the run stopped is stored
``aborted``. While it runs, the run holds a lease (its ``due_at``) that its process renews;
a run whose lease ran out was in a process that died, and the scheduler stores it
``interrupted``. Waiting, aborted and interrupted runs are resumed (``resume.py``).

Every tool call acts for the run's requester (``requester.py``) with their rights as read just
before the call: never with the rights of whoever resumed the run. The policy's caps
(``caps.py``) bound the calls of a step and of a run, and the size of their arguments.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import trio

from fieldhouse.actors.system import ActorSystem
from fieldhouse.agents.caps import (
    RUN_CAP,
    calls_made,
    capped,
    kept,
    progress_reply,
    unapproved_record_writes,
)
from fieldhouse.agents.contract import ToolCall, ToolContext, ToolExecutor, ToolOutcome
from fieldhouse.agents.gate import load_policy
from fieldhouse.agents.lease import LeaseLost, keep_lease, lease_end
from fieldhouse.agents.providers.base import (
    EMPTY_ANSWER,
    REQUESTER,
    Provider,
    ProviderError,
    Turn,
)
from fieldhouse.agents.requester import Requester, current_rights
from fieldhouse.agents.run_writes import AGENT, INTERRUPTED_CALL, SaveRun
from fieldhouse.config import Settings
from fieldhouse.model.agents import RunRecord, RunStatus, ToolCallEntry
from fieldhouse.model.clock import new_id, now_iso
from fieldhouse.model.errors import Conflict, NotFound
from fieldhouse.model.principal import Principal, SystemActor
from fieldhouse.storage.store import Store

log = logging.getLogger("fieldhouse.agents")

DEFAULT_PROMPT = (
    "You are the Fieldhouse workspace assistant. Use the tools to create, update and find "
    "records, set reminders, draft and send e-mails, plan outreach, post to social media and "
    "publish landing pages. Tools with external effects wait for a human approval; say so "
    "plainly. Answer briefly, from the tool results only."
)
#: how long the shielded final write of a cancelled run may take
FINAL_WRITE_SECONDS = 5.0


@dataclass(frozen=True)
class ToolStarted:
    tool: str
    label: str


@dataclass(frozen=True)
class Token:
    text: str


@dataclass(frozen=True)
class ApprovalRequired:
    approval_id: str
    tool: str
    description: str
    preview: Mapping[str, Any]


#: what a run reports while it works (its end is the Agent response it returns)
RunEvent = ToolStarted | Token | ApprovalRequired
#: called once per run after its final record is stored: (run id, status, the trio.current_time()
#: at which the run ended, e.g. when its cancellation arrived)
EndHook = Callable[[str, str, float], None]
INTERRUPTED = INTERRUPTED_CALL
TAKEN_OVER = (
    "The run's lease ran out (its process stalled) and it was stored interrupted: this "
    "process stopped it; resume it to go on"
)
REQUESTER_GONE = (
    "The run's requester can no longer act (their API key was revoked or their user "
    "deleted): nothing more was done"
)


@dataclass
class AgentRuntime:
    """Everything a run needs, built once per app (tests swap the provider or executor)."""

    settings: Settings
    actors: ActorSystem
    store: Store
    provider: Provider
    executor: ToolExecutor
    on_end: list[EndHook] = field(default_factory=list)
    #: this process, as the owner of the leases of the runs it runs
    instance: str = field(default_factory=new_id)


@dataclass(frozen=True)
class RunRequest:
    """A run to make: ``principal`` is its requester (for a resumed run, rebuilt from the
    stored identity), whose identity the run keeps and for whom every tool call acts."""

    principal: Principal
    message: str
    agent_id: str | None
    prompt: str = DEFAULT_PROMPT


async def load_agent(store: Store, principal: Principal, agent_id: str | None) -> RunRequest:
    """The prompt of the agent a message targets (the default agent when ``agent_id`` is None)."""
    if agent_id is None:
        return RunRequest(principal, "", None)
    row = await store.get_object(principal.account_id, AGENT, agent_id)
    if row is None:
        raise NotFound(f"Agent {agent_id} not found", data={"agentId": agent_id})
    return RunRequest(principal, "", agent_id, str(row.data.get("prompt") or DEFAULT_PROMPT))


@dataclass(frozen=True)
class Resumed:
    """Where a resumed run picks up: its stored record and the conversation so far."""

    run_id: str
    created_at: str
    #: the version (updated time) of the stored run, which the resumed run claims
    version: str
    steps: int
    tool_calls: list[ToolCallEntry]
    turns: list[Turn]


class AgentRun:
    def __init__(
        self,
        runtime: AgentRuntime,
        request: RunRequest,
        events: trio.MemorySendChannel[RunEvent] | None = None,
        *,
        resumed: Resumed | None = None,
    ) -> None:
        self.runtime = runtime
        self.request = request
        self.requester = Requester.of(request.principal)
        self.events = events
        self.run_id = resumed.run_id if resumed else new_id()
        self.created_at = resumed.created_at if resumed else now_iso()
        self.steps = resumed.steps if resumed else 0
        self.tool_calls: list[ToolCallEntry] = list(resumed.tool_calls) if resumed else []
        self._turns = list(resumed.turns) if resumed else []
        self._claim = resumed.version if resumed else None
        self.pending: list[str] = []
        self.answer: list[str] = []
        self.status = RunStatus.RUNNING
        self.error: str | None = None
        self._started = 0.0
        self._duration_ms = 0
        self._lease_until = lease_end()
        #: set when the stored run is no longer this process's to write (see SaveRun)
        self._lost = False

    async def execute(self) -> dict[str, Any]:
        """Run to the end and return the Agent response. Cancellation propagates (after the
        aborted record is stored); every other failure ends as status "failed". Raises
        Conflict, before anything runs, when a resumed run was resumed by someone else first."""
        self._started = trio.current_time()
        await self._save()  # shielded: a cancelled first write is still followed by the end
        async with trio.open_nursery() as nursery:
            nursery.start_soon(
                keep_lease,
                self.runtime.actors,
                self.requester.account_id,
                self.run_id,
                self.runtime.instance,
                self._renewed,
            )
            try:
                await self._run()
            finally:
                nursery.cancel_scope.cancel()
        return self.response()

    async def _run(self) -> None:
        settings = self.runtime.settings
        try:
            with trio.fail_after(settings.agent_run_timeout):
                await self._loop()
            self.status = RunStatus.WAITING if self.pending else RunStatus.SUCCEEDED
        except trio.TooSlowError:
            self._fail(
                f"The run deadline of {settings.agent_run_timeout:g} s was exceeded; "
                "the run was stopped"
            )
        except ProviderError as exc:
            self._fail(exc.message)
        except (StepLimitReached, RequesterGone) as exc:
            self._fail(str(exc))
        except LeaseLost:
            self.error = TAKEN_OVER  # ends aborted, unstored: the store has the run's state
        except trio.BrokenResourceError:
            self.error = "The client stopped reading the run's events"  # ends aborted
        except Exception:
            log.exception("agent run %s failed", self.run_id)
            self._fail("The run failed on an internal error")
        finally:
            if self.status == RunStatus.RUNNING:  # cancelled, or the client went away
                self.status = RunStatus.ABORTED
            await self._finish()

    def response(self) -> dict[str, Any]:
        return {
            "response": "".join(self.answer),
            "success": self.status in (RunStatus.SUCCEEDED, RunStatus.WAITING),
            "durationMs": self._duration_ms,
            "toolCalls": len(self.tool_calls),
            "error": self.error or "",
            "runId": self.run_id,
            "agentId": self.request.agent_id,
            "pendingApprovals": list(self.pending),
        }

    def _fail(self, message: str) -> None:
        self.status, self.error = RunStatus.FAILED, message

    async def _loop(self) -> None:
        runtime, request = self.runtime, self.request
        turns = self._turns or [Turn("system", request.prompt), Turn("user", request.message)]
        specs = runtime.executor.specs()
        for _ in range(runtime.settings.agent_max_steps):
            self.steps += 1
            asking = REQUESTER.set(self.requester.user_id)
            try:
                step = await runtime.provider.step(turns, specs, self._emit)
            finally:
                REQUESTER.reset(asking)
            if step.final:
                if not step.text.strip() and not self.answer:
                    raise ProviderError(EMPTY_ANSWER)
                return
            rules = await load_policy(runtime.store, self.requester.account_id)
            made = calls_made(self.tool_calls)
            planned: list[tuple[ToolCall, ToolOutcome | None]] = []
            for index, call in enumerate(step.tool_calls):
                refusal = capped(call, index, made, rules)
                made += refusal is None
                planned.append((kept(call, refusal), refusal))
            turns.append(Turn("assistant", step.text, tuple(call for call, _ in planned)))
            for call, refusal in planned:
                outcome = await self._call(call, refusal)
                turns.append(Turn("tool", call=call, outcome=outcome))
            if any(refusal is not None for _, refusal in planned):
                await self._save()  # the calls a cap stopped, stored once for the step
            if any(r is not None and r.result.get("code") == RUN_CAP for _, r in planned):
                cap = rules.max_calls_per_run
                said = bool(self.answer)
                await self._emit(progress_reply(self.tool_calls, cap, said, what="tool calls"))
                raise StepLimitReached(f"The run stopped at its limit of {cap} tool calls")
        limit = runtime.settings.agent_max_steps
        await self._emit(progress_reply(self.tool_calls, limit, bool(self.answer)))
        raise StepLimitReached(f"The run stopped at its limit of {limit} model calls")

    async def _emit(self, text: str) -> None:
        if text:
            self.answer.append(text)
            await self._send(Token(text))

    async def _send(self, event: RunEvent) -> None:
        if self.events is not None:
            await self.events.send(event)

    async def _call(self, call: ToolCall, refusal: ToolOutcome | None) -> ToolOutcome:
        """Run one call for the requester, with their rights as they are now; a call a cap
        stopped is only recorded."""
        runtime = self.runtime
        entry = ToolCallEntry(call.call_id, call.name, dict(call.arguments), "running")
        self.tool_calls.append(entry)
        if refusal is not None:
            entry.status, entry.summary, entry.result = "error", refusal.summary, refusal.result
            return refusal
        principal = await current_rights(runtime.store, self.requester)
        if principal is None:
            entry.status, entry.summary = "error", REQUESTER_GONE
            raise RequesterGone(REQUESTER_GONE)
        await self._send(ToolStarted(call.name, runtime.executor.label(call)))
        ctx = ToolContext(
            principal=principal,
            actors=runtime.actors,
            store=runtime.store,
            settings=runtime.settings,
            run_id=self.run_id,
            agent_id=self.request.agent_id,
            record_writes=unapproved_record_writes(self.tool_calls),
        )
        began = trio.current_time()
        await self._save()
        outcome = await runtime.executor.execute(call, ctx)
        entry.status, entry.summary = outcome.status, outcome.summary
        entry.result, entry.approval_id = dict(outcome.result), outcome.approval_id
        entry.duration_ms = round((trio.current_time() - began) * 1000)
        entry.read = list(outcome.read)
        entry.auto_approved_by = outcome.auto_approved_by
        if outcome.approval_id is not None and outcome.status == "pending_approval":
            self.pending.append(outcome.approval_id)
            preview = outcome.result.get("preview")
            await self._send(
                ApprovalRequired(
                    outcome.approval_id,
                    call.name,
                    outcome.summary,
                    preview if isinstance(preview, Mapping) else {},
                )
            )
        await self._save()
        return outcome

    async def _finish(self) -> None:
        """Store the final record, shielded: a cancelled run still says it was aborted, with
        the call that was in flight."""
        ended = trio.current_time()
        self._duration_ms = round((ended - self._started) * 1000)
        for entry in self.tool_calls:
            if entry.status == "running":
                entry.status, entry.summary = "aborted", INTERRUPTED
        if not self._lost:
            try:
                await self._save()
            except LeaseLost:
                self.status, self.error = RunStatus.ABORTED, TAKEN_OVER
            except Exception:
                log.exception("could not store the end of agent run %s", self.run_id)
        for hook in self.runtime.on_end:
            hook(self.run_id, self.status, ended)

    def _renewed(self, until: str) -> None:
        self._lease_until = until

    async def _save(self) -> None:
        """Store the run as it stands: shielded, so a cancellation never cuts the sequence of
        writes short; the actor applies them in the order they were sent."""
        requester = self.requester
        running = self.status == RunStatus.RUNNING
        record = RunRecord(
            run_id=self.run_id,
            agent_id=self.request.agent_id,
            user_id=requester.user_id,
            api_key_id=requester.api_key_id,
            message=self.request.message,
            provider=self.runtime.provider.name,
            status=self.status,
            steps=self.steps,
            tool_calls=[ToolCallEntry.from_json(e.to_json()) for e in self.tool_calls],
            pending_approvals=list(self.pending),
            response="".join(self.answer),
            duration_ms=self._duration_ms,
            error=self.error,
            created_at=self.created_at,
            auth_method=requester.auth_method,
            lease_owner=self.runtime.instance if running else None,
            lease_until=self._lease_until if running else None,
        )
        # the run's own bookkeeping: the server writes it, in the requester's name
        by = SystemActor(requester.account_id, "agent run", requester.user_id)
        message = SaveRun(record, self._claim, self.runtime.instance, by=by)
        claiming, self._claim = self._claim is not None, None
        with trio.move_on_after(FINAL_WRITE_SECONDS, shield=True) as scope:
            try:
                await self.runtime.actors.ask(message)
            except Conflict:
                if claiming:
                    raise  # resumed by someone else first: nothing has run
                self._lost = True
                raise LeaseLost(self.run_id) from None
        if scope.cancelled_caught:
            log.error("storing agent run %s timed out", self.run_id)


class RequesterGone(Exception):
    """The requester's key was revoked or their user deleted while the run went on."""


class StepLimitReached(Exception):
    pass
