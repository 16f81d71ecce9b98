"""The workspace metadata models: request bodies refuse unknown properties, blank strings and
booleans posing as numbers; response models keep properties they do not know."""

from __future__ import annotations

import typing
from typing import Annotated, Any

import pydantic
import pytest
from pydantic import BaseModel, ValidationError

from fieldhouse.http.models import (
    ErrorEnvelope,
    JsonInt,
    JsonNumber,
    NamedItemBody,
    NonBlank,
    Strict,
    TypeBody,
)


class Numbers(Strict):
    count: JsonInt = 0
    ratio: JsonNumber = 0.0


class Named(Strict):
    name: NonBlank


def refusals(
    model: type[BaseModel], data: dict[str, Any]
) -> list[tuple[str, tuple[Any, ...], str]]:
    with pytest.raises(ValidationError) as caught:
        model.model_validate(data)
    return [(e["type"], e["loc"], e["msg"]) for e in caught.value.errors()]


@pytest.mark.parametrize(("field", "kind"), [("count", "int_type"), ("ratio", "float_type")])
def test_a_boolean_or_a_string_is_not_a_number(field: str, kind: str) -> None:
    assert refusals(Numbers, {field: True}) == [
        (kind, (field,), "Input should be a number, not a boolean")
    ]
    for text in ("5", "1_000", "inf", "nan"):  # what pydantic's lax mode would convert
        assert refusals(Numbers, {field: text}) == [
            (kind, (field,), "Input should be a number, not a string")
        ]
    # a real number still passes, and a float body property takes an integer
    assert Numbers.model_validate({"count": 3, "ratio": 1}).model_dump() == {
        "count": 3,
        "ratio": 1.0,
    }


def test_a_blank_string_has_no_character() -> None:
    assert refusals(Named, {"name": " \t\n"}) == [
        (
            "string_too_short",
            ("name",),
            "String should have at least 1 character other than whitespace",
        )
    ]
    assert Named.model_validate({"name": " x "}).name == " x "


def test_request_bodies_refuse_unknown_properties_and_check_lengths() -> None:
    assert refusals(NamedItemBody, {"name": "VIP", "colour": "red"}) == [
        ("extra_forbidden", ("colour",), "Extra inputs are not permitted")
    ]
    assert refusals(NamedItemBody, {"name": "x" * 101, "color": "c" * 33}) == [
        ("string_too_long", ("name",), "String should have at most 100 characters"),
        ("string_too_long", ("color",), "String should have at most 32 characters"),
    ]
    assert refusals(TypeBody, {"name": "Partner", "moduleSlug": ""}) == [
        ("string_too_short", ("moduleSlug",), "String should have at least 1 character")
    ]
    body = TypeBody.model_validate({"name": "Partner"})
    assert (body.name, body.color, body.moduleSlug) == ("Partner", None, None)


def test_response_models_keep_unknown_properties() -> None:
    envelope = ErrorEnvelope.model_validate(
        {"error": {"code": "conflict", "message": "m", "statusCode": 409, "hint": "retry"}}
    )
    assert envelope.model_dump(exclude_none=True) == {
        "error": {"code": "conflict", "message": "m", "statusCode": 409, "hint": "retry"}
    }


def _body_models() -> set[type[BaseModel]]:
    from fieldhouse.http.routes import ROUTES

    found: set[type[BaseModel]] = set()
    pending = [spec.body for routes in ROUTES for spec, _ in routes.entries if spec.body]
    while pending:
        model = pending.pop()
        if model in found:
            continue
        found.add(model)
        for info in model.model_fields.values():
            for arg in typing.get_args(info.annotation) or (info.annotation,):
                for inner in typing.get_args(arg) or (arg,):
                    if isinstance(inner, type) and issubclass(inner, BaseModel):
                        pending.append(inner)
    return found


def test_every_request_body_number_and_boolean_takes_its_json_type_only() -> None:
    """What /openapi.json says of a body property is all it takes: `true` or `"5"` for an
    integer, 1 or `"true"` for a boolean, are refused (pydantic's lax mode takes them)."""
    lax: list[str] = []
    for model in _body_models():
        for name, info in model.model_fields.items():
            kinds = set(typing.get_args(info.annotation) or (info.annotation,)) - {type(None)}
            for kind, wrong in ((int, [True, "5"]), (float, [True, "0.5"]), (bool, [1, "true"])):
                if kinds != {kind}:
                    continue
                for value in wrong:
                    adapter = pydantic.TypeAdapter(Annotated[kind, *info.metadata])
                    try:
                        adapter.validate_python(value)
                    except ValidationError:
                        continue
                    lax.append(f"{model.__name__}.{name} takes {value!r}")
    assert not lax
