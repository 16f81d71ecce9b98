"""Helpers shared by the field-type value tests in this folder and tests/model/values/."""

from __future__ import annotations

from typing import Any

from fieldhouse.model.schema import FieldDef
from fieldhouse.model.values import ValueCheck, check_values


def fd(
    data_type: str, slug: str | None = None, *, required: bool = False, **config: Any
) -> FieldDef:
    """A FieldDef of ``data_type`` whose slug defaults to the type name with dashes."""
    slug = slug or data_type.replace("_", "-")
    return FieldDef(
        field_id=f"id-{slug}",
        module_id="module-1",
        name=slug.title().replace("-", ""),
        slug=slug,
        label=slug.replace("-", " ").title(),
        data_type=data_type,
        config=config,
        is_required=required,
    )


def run(data_type: str, value: Any, **config: Any) -> ValueCheck:
    """Check one optional field of ``data_type`` as an update supplying ``value``."""
    field = fd(data_type, **config)
    return check_values([field], {field.slug: value}, existing={})


def ok(data_type: str, value: Any, **config: Any) -> Any:
    """The normalised value; fails the test when there are issues."""
    result = run(data_type, value, **config)
    assert result.issues == (), [i.to_json() for i in result.issues]
    return result.values[data_type.replace("_", "-")]


def bad(data_type: str, value: Any, **config: Any) -> list[tuple[str, tuple[str | int, ...]]]:
    """``(code, path)`` of every issue, with the ``("fields", slug)`` prefix removed."""
    result = run(data_type, value, **config)
    slug = data_type.replace("_", "-")
    assert result.issues, f"expected issues for {value!r}"
    assert slug not in result.values
    out = []
    for found in result.issues:
        assert found.path[:2] == ("fields", slug)
        assert found.message
        out.append((found.code, found.path[2:]))
    return out


def issue_json(data_type: str, value: Any, **config: Any) -> list[dict[str, Any]]:
    return [i.to_json() for i in run(data_type, value, **config).issues]
