"""The field-type protocol's shared parts: what counts as empty, which strings search reads,
and the defaults a type that overrides nothing gets."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any, ClassVar

import pytest

from fieldhouse.model.fields import FIELD_TYPES, field_type
from fieldhouse.model.fields.base import FieldType, is_empty, strings_of
from fieldhouse.model.fields.kind import ALLOWED_OPS
from tests.model.fields.support import fd


class Plain(FieldType):
    data_type: ClassVar[str] = "text"


class Words(Plain):
    searchable = True


@pytest.mark.parametrize(
    "value", [None, "", "  \n", [], (), {}, {"a": None, "b": " "}, {"a": {"b": []}}]
)
def test_empty_values(value: Any) -> None:
    assert is_empty(value)


@pytest.mark.parametrize("value", [0, False, "x", [None], {"amount": 0}, {"a": {"b": "c"}}])
def test_values_that_are_not_empty(value: Any) -> None:
    assert not is_empty(value)


def test_strings_of_skips_ids() -> None:
    value = [
        {"recordId": "r-1", "displayName": "Acme"},
        {"id": "x", "userId": "u", "avatar": "a.png", "label": "Ops", "tags": ["one", 2]},
        "plain",
    ]
    assert list(strings_of(value)) == ["Acme", "Ops", "one", "plain"]


def test_defaults_of_a_type_that_overrides_nothing() -> None:
    kind, f = Plain(), fd("text", "notes")
    with pytest.raises(NotImplementedError):
        kind.normalise(f, "x")
    assert kind.filter_kind(f).base == "opaque"
    assert kind.operators(f) == ALLOWED_OPS["opaque"]
    assert kind.default(f) is None and kind.value_schema() == {}
    assert kind.check_config({"a": 1}, None) == ({"a": 1}, [])  # type: ignore[arg-type]
    assert kind.link_checks(f, "x") == [] and kind.link_targets(f, "x") == []
    assert kind.without_targets(f, "x", {"x"}) == (False, "x")
    assert kind.is_blank(" ") and not kind.is_blank("x")


def test_only_searchable_types_give_words() -> None:
    value = {"label": "Ops", "id": "x"}
    assert list(Plain().search_text(value)) == []
    assert list(Words().search_text(value)) == ["Ops"]
    # the registered types: names are words, numbers are not
    text, number = field_type("text"), field_type("number")
    assert text is not None and number is not None
    assert list(text.search_text("Migrate the mail")) == ["Migrate the mail"]
    assert list(number.search_text(42)) == []


@pytest.mark.parametrize(
    ("data_type", "config", "listed"),
    [
        ("email", {"email": {"allowMultiple": True}}, True),
        ("email", {"email": {"allowMultiple": "yes"}}, False),  # a flag is a JSON boolean
        ("phone", {"email": {"allowMultiple": True}}, False),  # another type's section
        ("address", {"address": {"allowMultiple": True}}, True),
        ("reference", {"reference": {"selectionMode": "multi"}}, True),
        ("reference", {"reference": {"selectionMode": "single"}}, False),
        ("person", {"person": {"allowMultiple": True}}, True),
        ("image", {"image": {"multiple": True}}, True),
        ("image", {"image": "multiple"}, False),
        ("text", {"text": {"allowMultiple": True}}, False),  # nothing makes text a list
    ],
)
def test_a_list_switch_is_one_config_member(
    data_type: str, config: dict[str, Any], listed: bool
) -> None:
    """The server's holds_list and the console's isMulti read the same switch."""
    kind = field_type(data_type)
    assert kind is not None
    assert kind.holds_list(fd(data_type, **config)) is listed
    switch = kind.list_switch
    facts = kind.client_facts()["listWhen"]
    assert facts == (None if switch is None else asdict(switch))


def test_client_facts_say_how_to_show_edit_and_filter() -> None:
    facts = {t: kind.client_facts() for t, kind in FIELD_TYPES.items()}
    assert facts["currency"] == {
        "shownAs": "money",
        "editedAs": "money",
        "filteredAs": "range",
        "inputMode": None,
        "listWhen": None,
    }
    # computed types are never edited, whatever their edited_as says
    not_edited = {t for t, f in facts.items() if f["editedAs"] is None}
    assert not_edited == {"formula", "rollup", "autonumber", "image", "person"}
    # the words a client switches on are never a type's name (the console's scripts say none)
    words = {f[key] for f in facts.values() for key in ("shownAs", "editedAs", "filteredAs")}
    assert words.isdisjoint(FIELD_TYPES)
