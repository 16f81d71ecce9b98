"""Typed request parsing: pydantic models in, zod-style issues out."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

import orjson
from pydantic import BaseModel, ValidationError

from fieldhouse.model.errors import ApiError, Issue, ValidationFailed

M = TypeVar("M", bound=BaseModel)

_TYPE_NAMES = {
    "string_type": "string",
    "int_type": "integer",
    "int_parsing": "integer",
    "int_from_float": "integer",
    "float_type": "number",
    "float_parsing": "number",
    "bool_type": "boolean",
    "bool_parsing": "boolean",
    "list_type": "array",
    "dict_type": "object",
    "model_type": "object",
    "model_attributes_type": "object",
}


class InvalidJson(ApiError):
    code = "invalid_json"
    status = 400


def issue_from_pydantic(err: Mapping[str, Any], prefix: tuple[str | int, ...] = ()) -> Issue:
    """Translate one pydantic error into the envelope's issue shape."""
    kind = str(err["type"])
    ctx = err.get("ctx") or {}
    path = (*prefix, *err["loc"])
    message = str(err["msg"])
    extra: dict[str, Any] = {}
    if kind == "missing":
        return Issue(
            "invalid_type", path, "Required", {"expected": "value", "received": "undefined"}
        )
    if kind == "extra_forbidden":
        name = path[-1]
        return Issue(
            "unrecognized_keys", path[:-1], f"Unrecognized key: {name!r}", {"keys": [name]}
        )
    if kind in ("string_too_short", "too_short"):
        extra = {
            "minimum": ctx.get("min_length"),
            "inclusive": True,
            "type": "string" if kind.startswith("string") else "array",
        }
        return Issue("too_small", path, message, extra)
    if kind in ("string_too_long", "too_long"):
        extra = {
            "maximum": ctx.get("max_length"),
            "inclusive": True,
            "type": "string" if kind.startswith("string") else "array",
        }
        return Issue("too_big", path, message, extra)
    if kind in ("greater_than_equal", "greater_than"):
        bound = ctx.get("ge", ctx.get("gt"))
        extra = {"minimum": bound, "inclusive": kind == "greater_than_equal", "type": "number"}
        return Issue("too_small", path, message, extra)
    if kind in ("less_than_equal", "less_than"):
        bound = ctx.get("le", ctx.get("lt"))
        extra = {"maximum": bound, "inclusive": kind == "less_than_equal", "type": "number"}
        return Issue("too_big", path, message, extra)
    if kind == "int_parsing_size":  # a number of thousands of digits: past every bound
        return Issue("too_big", path, "Number is too large", {"type": "number"})
    if kind in ("literal_error", "enum"):
        expected = ctx.get("expected", "")
        return Issue("invalid_enum_value", path, message, {"options": _options(str(expected))})
    if kind in ("uuid_parsing", "uuid_type"):
        return Issue("invalid_string", path, "Invalid uuid", {"validation": "uuid"})
    if kind in _TYPE_NAMES:
        extra = {"expected": _TYPE_NAMES[kind], "received": _received(err.get("input"))}
        return Issue("invalid_type", path, message, extra)
    if kind == "value_error":
        return Issue("custom", path, message.removeprefix("Value error, "))
    return Issue("custom", path, message)


def _options(expected: str) -> list[str]:
    return [part.strip().strip("'\"") for part in expected.replace(" or ", ",").split(",") if part]


def _received(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def validate_model(model: type[M], data: Any, prefix: tuple[str | int, ...] = ()) -> M:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        issues = [issue_from_pydantic(e, prefix) for e in exc.errors(include_url=False)]
        raise ValidationFailed(issues) from None


def parse_json_body(raw: bytes) -> Any:
    if not raw.strip():
        raise InvalidJson("Request body must be a JSON object; it was empty")
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise InvalidJson(f"Malformed JSON in request body: {exc}") from None
