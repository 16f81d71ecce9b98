"""The custom field models: labels trimmed and never blank, kebab-case slugs, PascalCase
names, the registry's data types and nothing else."""

from __future__ import annotations

from typing import Any, get_args

import pytest
from pydantic import BaseModel, ValidationError

from fieldhouse.http.template_models import DataType, FieldCreateBody, FieldUpdateBody
from fieldhouse.model.fields import FIELD_TYPES

KEBAB = (
    "Value error, slug must be kebab-case: lower-case letters and digits in words joined by "
    "single hyphens, starting with a letter"
)


def refusals(
    model: type[BaseModel], data: dict[str, Any]
) -> list[tuple[str, tuple[Any, ...], str]]:
    with pytest.raises(ValidationError) as caught:
        model.model_validate(data)
    return [(e["type"], e["loc"], e["msg"]) for e in caught.value.errors()]


def test_the_data_types_are_the_models() -> None:
    assert get_args(DataType) == tuple(FIELD_TYPES)
    (refused,) = refusals(FieldCreateBody, {"label": "A", "dataType": "money"})
    assert refused[:2] == ("literal_error", ("dataType",))


def test_create_trims_the_label_and_fills_defaults() -> None:
    body = FieldCreateBody.model_validate({"label": "  Budget ", "dataType": "currency"})
    assert body.model_dump() == {
        "name": None,
        "label": "Budget",
        "slug": None,
        "dataType": "currency",
        "config": {},
        "isRequired": False,
        "privacyLevel": "account",
        "sortOrder": None,
    }


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ({"label": "   "}, ("value_error", ("label",), "Value error, label must not be blank")),
        ({"slug": "Bad_Slug"}, ("value_error", ("slug",), KEBAB)),
        ({"slug": "two--hyphens"}, ("value_error", ("slug",), KEBAB)),
        ({"slug": "9lives"}, ("value_error", ("slug",), KEBAB)),
        (
            {"name": "budget"},
            (
                "string_pattern_mismatch",
                ("name",),
                "String should match pattern '^[A-Z][A-Za-z0-9]*$'",
            ),
        ),
        (
            {"sortOrder": -1},
            ("greater_than_equal", ("sortOrder",), "Input should be greater than or equal to 0"),
        ),
        (
            {"privacyLevel": "public"},
            ("literal_error", ("privacyLevel",), "Input should be 'account', 'role' or 'private'"),
        ),
        ({"fieldId": "x"}, ("extra_forbidden", ("fieldId",), "Extra inputs are not permitted")),
    ],
)
def test_create_refusals(data: dict[str, Any], expected: tuple[str, tuple[Any, ...], str]) -> None:
    body = {"label": "Budget", "dataType": "number", **data}
    assert refusals(FieldCreateBody, body) == [expected]


def test_create_accepts_a_kebab_slug_and_a_pascal_name() -> None:
    body = FieldCreateBody.model_validate(
        {"label": "Budget", "dataType": "number", "slug": "q3-budget2", "name": "Q3Budget"}
    )
    assert (body.slug, body.name) == ("q3-budget2", "Q3Budget")


def test_update_label_is_trimmed_and_never_blank() -> None:
    assert FieldUpdateBody.model_validate({"label": " Renamed "}).label == "Renamed"
    assert FieldUpdateBody.model_validate({}).model_dump() == {
        "label": None,
        "name": None,
        "config": None,
        "isRequired": None,
        "backfillExisting": False,
        "archived": None,
    }
    renamed = FieldUpdateBody.model_validate({"name": "Cost", "archived": True})
    assert (renamed.name, renamed.archived) == ("Cost", True)
    assert refusals(FieldUpdateBody, {"name": "cost"})[0][:2] == (
        "string_pattern_mismatch",
        ("name",),
    )
    assert refusals(FieldUpdateBody, {"label": " "}) == [
        ("value_error", ("label",), "Value error, label must not be blank")
    ]
    assert refusals(FieldUpdateBody, {"dataType": "text"})[0][:2] == (
        "extra_forbidden",
        ("dataType",),
    )
