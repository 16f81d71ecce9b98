"""The executor over every tool: the tools it offers, and the labels it streams for calls."""

from __future__ import annotations

from fieldhouse.agents.contract import ToolCall
from fieldhouse.agents.registry import build_executor


def test_every_tool_is_offered_and_the_external_ones_are_marked() -> None:
    executor = build_executor()
    names = [spec.name for spec in executor.specs()]
    assert len(names) == len(set(names)) == len(executor.names())
    assert {"records.create", "records.search", "email.send", "pages.publish"} <= set(names)
    assert executor.external() == {
        "email.send",
        "outreach.schedule",
        "social.schedule",
        "social.post",
        "pages.publish",
    }
    assert executor.tool("records.get") is not None
    assert executor.tool("records.drop") is None


def test_labels_describe_the_call_and_never_raise() -> None:
    executor = build_executor()
    good = ToolCall("c1", "reminders.create", {"text": "Call Ada", "dueAt": "2026-01-02T09:00"})
    assert "Call Ada" in executor.label(good)
    bad = ToolCall("c2", "reminders.create", {"text": ""})
    assert executor.label(bad) == "Using reminders.create"
    unknown = ToolCall("c3", "records.drop", {})
    assert executor.label(unknown) == "Calling an unknown tool 'records.drop'"
