"""The list-records query string: paging, sorting, search, filters, ids, fields."""

from __future__ import annotations

from typing import Any

import pytest

from tests.model.listquery_support import (
    UUID_A,
    UUID_B,
    issues_of,
    one_issue,
    parse,
)

# --- defaults and scalar parameters ------------------------------------------------------------


def test_defaults() -> None:
    q = parse({})
    assert (q.page, q.page_size, q.offset) == (1, 25, 0)
    assert q.search is None and q.sort_field is None and q.sort_direction == "desc"
    assert q.simple_filters == () and q.advanced is None
    assert q.label_ids == () and q.type_ids == () and q.fields is None


def test_page_and_page_size() -> None:
    assert parse({"page": "1000000000"}).page == 1_000_000_000
    q = parse({"page": "3", "pageSize": "100"})
    assert (q.page, q.page_size, q.offset) == (3, 100, 200)
    assert parse({"pageSize": "1"}).page_size == 1


@pytest.mark.parametrize(
    ("args", "code", "extra"),
    [
        ({"page": "0"}, "too_small", {"minimum": 1}),
        ({"page": "-1"}, "too_small", {"minimum": 1}),
        ({"page": "abc"}, "invalid_type", {"expected": "integer"}),
        ({"page": "1.5"}, "invalid_type", {"expected": "integer"}),
        ({"page": ""}, "invalid_type", {"expected": "integer"}),
        ({"pageSize": "0"}, "too_small", {"minimum": 1}),
        ({"pageSize": "101"}, "too_big", {"maximum": 100}),
        ({"pageSize": "9" * 40}, "too_big", {"maximum": 100}),
        ({"page": "1000000001"}, "too_big", {"maximum": 1_000_000_000}),
        ({"page": "-" + "9" * 5000}, "too_small", {"minimum": 1}),
        ({"page": "\u0663"}, "invalid_type", {"expected": "integer"}),
    ],
)
def test_bad_paging(args: dict[str, str], code: str, extra: dict[str, Any]) -> None:
    issue = one_issue(args)
    assert issue.code == code and issue.path == (next(iter(args)),)
    for key, value in extra.items():
        assert issue.extra[key] == value


def test_sorting() -> None:
    assert parse({"sortField": "amount"}).sort_direction == "asc"
    assert parse({"sortField": "amount", "sortDirection": "DESC"}).sort_direction == "desc"
    assert parse({"sortDirection": "asc"}).sort_direction == "asc"
    assert parse({"sortField": "createdDateTime"}).sort_field == "created_at"
    assert parse({"sortField": "updatedDateTime"}).sort_field == "updated_at"
    assert parse({"sortField": "created_at"}).sort_field == "created_at"
    assert parse({"sortField": "displayName"}).sort_field == "displayName"
    assert parse({"sortField": "score"}).sort_field == "score"  # formulas sort too
    assert parse({"sortField": "total"}).sort_field == "total"  # and rollups


def test_bad_sorting() -> None:
    issue = one_issue({"sortField": "nope"})
    assert issue.code == "invalid_enum_value" and issue.path == ("sortField",)
    assert "title" in issue.extra["options"] and "created_at" in issue.extra["options"]
    issue = one_issue({"sortDirection": "up"})
    assert issue.code == "invalid_enum_value" and issue.path == ("sortDirection",)
    assert issue.extra["options"] == ["asc", "desc"]
    assert one_issue({"sortField": 'bad"slug'}).path == ("sortField",)


def test_search() -> None:
    assert parse({"search": "  acme  "}).search == "acme"
    assert parse({"search": "   "}).search is None
    issue = one_issue({"search": "x" * 1001})
    assert issue.code == "too_big" and issue.path == ("search",) and issue.extra["maximum"] == 1000


def test_unknown_parameters_are_ignored_and_last_value_wins() -> None:
    q = parse([("page", "2"), ("page", "4"), ("whatever", "1"), ("filter", "x")])
    assert q.page == 4


def test_all_problems_are_reported_together() -> None:
    issues = issues_of(
        {"page": "0", "pageSize": "500", "sortDirection": "x", "labelIds": "nope", "fields": "zz"}
    )
    assert [i.path[0] for i in issues] == [
        "page",
        "pageSize",
        "sortDirection",
        "labelIds",
        "fields",
    ]


# --- simple filters, ids, fields ---------------------------------------------------------------


def test_simple_filters() -> None:
    q = parse([("filter[status]", "open,won,open"), ("filter[tags]", "a"), ("filter[status]", "x")])
    assert q.simple_filters == (("status", ("open", "won")), ("tags", ("a",)), ("status", ("x",)))
    assert parse({"filter[displayName]": "Acme"}).simple_filters == (("displayName", ("Acme",)),)
    assert parse({"filter[deal-number]": "D-1"}).simple_filters == (("deal-number", ("D-1",)),)


@pytest.mark.parametrize(
    ("key", "value", "code"),
    [
        ("filter[nope]", "a", "custom"),
        ("filter[created_at]", "a", "custom"),
        ('filter[bad"slug]', "a", "custom"),
        ("filter[status]", "", "too_small"),
        ("filter[status]", ",,", "too_small"),
        ("filter[status]", ",".join(str(i) for i in range(101)), "too_big"),
    ],
)
def test_bad_simple_filters(key: str, value: str, code: str) -> None:
    issue = one_issue({key: value})
    assert issue.code == code and issue.path == ("filter", key[7:-1])


def test_label_and_type_ids() -> None:
    q = parse({"labelIds": f"{UUID_A}, {UUID_B},{UUID_A}", "typeIds": UUID_B})
    assert q.label_ids == (UUID_A, UUID_B.lower())
    assert q.type_ids == (UUID_B.lower(),)
    assert parse({"labelIds": ""}).label_ids == ()


def test_bad_ids() -> None:
    issues = issues_of({"labelIds": f"{UUID_A},not-a-uuid", "typeIds": "123"})
    assert [(i.code, i.path) for i in issues] == [
        ("invalid_string", ("labelIds", 1)),
        ("invalid_string", ("typeIds", 0)),
    ]
    assert issues[0].extra == {"validation": "uuid"}
    assert one_issue({"labelIds": ",".join([UUID_A] * 101)}).code == "too_big"


def test_fields_param() -> None:
    assert parse({"fields": "title, amount,title"}).fields == ("title", "amount")
    assert parse({"fields": ""}).fields is None
    issue = one_issue({"fields": "title,nope"})
    assert issue.code == "custom" and issue.path == ("fields", 1)
