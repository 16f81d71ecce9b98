"""select, multi_select and boolean values."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fieldhouse.model.errors import Issue
from fieldhouse.model.schema import FieldDef
from fieldhouse.model.values._base import (
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
