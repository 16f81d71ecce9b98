"""The record, bulk and activity models: what a body or query may hold, refused precisely."""

from __future__ import annotations

from typing import Any
from uuid import UUID

import pytest
from pydantic import BaseModel, ValidationError

from fieldhouse.http.record_models import (
    ActivityQuery,
    BulkDeleteBody,
    BulkUpdateBody,
    PickerQuery,
    RecordActivityQuery,
    RecordCreateBody,
    RecordUpdateBody,
)

ID = "0b5d6c1e-8f4a-4c39-9f57-2f2f5b1a0c11"


def refusals(
    model: type[BaseModel], data: dict[str, Any]
) -> list[tuple[str, tuple[Any, ...], str]]:
    with pytest.raises(ValidationError) as caught:
        model.model_validate(data)
    return [(e["type"], e["loc"], e["msg"]) for e in caught.value.errors()]


def test_create_needs_a_display_name_with_a_character() -> None:
    assert refusals(RecordCreateBody, {})[0][:2] == ("missing", ("displayName",))
    assert refusals(RecordCreateBody, {"displayName": "   "}) == [
        (
            "string_too_short",
            ("displayName",),
            "String should have at least 1 character other than whitespace",
        )
    ]
    assert refusals(RecordCreateBody, {"displayName": "x" * 501})[0][:2] == (
        "string_too_long",
        ("displayName",),
    )
    assert refusals(RecordCreateBody, {"displayName": "Ada", "owner": ID})[0][:2] == (
        "extra_forbidden",
        ("owner",),
    )
    body = RecordCreateBody.model_validate({"displayName": "Ada", "ownerUserId": ID.upper()})
    assert body.fields == {} and body.ownerUserId == UUID(ID)


@pytest.mark.parametrize("prop", ["displayName", "fields"])
def test_update_refuses_an_explicit_null(prop: str) -> None:
    assert refusals(RecordUpdateBody, {prop: None}) == [
        (
            "value_error",
            (prop,),
            "Value error, must not be null; omit the property to leave it unchanged",
        )
    ]
    # left out, the property is simply unchanged
    assert RecordUpdateBody.model_validate({}).model_dump() == {"displayName": None, "fields": None}


def test_bulk_bodies_take_one_to_a_hundred_uuids() -> None:
    assert refusals(BulkDeleteBody, {"recordIds": []}) == [
        ("too_short", ("recordIds",), "List should have at least 1 item after validation, not 0")
    ]
    assert refusals(BulkDeleteBody, {"recordIds": [ID] * 101})[0][:2] == (
        "too_long",
        ("recordIds",),
    )
    assert refusals(BulkUpdateBody, {"recordIds": [ID], "addLabelIds": ["x"]})[0][:2] == (
        "uuid_parsing",
        ("addLabelIds", 0),
    )
    body = BulkUpdateBody.model_validate({"recordIds": [ID]})
    assert body.addLabelIds == body.removeTypeIds == []


def test_query_bounds() -> None:
    assert PickerQuery.model_validate({}).limit == 20
    assert refusals(PickerQuery, {"limit": 101}) == [
        ("less_than_equal", ("limit",), "Input should be less than or equal to 100")
    ]
    assert refusals(PickerQuery, {"search": "s" * 201})[0][:2] == ("string_too_long", ("search",))
    assert refusals(ActivityQuery, {"afterSeq": -1}) == [
        ("greater_than_equal", ("afterSeq",), "Input should be greater than or equal to 0")
    ]
    assert refusals(ActivityQuery, {"limit": 51})[0][:2] == ("less_than_equal", ("limit",))
    assert refusals(RecordActivityQuery, {"groupWithinMinutes": 61})[0][:2] == (
        "less_than_equal",
        ("groupWithinMinutes",),
    )
    assert RecordActivityQuery.model_validate({"limit": "200"}).limit == 200
