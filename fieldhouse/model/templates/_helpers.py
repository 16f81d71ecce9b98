"""Small builders shared by the built-in templates, so each template reads as data."""

from __future__ import annotations

from typing import Any

from fieldhouse.model.schema import TemplateReference


def option(value: str, label: str, color: str) -> dict[str, str]:
    """One select / multi-select option in the SPEC's object form {value, label, color}."""
    return {"value": value, "label": label, "color": color}


def module_reference_config(
    target_module_slug: str, *, multi: bool, allow_inline_create: bool = True
) -> dict[str, Any]:
    """The ``config`` of a ``reference`` field pointing at records of one module."""
    return {
        "reference": {
            "targetType": "module",
            "selectionMode": "multi" if multi else "single",
            "allowedModuleSlugs": [target_module_slug],
            "includeArchivedTargets": False,
            "allowInlineCreate": allow_inline_create,
        }
    }


def field_reference(
    field_slug: str, target_module_slug: str, *, multi: bool, cascade_delete: bool = False
) -> TemplateReference:
    """The module reference that a reference or parent_record field carries (slug = field slug)."""
    return TemplateReference(
        slug=field_slug,
        source_field_slug=field_slug,
        relationship_type="many_to_many" if multi else "many_to_one",
        target_type="module",
        target_module_slug=target_module_slug,
        cascade_delete=cascade_delete,
    )
