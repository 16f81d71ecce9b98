from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fieldhouse.model.fields import DATA_TYPES, FIELD_TYPES
from fieldhouse.model.schema import FieldDef
from fieldhouse.model.values import ValueCheck, check_values, is_empty, normalise_value
from tests.model.fields.support import fd

A = "123e4567-e89b-12d3-a456-426614174000"


def codes(result: ValueCheck) -> list[tuple[str, tuple[str | int, ...]]]:
    return [(i.code, i.path) for i in result.issues]


# --- required, unknown, read-only -------------------------------------------------------------


def test_create_requires_writable_required_fields() -> None:
    fields = [
        fd("text", "name", required=True),
        fd("select", "stage", required=True, options=["a"]),
        fd("boolean", "active", required=True),
        fd("autonumber", "number", required=True),
        fd("text", "nickname"),
    ]
    result = check_values(fields, {"name": "Ada"}, existing=None)
    assert codes(result) == [
        ("required", ("fields", "stage")),
        ("required", ("fields", "active")),
    ]
    assert result.issues[0].message == "Field 'stage' is required"
    assert result.values == {"name": "Ada"}


def test_create_rejects_empty_required_values() -> None:
    fields = [fd("text", "name", required=True), fd("multi_select", "tags", required=True)]
    result = check_values(fields, {"name": "   ", "tags": []}, existing=None)
    assert codes(result) == [("required", ("fields", "name")), ("required", ("fields", "tags"))]


def test_false_and_zero_satisfy_required() -> None:
    fields = [fd("boolean", "active", required=True), fd("number", "n", required=True)]
    result = check_values(fields, {"active": False, "n": 0}, existing=None)
    assert result.issues == ()
    assert result.values == {"active": False, "n": 0}


def test_update_only_checks_supplied_and_forbids_clearing_required() -> None:
    fields = [fd("text", "name", required=True), fd("text", "note")]
    assert check_values(fields, {"note": "x"}, existing={"name": "Ada"}).issues == ()
    result = check_values(fields, {"name": None, "note": None}, existing={"name": "Ada"})
    assert codes(result) == [("required", ("fields", "name"))]
    assert result.values == {"note": None}


def test_null_clears_optional_fields_of_every_type() -> None:
    fields = [fd(t) for t in DATA_TYPES if not FIELD_TYPES[t].read_only]
    result = check_values(fields, {f.slug: None for f in fields}, existing={})
    assert result.issues == ()
    assert result.values == {f.slug: None for f in fields}


def test_unknown_keys_one_issue_each() -> None:
    result = check_values([fd("text", "name")], {"nmae": "x", "name": "y", "zz": 1}, existing={})
    assert codes(result) == [
        ("unrecognized_keys", ("fields", "nmae")),
        ("unrecognized_keys", ("fields", "zz")),
    ]
    assert result.issues[0].extra == {"keys": ["nmae"]}
    assert result.values == {"name": "y"}


def test_read_only_kinds_cannot_be_set() -> None:
    fields = [fd("autonumber", "num"), fd("formula", "total"), fd("rollup", "sum")]
    result = check_values(fields, {"num": 5, "total": None, "sum": 1}, existing={})
    assert codes(result) == [
        ("read_only", ("fields", "num")),
        ("read_only", ("fields", "total")),
        ("read_only", ("fields", "sum")),
    ]
    assert result.issues[1].message == "Field 'total' is computed and cannot be set"
    assert result.values == {}


def test_normalise_value_on_read_only_and_unknown_types() -> None:
    for kind in ("autonumber", "formula", "rollup"):
        value, issues = normalise_value(fd(kind), 1)
        assert value is None
        assert [i.code for i in issues] == ["read_only"]
    _, issues = normalise_value(fd("hologram"), 1)
    assert [i.code for i in issues] == ["custom"]


