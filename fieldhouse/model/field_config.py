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
from fieldhouse.model.formula import FormulaError, parse_formula, validate_formula_config
from fieldhouse.model.rollup import validate_rollup_config
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
AUTONUMBER_FORMATS: tuple[str, ...] = ("none", "prefix", "suffix", "both")
#: Counters the server keeps inside ``config.autonumber``; clients never set them.
AUTONUMBER_RUNTIME_KEYS: tuple[str, ...] = ("nextValue", "sequenceCounters")
MAX_PADDING = 20
_LINK_TYPES = frozenset({"reference", "parent_record"})


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

    ``stored`` is the field's current config when it is being changed: the auto-number counters
    in it survive whatever the client sends (a client never moves a counter).
    """
    out: dict[str, Any] = copy.deepcopy(dict(config))
    issues: list[Issue] = []
    others = {f.slug for f in schema.fields if f.slug != self_slug}
    if data_type == "formula":
        out, issues = validate_formula_config(out, others, self_slug=self_slug)
    elif data_type == "rollup":
        links = {f.slug for f in schema.fields if f.data_type in _LINK_TYPES}
        issues = validate_rollup_config(out, linked_field_slugs=links - {self_slug})
    elif data_type in ("select", "multi_select"):
        issues = _check_options(out.get("options"))
    elif data_type == "autonumber":
        issues = _check_autonumber(out, others, stored)
    return out, issues


def _check_options(options: Any) -> list[Issue]:
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


def _check_autonumber(
    out: dict[str, Any], others: set[str], stored: Mapping[str, Any] | None
) -> list[Issue]:
    base: tuple[str, ...] = ("config", "autonumber")
    raw = out.get("autonumber", {})
    if not isinstance(raw, Mapping):
        return [Issue("invalid_type", base, "autonumber settings must be an object")]
    auto = dict(raw)
    issues: list[Issue] = []
    fmt = auto.setdefault("formatType", "none")
    if fmt not in AUTONUMBER_FORMATS:
        message = f"formatType must be one of {', '.join(AUTONUMBER_FORMATS)}"
        extra = {"options": list(AUTONUMBER_FORMATS)}
        issues.append(Issue("invalid_enum_value", (*base, "formatType"), message, extra))
    for key, low, high in (("padding", 0, MAX_PADDING), ("padLength", 0, MAX_PADDING)):
        issues.extend(_int_between(auto.get(key), (*base, key), low, high))
    issues.extend(_int_between(auto.get("startFrom"), (*base, "startFrom"), 0, None))
    for key in ("prefix", "suffix"):
        if auto.get(key) is not None and not isinstance(auto.get(key), str):
            issues.append(Issue("invalid_type", (*base, key), f"{key} must be a string"))
    type_slug = auto.get("typeFieldSlug")
    if type_slug is not None and type_slug not in others:
        message = f"typeFieldSlug {type_slug!r} is not a field of this module"
        issues.append(Issue("unknown_field", (*base, "typeFieldSlug"), message))
    by_type = auto.get("sequenceByType")
    if by_type is not None and not isinstance(by_type, Mapping):
        issues.append(
            Issue("invalid_type", (*base, "sequenceByType"), "sequenceByType must be an object")
        )
    previous = (stored or {}).get("autonumber")
    for key in AUTONUMBER_RUNTIME_KEYS:
        auto.pop(key, None)
        if isinstance(previous, Mapping) and key in previous:
            auto[key] = copy.deepcopy(previous[key])
    out["autonumber"] = auto
    return issues


def _int_between(
    value: Any, path: tuple[str | int, ...], low: int, high: int | None
) -> list[Issue]:
    if value is None:
        return []
    name = str(path[-1])
    if isinstance(value, bool) or not isinstance(value, int):
        return [Issue("invalid_type", path, f"{name} must be an integer")]
    if value < low:
        return [
            Issue(
                "too_small",
                path,
                f"{name} must be at least {low}",
                {"minimum": low, "inclusive": True, "type": "number"},
            )
        ]
    if high is not None and value > high:
        return [
            Issue(
                "too_big",
                path,
                f"{name} must be at most {high}",
                {"maximum": high, "inclusive": True, "type": "number"},
            )
        ]
    return []


def dependent_fields(
    schemas: Mapping[str, ModuleSchema], schema: ModuleSchema, field: FieldDef
) -> list[str]:
    """``module.field`` names of fields whose definition names ``field``."""
    out: list[str] = []
    slug = field.slug
    for f in schema.fields:
        if f.field_id == field.field_id:
            continue
        cfg = f.config
        uses = (
            (f.data_type == "formula" and slug in formula_refs(cfg))
            or (
                f.data_type == "rollup" and (cfg.get("rollup") or {}).get("linkedFieldSlug") == slug
            )
            or (
                f.data_type == "autonumber"
                and (cfg.get("autonumber") or {}).get("typeFieldSlug") == slug
            )
            or ((cfg.get("reference") or {}).get("dependency") or {}).get("dependsOnFieldSlug")
            == slug
        )
        if uses:
            out.append(f"{schema.module.slug}.{f.slug}")
    for other in schemas.values():
        links = {f.slug: f for f in other.fields if f.data_type == "reference"}
        for f in other.fields:
            rollup = f.config.get("rollup") or {} if f.data_type == "rollup" else {}
            linked = links.get(str(rollup.get("linkedFieldSlug")))
            if linked is None or rollup.get("aggregateFieldSlug") != slug:
                continue
            allowed = (linked.config.get("reference") or {}).get("allowedModuleSlugs") or []
            if schema.module.slug in allowed:
                out.append(f"{other.module.slug}.{f.slug}")
    return out


def formula_refs(config: Mapping[str, Any]) -> list[str]:
    settings = config.get("formula") or {}
    expression = settings.get("expression")
    if isinstance(expression, str):
        try:
            return list(parse_formula(expression).referenced_fields)
        except FormulaError:
            pass
    return list(settings.get("referencedFields") or [])
