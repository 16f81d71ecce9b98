"""Who "me" is, for the offline planner: the run's requester (issue 32, item 6). Through the
real server (SQLite, the demo workspace, POST /v1/agents/messages), scored as the planner
benchmark scores: "my tasks" lists the requester's, "i own it" makes them the deal's owner."""

from __future__ import annotations

import trio

from benchmarks.planner_eval import Phrasing, evaluate

PHRASINGS = [
    Phrasing(
        "me1",
        "which deals are owned by me?",
        "list",
        {
            "kind": "call",
            "tool": "records.search",
            "args": {"module": "deals", "filters": {"owner": "@me"}},
        },
    ),
    Phrasing(
        "me2",
        "log a deal called Globex kiosk refresh, 30k, and i own it",
        "create",
        {
            "kind": "call",
            "tool": "records.create",
            "args": {
                "module": "deals",
                "displayName": "Globex kiosk refresh",
                "fields": {"amount": 30000, "owner": "@me"},
            },
        },
    ),
    Phrasing(
        "me3",
        "create a task 'Send the Globex quote' for me, due tomorrow",
        "create",
        {
            "kind": "call",
            "tool": "records.create",
            "args": {
                "module": "tasks",
                "displayName": "Send the Globex quote",
                "fields": {"assignee": "@me", "due-date": "@today+1"},
            },
        },
    ),
]


def test_me_is_the_requester_in_lists_and_new_records() -> None:
    results = trio.run(evaluate, PHRASINGS)
    assert [(r.phrasing.id, r.verdict.outcome) for r in results] == [
        ("me1", "right"),
        ("me2", "right"),
        ("me3", "right"),
    ], [r.verdict.reason for r in results]