def test_all_issues_collected_across_fields() -> None:
    fields = [
        fd("text", "name", required=True, maxLength=3),
        fd("email", "emails", email={"allowMultiple": True}),
        fd("number", "n", min=0),
        fd("date", "due"),
        fd("reference", "company"),
    ]
    supplied = {
        "name": "too long",
        "emails": [{"value": "a@b.co"}, {"value": "broken"}],
        "n": -1,
        "due": "tomorrow",
        "company": A,
        "extra": True,
    }
    result = check_values(fields, supplied, existing=None)
    assert codes(result) == [
        ("too_big", ("fields", "name")),
        ("invalid_string", ("fields", "emails", 1, "value")),
        ("too_small", ("fields", "n")),
        ("invalid_string", ("fields", "due")),
        ("unrecognized_keys", ("fields", "extra")),
    ]
    assert result.values == {"company": {"recordId": A, "displayName": ""}}


def test_issue_json_shape() -> None:
    result = check_values([fd("text", "name")], {"name": 3}, existing={})
    assert [i.to_json() for i in result.issues] == [
        {
            "code": "invalid_type",
            "path": ["fields", "name"],
            "message": "Expected string, received number",
            "expected": "string",
            "received": "number",
        }
    ]


def test_is_empty() -> None:
    empty: tuple[object, ...] = (None, "", "  ", [], (), {}, {"a": None, "b": ""})
    for value in empty:
        assert is_empty(value)
    filled: tuple[object, ...] = (0, False, "x", [None], {"a": 1}, 0.0)
    for value in filled:
        assert not is_empty(value)


# --- property: never raises, always JSON, idempotent ------------------------------------------

ALL_FIELDS: list[FieldDef] = [
    fd("text", "text", pattern=r"[a-z]*"),
    fd("textarea", "textarea"),
    fd("rich_text", "rich"),
    fd("email", "email"),
    fd("email", "emails", email={"allowMultiple": True}),
    fd("url", "url", url={"allowMultiple": True}),
    fd("phone", "phone", phoneConfig={"validateE164": True}),
    fd("address", "address"),
    fd("address", "addresses", address={"allowMultiple": True}),
    fd("number", "number", decimals=2, min=-100, max=100),
    fd("currency", "currency", currency={"defaultCurrency": "USD"}),
    fd("date", "date", minDate="2000-01-01"),
    fd("time", "time"),
    fd("date_range", "range"),
    fd("date_range", "range-time", dateRange={"includeTime": True}),
    fd("duration", "duration"),
    fd("select", "select", options=["a", {"value": "b"}]),
    fd("multi_select", "multi", options=["a", "b"], multiSelect={"allowFreeForm": True}),
    fd("boolean", "boolean", required=True),
    fd("reference", "ref", reference={"selectionMode": "multi"}),
    fd("reference", "owner", reference={"targetType": "user"}),
    fd("person", "person", person={"allowMultiple": True}),
    fd("parent_record", "parent"),
    fd("formula", "formula"),
    fd("rollup", "rollup"),
    fd("autonumber", "autonumber"),
    fd("image", "image", image={"multiple": True}),
    fd("rating", "rating", rating={"allowHalf": True}),
    fd("progress", "progress"),
    fd("social_profile", "social"),
]
SLUGS = [f.slug for f in ALL_FIELDS]

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text(max_size=40)
    | st.sampled_from([A, "2024-01-01", "12:30", "1h 30m", "a@b.co", "https://x.com/a.png", "a"]),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                [
                    "value",
                    "id",
                    "url",
                    "recordId",
                    "userId",
                    "amount",
                    "currency",
                    "start",
                    "end",
                    "city",
                    "lat",
                    "isPrimary",
                    "label",
                    "format",
                    "platform",
                    "x",
                ]
            )
            | st.text(max_size=8),
            children,
            max_size=4,
        )
    ),
    max_leaves=12,
)


