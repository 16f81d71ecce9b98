"""select, multi_select and boolean values."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from fieldhouse.model.errors import Issue
from fieldhouse.model.fields._base import (
    MAX_LIST_ITEMS,
    Result,
    cfg_bool,
    cfg_int,
    invalid_enum,
    invalid_type,
    sub,
    too_big_array,
    too_big_string,
)
from fieldhouse.model.fields.base import (
    CellKind,
    ConfigContext,
    EditedAs,
    FieldType,
    FilteredAs,
    Grouping,
    ShownAs,
    Spoken,
)
from fieldhouse.model.fields.kind import FilterKind
from fieldhouse.model.schema import FieldDef

FREE_FORM_MAX_LENGTH = 255


def option_values(config: Mapping[str, Any]) -> tuple[str, ...]:
    """The values of ``options``: each a string or ``{value, label?, color?}``."""
    raw = config.get("options")
    if not isinstance(raw, list | tuple):
        return ()
    out: list[str] = []
    for option in raw:
        if isinstance(option, str):
            out.append(option)
        elif isinstance(option, Mapping) and isinstance(option.get("value"), str):
            out.append(option["value"])
    return tuple(out)


def normalise_select(field: FieldDef, value: Any) -> Result:
    """One of the configured option values."""
    if not isinstance(value, str):
        return None, [invalid_type("string", value)]
    options = option_values(field.config)
    if value not in options:
        return None, [invalid_enum(options, value)]
    return value, []


def normalise_multi_select(field: FieldDef, value: Any) -> Result:
    """A list of option values, duplicates dropped in order, at most ``multiSelect.maxItems``.

    With ``multiSelect.allowFreeForm`` any non-empty string up to 255 characters is accepted.
    """
    if not isinstance(value, list | tuple):
        return None, [invalid_type("array", value)]
    settings = sub(field.config, "multiSelect")
    free_form = cfg_bool(settings, "allowFreeForm", False)
    options = option_values(field.config)
    max_items = cfg_int(settings, "maxItems", MAX_LIST_ITEMS, 0, MAX_LIST_ITEMS)
    if len(value) > MAX_LIST_ITEMS:
        return None, [too_big_array(max_items, len(value))]
    issues: list[Issue] = []
    out: list[str] = []
    for index, item in enumerate(value):
        if not isinstance(item, str):
            issues.append(invalid_type("string", item, (index,)))
        elif item in options:
            if item not in out:
                out.append(item)
        elif free_form and item:
            if len(item) > FREE_FORM_MAX_LENGTH:
                issues.append(too_big_string(FREE_FORM_MAX_LENGTH, len(item), (index,)))
            elif item not in out:
                out.append(item)
        else:
            issues.append(invalid_enum(options, item, (index,)))
    if not issues and len(out) > max_items:
        issues.append(too_big_array(max_items, len(out)))
    return (None, issues) if issues else (out, [])


def normalise_boolean(field: FieldDef, value: Any) -> Result:
    """Strictly ``true`` or ``false``."""
    if not isinstance(value, bool):
        return None, [invalid_type("boolean", value)]
    return value, []


def check_options(options: Any) -> list[Issue]:
    """Problems of a select field's ``config.options`` (non-empty, distinct string values)."""
    path: tuple[str | int, ...] = ("config", "options")
    if not isinstance(options, list) or not options:
        return [Issue("invalid_type", path, "options must be a non-empty list of options")]
    issues: list[Issue] = []
    seen: set[str] = set()
    for index, item in enumerate(options):
        value = item.get("value") if isinstance(item, Mapping) else item
        if not isinstance(value, str) or not value:
            message = "each option must be a non-empty string or an object with a string value"
            issues.append(Issue("invalid_type", (*path, index), message))
        elif value in seen:
            issues.append(Issue("duplicate", (*path, index), f"option {value!r} is listed twice"))
        else:
            seen.add(value)
    return issues


# --- field types ------------------------------------------------------------------------------


class SelectType(FieldType):
    data_type = "select"
    spoken: ClassVar[Spoken | None] = "choice"
    example: ClassVar[Any] = "won"
    example_config: ClassVar[Mapping[str, Any]] = {"options": ["lead", "won"]}
    searchable = True
    grouping: ClassVar[Grouping | None] = "choice"
    csv_cell: ClassVar[CellKind] = "string"
    shown_as: ClassVar[ShownAs] = "option"
    edited_as: ClassVar[EditedAs | None] = "option"
    filtered_as: ClassVar[FilteredAs | None] = "choice"

    def normalise(self, field: FieldDef, value: Any) -> Result:
        return normalise_select(field, value)

    def default(self, field: FieldDef) -> Any:
        chosen = sub(field.config, "select").get("defaultOptionSlug")
        return chosen if isinstance(chosen, str) and chosen else None

    def check_config(
        self, config: dict[str, Any], ctx: ConfigContext
    ) -> tuple[dict[str, Any], list[Issue]]:
        return config, check_options(config.get("options"))

    def filter_kind(self, field: FieldDef) -> FilterKind:
        return FilterKind("exact", field.slug)

    def value_schema(self) -> dict[str, Any]:
        return {"type": "string", "description": "one of the field's option values"}


class MultiSelectType(SelectType):
    data_type = "multi_select"
    spoken = "choices"
    example = ["won"]
    example_config: ClassVar[Mapping[str, Any]] = {"options": ["lead", "won"]}
    grouping = None
    csv_cell = "comma_list"
    shown_as = "options"
    edited_as = "options"

    def normalise(self, field: FieldDef, value: Any) -> Result:
        return normalise_multi_select(field, value)

    def default(self, field: FieldDef) -> Any:
        chosen = sub(field.config, "multiSelect").get("defaultOptionSlugs")
        return [str(d) for d in chosen] if isinstance(chosen, list | tuple) and chosen else None

    def filter_kind(self, field: FieldDef) -> FilterKind:
        return FilterKind("exact", field.slug, multi=True)

    def value_schema(self) -> dict[str, Any]:
        return {"type": "array", "items": {"type": "string"}, "maxItems": MAX_LIST_ITEMS}


class BooleanType(FieldType):
    data_type = "boolean"
    spoken = "flag"
    example = True
    grouping = "boolean"
    csv_cell = "boolean"
    shown_as = "yes_no"
    edited_as = "checkbox"
    filtered_as = "flag"

    def normalise(self, field: FieldDef, value: Any) -> Result:
        return normalise_boolean(field, value)

    def default(self, field: FieldDef) -> Any:
        chosen = field.config.get("default")
        return chosen if isinstance(chosen, bool) else None

    def filter_kind(self, field: FieldDef) -> FilterKind:
        return FilterKind("boolean", field.slug)

    def value_schema(self) -> dict[str, Any]:
        return {"type": "boolean"}
