"""formula, rollup and autonumber: values the server computes; a client never sets them."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from fieldhouse.model.errors import Issue
from fieldhouse.model.fields._base import MAX_SAFE_NUMBER, Result, issue
from fieldhouse.model.fields.base import ConfigContext, FieldType
from fieldhouse.model.fields.kind import Base, FilterKind
from fieldhouse.model.formula import formula_refs, validate_formula_config
from fieldhouse.model.rollup import rollup_source, validate_rollup_config
from fieldhouse.model.schema import FieldDef

AUTONUMBER_FORMATS: tuple[str, ...] = ("none", "prefix", "suffix", "both")
#: Counters the server keeps inside ``config.autonumber``; clients never set them.
AUTONUMBER_RUNTIME_KEYS: tuple[str, ...] = ("nextValue", "sequenceCounters")
MAX_PADDING = 20

_FORMULA_BASES: Mapping[str, Base] = {"number": "number", "date": "date", "boolean": "boolean"}


class _Computed(FieldType):
    read_only = True

    def normalise(self, field: FieldDef, value: Any) -> Result:
        return None, [issue("read_only", f"Field {field.slug!r} is computed and cannot be set")]


class FormulaType(_Computed):
    data_type = "formula"
    derived = True
    shown_as = "formula_result"

    def check_config(
        self, config: dict[str, Any], ctx: ConfigContext
    ) -> tuple[dict[str, Any], list[Issue]]:
        return validate_formula_config(config, ctx.other_slugs, self_slug=ctx.self_slug)

    def reads_fields(self, field: FieldDef) -> frozenset[str]:
        return frozenset(formula_refs(field.config))

    def filter_kind(self, field: FieldDef) -> FilterKind:
        settings = field.config.get("formula")
        result = settings.get("resultType") if isinstance(settings, Mapping) else None
        return FilterKind(_FORMULA_BASES.get(str(result), "text"), field.slug)

    def value_schema(self) -> dict[str, Any]:
        return {"type": ["string", "number", "boolean", "null"]}


class RollupType(_Computed):
    data_type = "rollup"
    derived = True
    shown_as = "amount_or_text"

    def check_config(
        self, config: dict[str, Any], ctx: ConfigContext
    ) -> tuple[dict[str, Any], list[Issue]]:
        return config, validate_rollup_config(config, linked_field_slugs=ctx.linking_slugs)

    def reads_fields(self, field: FieldDef) -> frozenset[str]:
        linked = rollup_source(field.config).linked_field_slug
        return frozenset({linked}) if linked is not None else frozenset()

    def filter_kind(self, field: FieldDef) -> FilterKind:
        return FilterKind("number", field.slug)

    def value_schema(self) -> dict[str, Any]:
        return {"type": ["number", "string", "null"]}


class AutonumberType(_Computed):
    """Assigned on create from a per-field (or per-type) sequence; rendered with affixes."""

    data_type = "autonumber"
    searchable = True
    counts = True

    def check_config(
        self, config: dict[str, Any], ctx: ConfigContext
    ) -> tuple[dict[str, Any], list[Issue]]:
        return config, _check_autonumber(config, ctx.other_slugs, ctx.stored)

    def reads_fields(self, field: FieldDef) -> frozenset[str]:
        type_slug = (field.config.get("autonumber") or {}).get("typeFieldSlug")
        return frozenset({type_slug}) if isinstance(type_slug, str) else frozenset()

    def filter_kind(self, field: FieldDef) -> FilterKind:
        return FilterKind("text", field.slug)

    def value_schema(self) -> dict[str, Any]:
        return {"type": "string"}

    def next_number(
        self, config: Mapping[str, Any], sequence: str | None
    ) -> tuple[int, dict[str, Any]]:
        """``autonumber.nextValue`` (or ``autonumber.sequenceCounters[sequence]``) holds the
        next number; ``startFrom`` (default 1, and 0 is a valid start) seeds a counter that
        has none yet."""
        auto = dict(config.get("autonumber") or {})
        start = auto.get("startFrom")
        first = 1 if start is None else int(start)
        holder, key = auto, "nextValue"
        if sequence is not None:
            holder = auto["sequenceCounters"] = dict(auto.get("sequenceCounters") or {})
            key = sequence
        current = holder.get(key)
        number = first if current is None else int(current)
        holder[key] = number + 1
        return number, {**config, "autonumber": auto}

    def sequence(self, field: FieldDef, values: Mapping[str, Any]) -> str | None:
        """The named sequence a new record draws from (per ``sequenceByType``), or None."""
        config = field.config.get("autonumber") or {}
        type_slug = config.get("typeFieldSlug")
        by_type = config.get("sequenceByType") or {}
        chosen = values.get(type_slug) if type_slug else None
        if isinstance(chosen, str) and chosen in by_type:
            return str(by_type[chosen].get("sequenceName") or chosen)
        return None

    def render(self, field: FieldDef, values: Mapping[str, Any], number: int) -> str:
        """The stored value for ``number``: padded, with the configured prefix and suffix."""
        config = field.config.get("autonumber") or {}
        prefix, suffix = str(config.get("prefix") or ""), str(config.get("suffix") or "")
        type_slug = config.get("typeFieldSlug")
        by_type = config.get("sequenceByType") or {}
        chosen = values.get(type_slug) if type_slug else None
        if isinstance(chosen, str) and chosen in by_type:
            prefix = str(by_type[chosen].get("prefix") or prefix)
        padding = int(config.get("padding") or config.get("padLength") or 0)
        digits = str(number).zfill(padding)
        kind = config.get("formatType") or ("prefix" if prefix else "none")
        return {
            "none": digits,
            "prefix": prefix + digits,
            "suffix": digits + suffix,
            "both": prefix + digits + suffix,
        }.get(str(kind), digits)


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
    # the counter is a JSON number in the field's config: one every client reads exactly
    issues.extend(_int_between(auto.get("startFrom"), (*base, "startFrom"), 0, MAX_SAFE_NUMBER))
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
