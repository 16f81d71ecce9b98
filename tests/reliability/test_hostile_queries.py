"""Hostile list queries: whatever a request's query string holds (filters, advanced-filter JSON
of any shape, sorts, field lists, search), the compiler either refuses it with a validation
error or emits SQL in which none of the request's text appears: it all travels as parameters.
Also: the formula parser raises nothing but FormulaError on any input."""

from __future__ import annotations

import contextlib
import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fieldhouse.model.errors import ApiError
from fieldhouse.model.formula import parse_formula
from fieldhouse.model.formula_parse import FormulaError
from fieldhouse.model.listquery import parse_list_query
from fieldhouse.storage.sqldialect import POSTGRES, SQLITE
from fieldhouse.storage.sqlquery import compile_list
from tests.storage.test_sqlquery import ACCOUNT, MODULE, SCHEMA

MARK = "zq9"  # in every generated string; must never reach the SQL text
SLUGS = [f.slug for f in SCHEMA.fields]
OPERATORS = ["eq", "neq", "gt", "gte", "lt", "lte", "contains", "notContains", "startsWith"]
OPERATORS += ["endsWith", "in", "notIn", "isNull", "isNotNull", "between", "before", "after"]

marked = st.text(max_size=12).map(lambda s: f"{s}{MARK}'; DROP TABLE records; --")
scalar = st.one_of(marked, st.integers(), st.floats(allow_nan=True), st.booleans(), st.none())
value: Any = st.recursive(
    scalar,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(marked, inner, max_size=3)
    ),
    max_leaves=6,
)
condition = st.fixed_dictionaries(
    {"fieldSlug": st.sampled_from(SLUGS), "operator": st.sampled_from(OPERATORS)},
    optional={"value": value, "values": st.lists(value, max_size=3), "id": marked},
)
group: Any = st.recursive(
    st.fixed_dictionaries(
        {"conjunction": st.sampled_from(["AND", "OR"]), "conditions": st.lists(condition)}
    ),
    lambda inner: st.fixed_dictionaries(
        {
            "conjunction": st.sampled_from(["AND", "OR", MARK]),
            "conditions": st.lists(st.one_of(condition, inner, value), max_size=3),
        }
    ),
    max_leaves=4,
)
advanced = st.one_of(
    group.map(lambda g: json.dumps({"root": g})),
    value.map(json.dumps),
    marked,
)
args = st.fixed_dictionaries(
    {},
    optional={
        "advancedFilter": advanced,
        "search": marked,
        "sortField": st.one_of(st.sampled_from(SLUGS), marked),
        "sortDirection": st.one_of(st.sampled_from(["asc", "desc"]), marked),
        "fields": marked,
        "labelIds": marked,
        "page": st.one_of(st.integers().map(str), marked),
        "pageSize": st.one_of(st.integers(0, 200).map(str), marked),
        **{f"filter[{slug}]": marked for slug in SLUGS[:6]},
        f"filter[{MARK}]": marked,
    },
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(query_args=args)
def test_request_text_never_reaches_sql(query_args: dict[str, str]) -> None:
    try:
        query = parse_list_query(query_args, SCHEMA)
    except ApiError as exc:
        assert exc.status == 400  # refused in the envelope, not a crash
        return
    for dialect in (SQLITE, POSTGRES):
        compiled = compile_list(query, SCHEMA, dialect, account_id=ACCOUNT, module_id=MODULE)
        assert MARK not in compiled.where and MARK not in compiled.order_by
        assert "DROP" not in compiled.where


@settings(max_examples=500, deadline=None)
@given(
    text=st.one_of(
        st.text(max_size=120),
        st.text(
            alphabet="(){},\"'+-*/&=<>!0123456789.eE ABCDIFLNORSTUVXYabcdeiflnorstuvxy",
            max_size=120,
        ),
    )
)
def test_formula_parser_raises_only_formula_error(text: str) -> None:
    with contextlib.suppress(FormulaError):
        parse_formula(text)
