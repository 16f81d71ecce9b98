"""Requests written as code or data (SQL, a call, a REST line, ``key: value`` lines) read by
the workspace's schema (issue 32, item 6): ``offline_structured``. Every phrasing here is this
file's own (its records are not the demo's)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from fieldhouse.agents.providers.offline_schema import builtin
from fieldhouse.agents.providers.offline_structured import plain_structured
from tests.agents.providers.planner_walk import record, walked, written

NOW = datetime(2026, 11, 28, 10, 0, tzinfo=UTC)
WS = builtin()
BEACON = record("deals", "Beacon fleet telematics")
ORLA = record("contacts", "Orla Finnegan")
KESTREL = record("companies", "Kestrel Freight")
AUDIT = record("tasks", "Vendor audit checklist")
EVERYONE = [BEACON, ORLA, KESTREL, AUDIT]


def calls(message: str) -> tuple[list[Any], str]:
    made, reply = walked(message, EVERYONE, NOW, WS)
    return made, reply


def writes(message: str) -> list[Any]:
    return written(message, EVERYONE, NOW, WS)[0]


def searches(message: str) -> list[dict[str, Any]]:
    return [args for name, args in calls(message)[0] if name == "records.search"]


def conditions(args: dict[str, Any]) -> set[tuple[str, str, Any]]:
    root = args.get("advancedFilter", {}).get("root", {})
    return {
        (c["fieldSlug"], c["operator"], c.get("value", str(c.get("values"))))
        for c in root.get("conditions", [])
    }


def test_an_sql_insert_creates_the_record_with_each_column_as_its_field() -> None:
    made = writes(
        "INSERT INTO contacts (name, job_title, company, email) VALUES "
        "('Tomas Brennan', 'Fleet Analyst', 'Kestrel Freight', 'tomas.brennan@kestrel.example');"
    )
    assert len(made) == 1
    tool, args = made[0]
    assert (tool, args["module"], args["displayName"]) == (
        "records.create",
        "contacts",
        "Tomas Brennan",
    )
    fields = args["fields"]
    assert fields["job-title"] == "Fleet Analyst"
    assert fields["company"] == KESTREL["recordId"]  # looked up by name
    assert fields["emails"] == ["tomas.brennan@kestrel.example"]


def test_an_sql_update_by_name_changes_the_fields_set() -> None:
    made = writes(
        "UPDATE tasks SET priority = 'urgent', due_date = CURRENT_DATE + 1 "
        "WHERE title = 'Vendor audit checklist';"
    )
    assert made == [
        (
            "records.update",
            {
                "module": "tasks",
                "recordId": AUDIT["recordId"],
                "fields": {"priority": "urgent", "due-date": "2026-11-29"},
            },
        )
    ]


def test_an_sql_select_is_a_filtered_sorted_list() -> None:
    [args] = searches(
        "SELECT * FROM deals WHERE stage != 'lost' AND amount > 20000 ORDER BY close_date DESC;"
    )
    assert args["module"] == "deals"
    assert conditions(args) == {("stage", "notIn", "['lost']"), ("amount", "gt", 20000)}
    assert (args["sortField"], args["sortDirection"]) == ("close-date", "desc")


def test_an_sql_select_of_one_name_is_a_search_for_it() -> None:
    found = searches("SELECT * FROM companies WHERE name = 'Kestrel Freight' LIMIT 1;")
    assert [(a["module"], a["query"]) for a in found][:1] == [("companies", "Kestrel Freight")]
    assert writes("SELECT * FROM companies WHERE name = 'Kestrel Freight' LIMIT 1;") == []


def test_a_tag_in_an_array_column_is_a_filter_on_it() -> None:
    [args] = searches("SELECT id FROM contacts WHERE 'vip' = ANY(tags)")
    assert ("tags", "eq", "vip") in conditions(args) or args.get("filters") == {"tags": "vip"}


def test_a_create_call_with_an_object_creates_the_record() -> None:
    made = writes(
        'deals.create({ name: "Kestrel yard sensors", company: "Kestrel Freight", '
        'amount: 48_500, stage: "qualified" })'
    )
    assert len(made) == 1
    _, args = made[0]
    assert args["displayName"] == "Kestrel yard sensors"
    assert args["fields"]["amount"] == {"amount": 48500, "currency": "USD"}
    assert args["fields"]["stage"] == "qualified"
    assert args["fields"]["company"] == KESTREL["recordId"]


def test_key_value_lines_naming_a_module_create_a_record() -> None:
    made = writes(
        "kind: company\nname: Pinecrest Logistics\nindustry: retail\nwebsite: pinecrest.example"
    )
    assert len(made) == 1
    _, args = made[0]
    assert (args["module"], args["displayName"]) == ("companies", "Pinecrest Logistics")
    assert args["fields"]["industry"] == "retail"
    assert "pinecrest.example" in str(args["fields"]["website"])


def test_a_rest_get_with_a_query_is_a_list_and_me_is_the_requester() -> None:
    [args] = searches("GET /v1/modules/tasks/records?status=todo&priority=high")
    assert conditions(args) == {("status", "eq", "todo"), ("priority", "eq", "high")} or args.get(
        "filters"
    ) == {"status": "todo", "priority": "high"}


def test_a_curl_patch_updates_the_record_named_in_the_path() -> None:
    made = writes(
        "curl -X PATCH https://crm.example/v1/modules/deals/records/Beacon%20fleet%20telematics "
        '-d \'{"stage": "won"}\''
    )
    assert made == [
        (
            "records.update",
            {"module": "deals", "recordId": BEACON["recordId"], "fields": {"stage": "won"}},
        )
    ]


def test_a_send_email_call_sends_it() -> None:
    made = writes(
        'send_email(to="orla@kestrel.example", subject="Yard sensors", body="Quote attached")'
    )
    assert len(made) == 1
    tool, args = made[0]
    assert tool == "email.send"
    assert args["to"] == ["orla@kestrel.example"]
    assert args["subject"] == "Yard sensors"
    assert args["body"] == "Quote attached"


@pytest.mark.parametrize(
    "message",
    [
        # no name for the new record
        "INSERT INTO deals (company, amount, stage) VALUES ('Kestrel Freight', 9000, 'lead');",
        # a column that is no field: asked about, not dropped
        "INSERT INTO contacts (name, shoe_size) VALUES ('Tomas Brennan', '44');",
        # no one to send to yet
        'send_email(to=<someone at Kestrel>, subject="Yard sensors")',
        # a delete, as code: explained, never run
        "DELETE FROM deals WHERE name = 'Beacon fleet telematics';",
    ],
)
def test_code_that_misses_something_or_deletes_writes_nothing(message: str) -> None:
    assert writes(message) == []


@pytest.mark.parametrize(
    "message",
    [
        "Call Orla about the renewal (tomorrow), please",
        "Get the Beacon deal to proposal",
        "note: the Kestrel deal is close\nstage: proposal I think",
        "select the deals from Kestrel Freight",
    ],
)
def test_prose_is_not_read_as_code(message: str) -> None:
    assert plain_structured(message, WS) is None


@pytest.mark.parametrize(
    ("message", "asked"),
    [
        ("kind: deal\nname: TBD\ncompany: Kestrel Freight\namount: 9000", "'TBD'"),
        ("kind: deal\nname: Kestrel yard sensors\namount: TBD", "amount"),
        ("UPDATE deals SET stage = 'won' WHERE name = :name;", "':name'"),
        ('tasks.update(":id", { status: "done" })', "':id'"),
        ("INSERT INTO contacts (name, email) VALUES ('Tomas Brennan', '<his email>')", "email"),
    ],
)
def test_a_value_still_to_be_filled_in_is_asked_about_not_written(message: str, asked: str) -> None:
    made, reply = written(message, EVERYONE, NOW, WS)
    assert made == []
    assert "placeholder" in reply and asked in reply
