"""The planner benchmark's scorer (benchmarks/planner_eval.py) on hand-made outcomes: the
scores it reports are only as good as this judgement. No planner runs here."""

from __future__ import annotations

from datetime import date

from benchmarks.planner_eval import Call, Context, resolve, score

# a Saturday; the record ids stand for the demo's records
TODAY = date(2026, 11, 28)
PILOT = "0b6f7a52-2f3e-4c39-9a57-2d4c1d3e9f01"
CTX = Context(TODAY, me="u-owner", names={PILOT: "Litware pilot"})
STAGE = {
    "kind": "call",
    "tool": "records.update",
    "args": {"module": "deals", "target": "Litware pilot", "fields": {"stage": "negotiation"}},
}


def test_the_expected_call_by_id_or_by_name_with_other_spelling_is_right() -> None:
    by_id = Call(
        "records.update",
        {"module": "deals", "recordId": PILOT.upper(), "fields": {"stage": "Negotiation "}},
    )
    by_name = Call(
        "records.update",
        {"module": "deals", "name": "litware  PILOT", "fields": {"stage": "negotiation"}},
    )
    looked = Call("records.search", {"module": "deals", "query": "litware"})
    assert score(STAGE, [looked, by_id], CTX).outcome == "right"
    assert score(STAGE, [by_name], CTX).outcome == "right"


def test_a_write_to_another_record_or_value_is_a_wrong_write_even_beside_the_right_one() -> None:
    right = Call(
        "records.update",
        {"module": "deals", "name": "Litware pilot", "fields": {"stage": "negotiation"}},
    )
    other = Call(
        "records.update",
        {"module": "deals", "name": "Litware advisory", "fields": {"stage": "negotiation"}},
    )
    proposed = Call(
        "records.update",
        {"module": "deals", "name": "Litware pilot", "fields": {"stage": "won"}},
        status="pending_approval",
    )
    assert score(STAGE, [other], CTX).outcome == "wrong_write"
    assert score(STAGE, [right, other], CTX).outcome == "wrong_write"
    assert score(STAGE, [proposed], CTX).outcome == "wrong_write"
    # a refused call changed nothing: no write, but not the expected one either
    refused = Call("records.update", {"module": "deals", "name": "Litware"}, status="error")
    assert score(STAGE, [refused], CTX).outcome == "miss"
    assert score(STAGE, [], CTX).outcome == "miss"


def test_an_ask_is_right_without_a_write_and_wrong_with_one() -> None:
    ask = {"kind": "ask"}
    looked = Call("records.search", {"module": "deals", "query": "contoso"})
    guessed = Call(
        "records.update",
        {"module": "deals", "name": "Contoso records migration", "fields": {"stage": "won"}},
        status="pending_approval",
    )
    assert score(ask, [], CTX).outcome == "right"
    assert score(ask, [looked], CTX).outcome == "right"
    assert score(ask, [looked, guessed], CTX).outcome == "wrong_write"


def test_values_and_relative_dates_match_as_the_tools_take_them() -> None:
    expect = {
        "kind": "call",
        "tool": "records.create",
        "args": {
            "module": "tasks",
            "displayName": "Send pricing to Tailspin",
            "fields": {"due-date": "@next:fri", "assignee": "@me"},
        },
    }
    made = Call(
        "records.create",
        {
            "module": "tasks",
            "displayName": "send pricing to tailspin",
            "fields": {"due-date": "2026-12-04", "assignee": {"userId": "u-owner"}},
        },
    )
    assert score(expect, [made], CTX).outcome == "right"
    late = Call(
        "records.create",
        {
            "module": "tasks",
            "displayName": "Send pricing to Tailspin",
            "fields": {"due-date": "2026-12-11"},
        },
    )
    assert score(expect, [late], CTX).outcome == "wrong_write"
    assert resolve("@today+1T09:00", TODAY) == (date(2026, 11, 29), "09:00")
    assert resolve("@nextmonth:end", TODAY) == (date(2026, 12, 31), None)
    assert resolve("@lastmonth:1", date(2026, 1, 10)) == (date(2025, 12, 1), None)
    amount = {
        "kind": "call",
        "tool": "records.search",
        "args": {"module": "deals", "where": [["amount", ">", 50000]]},
    }
    over = Call(
        "records.search",
        {
            "module": "deals",
            "advancedFilter": {
                "root": {
                    "conjunction": "AND",
                    "conditions": [
                        {"id": "1", "fieldSlug": "amount", "operator": "gte", "value": 50000}
                    ],
                }
            },
        },
    )
    assert score(amount, [over], CTX).outcome == "right"


def test_strict_scoring_counts_a_longer_text_in_a_field_as_a_wrong_write() -> None:
    from dataclasses import replace

    title = {
        "kind": "call",
        "tool": "records.update",
        "args": {
            "module": "contacts",
            "target": "Litware pilot",
            "fields": {"job-title": "Head of Quality"},
        },
    }
    padded = Call(
        "records.update",
        {
            "module": "contacts",
            "name": "Litware pilot",
            "fields": {"job-title": "now Head of Quality"},
        },
    )
    exact = Call(
        "records.update",
        {
            "module": "contacts",
            "name": "Litware pilot",
            "fields": {"job-title": "head of  quality"},
        },
    )
    strict = replace(CTX, strict=True)
    assert score(title, [padded], CTX).outcome == "right"  # the format's rule
    assert score(title, [padded], strict).outcome == "wrong_write"
    assert score(title, [exact], strict).outcome == "right"
    site = {
        "kind": "call",
        "tool": "records.update",
        "args": {
            "module": "companies",
            "target": "Litware pilot",
            "fields": {"website": "lw.example"},
        },
    }
    linked = Call(
        "records.update",
        {
            "module": "companies",
            "name": "Litware pilot",
            "fields": {"website": "https://lw.example/"},
        },
    )
    assert score(site, [linked], strict).outcome == "right"  # stored with its scheme