def test_fields_are_of_registered_types() -> None:
    assert {f.data_type for f in ALL_FIELDS} <= set(DATA_TYPES)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    supplied=st.dictionaries(st.sampled_from(SLUGS) | st.text(max_size=6), json_values),
    create=st.booleans(),
)
def test_check_values_never_raises(supplied: dict[str, Any], create: bool) -> None:
    result = check_values(ALL_FIELDS, supplied, existing=None if create else {})
    assert isinstance(result, ValueCheck)
    json.dumps(result.values, allow_nan=False)
    for found in result.issues:
        assert found.path[0] == "fields"
        assert isinstance(found.path[1], str)
        assert found.message
        json.dumps(found.to_json(), allow_nan=False)
    assert set(result.values) <= set(supplied)
    # Normalised values are a fixed point: checking them again changes nothing.
    again = check_values(ALL_FIELDS, result.values, existing={})
    assert again.issues == ()
    assert again.values == result.values


@settings(max_examples=300, deadline=None)
@given(value=json_values)
def test_normalise_value_never_raises_for_any_type(value: Any) -> None:
    for field in ALL_FIELDS:
        normalised, issues = normalise_value(field, value)
        if issues:
            assert all(i.path[:1] != ("fields",) for i in issues)
        else:
            json.dumps(normalised, allow_nan=False)


VALID: dict[str, tuple[Any, Any]] = {
    "text": ("abc", "abc"),
    "textarea": ("long\ntext", "long\ntext"),
    "rich": ("<p>Hi<script>x</script></p>", "<p>Hi</p>"),
    "email": ("Jo@Example.com", "Jo@example.com"),
    "url": (["https://a.io"], None),
    "phone": ("+442071838750", "+442071838750"),
    "address": ({"city": "Oslo"}, None),
    "number": (12.5, 12.5),
    "currency": ({"amount": 9.99}, {"amount": 9.99, "currency": "USD"}),
    "date": ("2024-05-01", "2024-05-01"),
    "time": ("07:05", "07:05:00"),
    "range": ({"start": "2024-01-01", "end": "2024-01-02"}, None),
    "range-time": (
        {"start": "2024-01-01T00:00:00-05:00", "end": "2024-01-02T00:00Z"},
        {"start": "2024-01-01T05:00:00Z", "end": "2024-01-02T00:00:00Z"},
    ),
    "duration": ("2:15", 8100),
    "select": ("b", "b"),
    "multi": (["b", "free", "b"], ["b", "free"]),
    "boolean": (True, True),
    "ref": ([A], [{"recordId": A, "displayName": ""}]),
    "owner": (A, {"recordId": A, "displayName": ""}),
    "person": (["u1"], [{"userId": "u1", "displayName": "", "email": None, "avatar": None}]),
    "parent": ({"recordId": A}, A),
    "image": (["https://x.io/a.webp"], None),
    "rating": (3.5, 3.5),
    "progress": (50.0, 50),
    "social": ("https://github.com/x", {"url": "https://github.com/x", "platform": "github"}),
}


def test_valid_value_for_every_writable_type_is_a_fixed_point() -> None:
    supplied = {slug: raw for slug, (raw, _) in VALID.items()}
    result = check_values(ALL_FIELDS, supplied, existing=None)
    assert result.issues == ()
    for slug, (_, expected) in VALID.items():
        if expected is not None:
            assert result.values[slug] == expected, slug
    again = check_values(ALL_FIELDS, result.values, existing=None)
    assert again.issues == ()
    assert again.values == result.values
    writable = {f.data_type for f in ALL_FIELDS if f.slug in VALID}
    assert writable == {f.data_type for f in ALL_FIELDS} - {"autonumber", "formula", "rollup"}


def test_deeply_nested_input_does_not_raise() -> None:
    deep: Any = "x"
    for _ in range(5000):
        deep = {"value": deep}
    result = check_values(ALL_FIELDS, {"address": deep, "emails": [deep]}, existing={})
    assert result.issues
