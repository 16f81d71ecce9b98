"""Checking a field definition's ``config`` when a custom field is created or changed.

Pure functions: the workspace actor hands in the module schema. Issues carry body-relative
paths (``("config", ...)``) so they render as zod-style issues of the request body.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from typing import Any

from fieldhouse.model.errors import Issue
from fieldhouse.model.fields import ConfigContext, field_type, type_of
from fieldhouse.model.fields.computed import (
    AUTONUMBER_FORMATS,
    AUTONUMBER_RUNTIME_KEYS,
    MAX_PADDING,
    RollupType,
)
from fieldhouse.model.formula import formula_refs
from fieldhouse.model.rollup import rollup_source
from fieldhouse.model.schema import FieldDef, ModuleSchema

__all__ = [
    "AUTONUMBER_FORMATS",
    "AUTONUMBER_RUNTIME_KEYS",
    "MAX_PADDING",
    "SLUG_PATTERN",
    "check_field_config",
    "dependent_fields",
    "formula_refs",
    "name_from_slug",
    "slug_from_label",
]

SLUG_PATTERN = r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$"


def slug_from_label(label: str) -> str:
    """A kebab-case slug for a label ("Renewal date!" -> "renewal-date"); at most 64 chars."""
    slug = re.sub(r"[^a-z0-9]+", "-", label.lower()).strip("-")[:64].strip("-")
    if not slug or not slug[0].isalpha():
        slug = ("field-" + slug).strip("-")[:64].strip("-")
    return slug


def name_from_slug(slug: str) -> str:
    """The PascalCase API name of a slug ("renewal-date" -> "RenewalDate")."""
    return "".join(part[:1].upper() + part[1:] for part in slug.split("-"))


def check_field_config(
    data_type: str,
    config: Mapping[str, Any],
    schema: ModuleSchema,
    *,
    self_slug: str,
    stored: Mapping[str, Any] | None = None,
) -> tuple[dict[str, Any], list[Issue]]:
    """The config to store for a field of ``data_type`` in ``schema``, and its problems.

    The field type checks its own config. ``stored`` is the field's current config when it is
    being changed: the auto-number counters in it survive whatever the client sends (a client
    never moves a counter).
    """
    out: dict[str, Any] = copy.deepcopy(dict(config))
    kind = field_type(data_type)
    if kind is None:
        return out, []
    linking = frozenset(f.slug for f in schema.fields if f.slug != self_slug and _links_records(f))
    return kind.check_config(out, ConfigContext(schema, self_slug, stored, linking))


def _links_records(f: FieldDef) -> bool:
    kind = type_of(f)
    return kind is not None and kind.links_records


def dependent_fields(
    schemas: Mapping[str, ModuleSchema], schema: ModuleSchema, field: FieldDef
) -> list[str]:
    """``module.field`` names of fields whose definition names ``field``."""
    out: list[str] = []
    slug = field.slug
    for f in schema.fields:
        if f.field_id == field.field_id:
            continue
        kind = type_of(f)
        if kind is not None and slug in kind.reads_fields(f):
            out.append(f"{schema.module.slug}.{f.slug}")
    for other in schemas.values():
        links = {f.slug: f for f in other.fields if _links_records(f)}
        for f in other.fields:
            if not isinstance(type_of(f), RollupType):
                continue
            source = rollup_source(f.config)
            linked = links.get(source.linked_field_slug or "")
            if linked is None or source.aggregate_field_slug != slug:
                continue
            linked_kind = type_of(linked)
            allowed = linked_kind.allowed_modules(linked) if linked_kind is not None else ()
            if schema.module.slug in allowed:
                out.append(f"{other.module.slug}.{f.slug}")
    return out
