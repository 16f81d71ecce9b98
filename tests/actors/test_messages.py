"""A message's reply: exactly one outcome, delivered to whoever waits; and what every message
says about who acts."""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil
from typing import Any

import pytest
import trio

import fieldhouse
from fieldhouse.actors.messages import Message, Reply
from fieldhouse.model.principal import Acting


def every_message() -> list[type[Message[Any]]]:
    """Every message class of the package (each module imported once)."""
    for found in pkgutil.walk_packages(fieldhouse.__path__, "fieldhouse."):
        if not found.name.endswith("__main__"):
            importlib.import_module(found.name)
    seen: list[type[Message[Any]]] = []
    todo: list[type[Message[Any]]] = [Message]
    while todo:
        for sub in todo.pop().__subclasses__():
            if sub not in seen and sub.__module__.startswith("fieldhouse."):
                seen.append(sub)
                todo.append(sub)
    return seen


def test_every_message_carries_who_acts_as_a_principal_not_a_user_id() -> None:
    messages = every_message()
    assert len(messages) > 30
    for cls in messages:
        fields = {f.name: f for f in dataclasses.fields(cls)}
        # who acts, their user id and their name all come from ``by``
        assert not {"actor_user_id", "actor_name"} & set(fields), cls
        by = fields["by"]
        assert by.kw_only and by.default is dataclasses.MISSING, cls  # nobody forgets it
        assert by.type in ("Acting", Acting), cls


#: the messages that write what only the agents own: approvals, runs, agents and the policy
AGENT_WRITES = {
    "DecideApproval", "NoteOutcome", "ExpireApproval", "FailApproval", "AgentRecordOp",
    "ToolWrites", "CreateAgent", "SaveRun", "RenewLease", "InterruptRun", "SetPolicy",
}  # fmt: skip


def test_the_agents_writes_are_defined_in_agents_not_in_the_actors() -> None:
    where = {cls.__name__: cls.__module__ for cls in every_message()}
    assert {
        n: where.get(n, "")
        for n in AGENT_WRITES
        if not where.get(n, "").startswith("fieldhouse.agents.")
    } == {}


async def test_the_first_outcome_wins() -> None:
    reply: Reply[int] = Reply()
    reply.set_result(1)
    reply.set_result(2)
    reply.set_error(RuntimeError("late"))
    assert await reply.wait() == 1


async def test_an_error_is_raised_to_the_waiter() -> None:
    reply: Reply[int] = Reply()
    got: list[BaseException] = []

    async def waiter() -> None:
        try:
            await reply.wait()
        except LookupError as exc:
            got.append(exc)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(waiter)
        await trio.testing.wait_all_tasks_blocked()
        reply.set_error(LookupError("gone"))
    assert [str(e) for e in got] == ["gone"]
    with pytest.raises(LookupError):
        await reply.wait()
