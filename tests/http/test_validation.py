"""Request parsing: pydantic's errors become the envelope's zod-style issues."""

from __future__ import annotations

import uuid
from typing import Any, Literal

import pytest
from pydantic import BaseModel, ConfigDict, Field, field_validator

from fieldhouse.http.validation import InvalidJson, parse_json_body, validate_model
from fieldhouse.model.errors import ValidationFailed


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=5)
    count: int = Field(default=0, ge=0, le=10)
    tags: list[str] = Field(default_factory=list, max_length=2)
    kind: Literal["a", "b"] = "a"
    ref: uuid.UUID | None = None

    @field_validator("name")
    @classmethod
    def _no_x(cls, value: str) -> str:
        if value == "x":
            raise ValueError("x is taken")
        return value


def issues(data: Any, prefix: tuple[str | int, ...] = ()) -> list[dict[str, Any]]:
    with pytest.raises(ValidationFailed) as caught:
        validate_model(Body, data, prefix)
    return [i.to_json() for i in caught.value.issues]


def test_a_valid_body_is_the_model() -> None:
    assert validate_model(Body, {"name": "ok", "count": 3}) == Body(name="ok", count=3)


def test_missing_and_unknown_keys() -> None:
    assert issues({"nmae": "typo"}, ("body",)) == [
        {
            "code": "invalid_type",
            "path": ["body", "name"],
            "message": "Required",
            "expected": "value",
            "received": "undefined",
        },
        {
            "code": "unrecognized_keys",
            "path": ["body"],
            "message": "Unrecognized key: 'nmae'",
            "keys": ["nmae"],
        },
    ]


def test_bounds_carry_their_limits() -> None:
    found = issues({"name": "", "count": 11, "tags": ["a", "b", "c"]})
    assert [(i["code"], i["path"]) for i in found] == [
        ("too_small", ["name"]),
        ("too_big", ["count"]),
        ("too_big", ["tags"]),
    ]
    assert (found[0]["minimum"], found[0]["type"]) == (1, "string")
    assert (found[1]["maximum"], found[1]["inclusive"], found[1]["type"]) == (10, True, "number")
    assert (found[2]["maximum"], found[2]["type"]) == (2, "array")


def test_wrong_types_name_what_was_expected_and_received() -> None:
    found = issues({"name": 5, "count": "many"})
    assert [(i["code"], i["expected"], i["received"]) for i in found] == [
        ("invalid_type", "string", "number"),
        ("invalid_type", "integer", "string"),
    ]


def test_enum_uuid_and_custom_errors() -> None:
    found = issues({"name": "x", "kind": "c", "ref": "nope"})
    by_path = {tuple(i["path"]): i for i in found}
    assert by_path[("name",)]["code"] == "custom"
    assert by_path[("name",)]["message"] == "x is taken"
    assert by_path[("kind",)]["code"] == "invalid_enum_value"
    assert by_path[("kind",)]["options"] == ["a", "b"]
    assert by_path[("ref",)] == {
        "code": "invalid_string",
        "path": ["ref"],
        "message": "Invalid uuid",
        "validation": "uuid",
    }


def test_the_message_summarises_the_first_issue() -> None:
    with pytest.raises(ValidationFailed) as caught:
        validate_model(Body, {"name": "", "count": -1})
    assert caught.value.message == (
        "Validation failed: name: String should have at least 1 character (and 1 more)"
    )
    assert caught.value.status == 400


def test_json_bodies() -> None:
    assert parse_json_body(b' {"a": [1, 2.5, null]} ') == {"a": [1, 2.5, None]}
    with pytest.raises(InvalidJson, match="it was empty"):
        parse_json_body(b"  \n")
    with pytest.raises(InvalidJson, match=r"^Malformed JSON in request body: ") as caught:
        parse_json_body(b'{"a": ')
    assert (caught.value.status, caught.value.code) == (400, "invalid_json")
