"""The field-type registry and what every FieldType promises about values.

Property tests: for every writable type, any JSON value either normalises to a value the store
can encode (orjson, as storage does) that normalises to itself again, or gives issues; nothing
raises. Numbers of any size are bounded to +-(2^53 - 1).
"""

from __future__ import annotations

import re
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fieldhouse.model.fields import DATA_TYPES, FIELD_TYPES, FieldType, field_type
from fieldhouse.model.fields._base import MAX_SAFE_NUMBER
from fieldhouse.model.schema import FieldDef
from fieldhouse.model.values import normalise_value

#: Configs that open each type up (multi-entry, free form, half ratings) where it has options.
CONFIGS: dict[str, dict[str, Any]] = {
    "select": {"options": ["a", "b"]},
    "multi_select": {"options": ["a", "b"], "multiSelect": {"allowFreeForm": True}},
    "currency": {"currency": {"defaultCurrency": "USD"}},
    "email": {"email": {"allowMultiple": True}},
    "phone": {"phoneConfig": {"validateE164": True}},
    "rating": {"rating": {"allowHalf": True, "maxRating": 10}},
    "reference": {"reference": {"selectionMode": "multi"}},
    "image": {"image": {"multiple": True}},
}
WRITABLE = sorted(t for t, kind in FIELD_TYPES.items() if not kind.read_only)


def fd(data_type: str, config: dict[str, Any] | None = None) -> FieldDef:
    cfg = CONFIGS.get(data_type, {}) if config is None else config
    return FieldDef("f-id", "m-id", "F", "f", "F", data_type, cfg)


def test_every_data_type_has_exactly_one_field_type() -> None:
    assert tuple(FIELD_TYPES) == DATA_TYPES
    assert all(re.fullmatch(r"[a-z]+(_[a-z]+)*", name) for name in DATA_TYPES)
    for name, kind in FIELD_TYPES.items():
        assert isinstance(kind, FieldType)
        assert kind.data_type == name
        assert field_type(name) is kind
    assert field_type("hologram") is None


def test_read_only_types_are_the_computed_ones() -> None:
    read_only = {t for t, kind in FIELD_TYPES.items() if kind.read_only}
    assert read_only == {"formula", "rollup", "autonumber"}


def test_operators_follow_the_filter_kind() -> None:
    assert "gt" in field_type("number").operators(fd("number"))  # type: ignore[union-attr]
    assert "gt" not in field_type("boolean").operators(fd("boolean"))  # type: ignore[union-attr]
    assert field_type("image").operators(fd("image")) == {  # type: ignore[union-attr]
        "isNull",
        "isNotNull",
        "contains",
        "notContains",
    }
    currency = field_type("currency").filter_kind(fd("currency"))  # type: ignore[union-attr]
    assert currency.value_key == ("amount",)


@pytest.mark.parametrize("data_type", ["number", "duration", "progress", "rating"])
@pytest.mark.parametrize("huge", [1e20, 2**64, -(2**70), 1e300, 10**400])
def test_huge_numbers_are_issues_not_crashes(data_type: str, huge: float) -> None:
    value, issues = normalise_value(fd(data_type), huge)
    assert value is None
    assert [i.code for i in issues] in (["too_big"], ["too_small"])


def test_numbers_inside_values_are_bounded() -> None:
    value, issues = normalise_value(fd("currency"), {"amount": 1e20})
    assert value is None and [(i.code, i.path) for i in issues] == [("too_big", ("amount",))]
    top = {"amount": MAX_SAFE_NUMBER, "currency": "USD"}
    assert normalise_value(fd("currency"), top) == (top, [])
    assert normalise_value(fd("number"), -MAX_SAFE_NUMBER) == (-MAX_SAFE_NUMBER, [])


def test_huge_duration_strings_are_refused() -> None:
    _, issues = normalise_value(fd("duration"), "999999999999999:00")
    assert [i.code for i in issues] == ["too_big"]


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("PT1H30M", 5400), ("PT45S", 45), ("P1DT2H", 93600), ("PT1.5H", 5400), ("P1W", 604800)],
)
def test_iso_8601_durations(text: str, seconds: int) -> None:
    assert normalise_value(fd("duration"), text) == (seconds, [])


@pytest.mark.parametrize("text", ["P", "PT", "P1Y", "P1M", "PT1H30", "P1H"])
def test_durations_that_are_not_iso_8601(text: str) -> None:
    _, issues = normalise_value(fd("duration"), text)
    assert [i.code for i in issues] == ["custom"]


@pytest.mark.parametrize(
    ("text", "stored"),
    [
        ("09:30", "09:30:00"),
        ("09:30:00.250", "09:30:00.250"),
        ("23:59:59.999999", "23:59:59.999999"),
    ],
)
def test_iso_8601_times(text: str, stored: str) -> None:
    assert normalise_value(fd("time"), text) == (stored, [])


@pytest.mark.parametrize("text", ["09:30:00.", "09:30.250", "24:00", "09:30:00.1234567"])
def test_bad_times(text: str) -> None:
    _, issues = normalise_value(fd("time"), text)
    assert [i.code for i in issues] == ["invalid_string"]


def test_phone_numbers_that_no_country_uses() -> None:
    e164 = fd("phone", {"phoneConfig": {"validateE164": True}})
    loose = fd("phone", {})
    assert normalise_value(e164, "+14155550123") == ("+14155550123", [])
    for field in (e164, loose):
        _, issues = normalise_value(field, "+999999999999")
        assert [i.code for i in issues] == ["invalid_string"], field.config
    # a real country code but too few digits for it: possible nowhere
    _, issues = normalise_value(e164, "+4420794600")
    assert [i.code for i in issues] == ["invalid_string"]
    assert normalise_value(loose, "555.0123") == ("555.0123", [])


def test_currencies_are_iso_4217() -> None:
    field = fd("currency")
    assert normalise_value(field, {"amount": 5, "currency": "chf"}) == (
        {"amount": 5, "currency": "CHF"},
        [],
    )
    for code in ("ABC", "XYZ", "QQQ"):
        _, issues = normalise_value(field, {"amount": 5, "currency": code})
        assert [(i.code, i.path) for i in issues] == [("invalid_string", ("currency",))], code


json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**80), max_value=2**80)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20)
    | st.sampled_from(["a", "09:30:00.5", "PT2H", "+14155550123", "https://x.io/a.png", "USD"])
)
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(["amount", "currency", "start", "end", "url", "value", "city", "x"]),
            inner,
            max_size=3,
        )
    ),
    max_leaves=6,
)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data_type=st.sampled_from(WRITABLE), value=json_values)
def test_any_value_is_stored_or_refused(data_type: str, value: Any) -> None:
    field = fd(data_type)
    normalised, issues = normalise_value(field, value)
    if issues:
        assert normalised is None
        return
    encoded = orjson.dumps(normalised)  # what the store writes; raises on an unstorable value
    again, more = normalise_value(field, orjson.loads(encoded))
    assert more == []
    if data_type not in ("email", "url", "phone", "address"):  # fresh entry ids are fine
        assert again == normalised


@pytest.mark.parametrize("name", WRITABLE)
def test_every_writable_type_has_an_example_that_is_a_fixed_point(name: str) -> None:
    kind = FIELD_TYPES[name]
    f = fd(name, dict(kind.example_config))
    value, issues = kind.normalise(f, kind.example)
    assert issues == [] and value is not None
    assert kind.normalise(f, orjson.loads(orjson.dumps(value))) == (value, [])
    assert not kind.is_blank(value)
