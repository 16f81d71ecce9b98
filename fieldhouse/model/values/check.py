"""The driver: validate and normalise a record's supplied field values against its fields.

Pure: nothing here reads storage. Each field's :class:`FieldType` normalises its value; links to
other records and to users are returned as checks (:class:`ReferenceCheck`,
:class:`ParentCheck`, :class:`UserCheck`) for the caller to verify.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from fieldhouse.model.errors import Issue
from fieldhouse.model.fields import (
    FieldType,
    LinkCheck,
    ParentCheck,
    ReferenceCheck,
    UserCheck,
    is_empty,
    type_of,
)
from fieldhouse.model.fields._base import Result, issue
from fieldhouse.model.schema import FieldDef


@dataclass(frozen=True)
class ValueCheck:
    values: dict[str, Any]
    issues: tuple[Issue, ...]
    references: tuple[ReferenceCheck, ...]
    parents: tuple[ParentCheck, ...]
    users: tuple[UserCheck, ...]

    @classmethod
    def of(
        cls, values: dict[str, Any], issues: Sequence[Issue], links: Sequence[LinkCheck]
    ) -> ValueCheck:
        """The check with ``links`` sorted by what they name (each kind in their order)."""
        return cls(
            values,
            tuple(issues),
            tuple(link for link in links if isinstance(link, ReferenceCheck)),
            tuple(link for link in links if isinstance(link, ParentCheck)),
            tuple(link for link in links if not isinstance(link, ReferenceCheck | ParentCheck)),
        )


def _read_only(field: FieldDef) -> Issue:
    return issue("read_only", f"Field {field.slug!r} is computed and cannot be set")


def normalise_value(field: FieldDef, value: Any) -> Result:
    """Validate and normalise one value for ``field``; issue paths are relative to the value.

    ``None`` normalises to ``None`` without issue (whether the field may be empty is the
    caller's concern; :func:`check_values` applies ``is_required``). Read-only kinds always
    give a ``read_only`` issue.
    """
    kind = type_of(field)
    if kind is None:
        return None, [issue("custom", f"Field type {field.data_type!r} is not supported")]
    if kind.read_only:
        return None, [_read_only(field)]
    if value is None:
        return None, []
    try:
        return kind.normalise(field, value)
    except RecursionError:
        return None, [issue("custom", "Value is nested too deeply")]


def _required(field: FieldDef) -> Issue:
    return issue("required", f"Field {field.slug!r} is required", ("fields", field.slug))


def _writable(kind: FieldType | None) -> bool:
    return kind is None or not kind.read_only


def check_values(
    fields: Sequence[FieldDef],
    supplied: Mapping[str, Any],
    *,
    existing: Mapping[str, Any] | None,
    archived: Collection[str] = (),
) -> ValueCheck:
    """Validate ``supplied`` (values keyed by field slug) for a create or an update.

    ``existing is None`` means a create: every required, writable field must be supplied and
    non-empty. On an update only the supplied keys are checked, and a required field may not be
    cleared. All issues are collected; paths start with ``("fields", slug)``. A key in
    ``archived`` (slugs of archived fields) is refused as such, not as unknown.
    """
    by_slug = {f.slug: f for f in fields}
    values: dict[str, Any] = {}
    issues: list[Issue] = []
    links: list[LinkCheck] = []
    for key, raw in supplied.items():
        slug = key if isinstance(key, str) else str(key)
        field = by_slug.get(slug)
        if field is None:
            issues.append(_not_a_field(slug, archived))
            continue
        normalised, found = _checked(field, raw)
        if found:
            issues.extend(found)
            continue
        values[slug] = normalised
        links.extend(_links(field, normalised))
    if existing is None:
        issues.extend(_required(f) for f in _missing(fields, supplied))
    return ValueCheck.of(values, issues, links)


def _missing(fields: Sequence[FieldDef], supplied: Mapping[str, Any]) -> list[FieldDef]:
    """The required, writable fields a create does not supply."""
    return [f for f in fields if f.is_required and _writable(type_of(f)) and f.slug not in supplied]


def _not_a_field(slug: str, archived: Collection[str]) -> Issue:
    """The issue of a key that names no live field: an archived one, or none at all."""
    if slug in archived:
        return issue(
            "archived_field",
            f"Field {slug!r} is archived: it cannot be written until it is unarchived",
            ("fields", slug),
        )
    return issue(
        "unrecognized_keys",
        f"Unrecognized key {slug!r}: not a field of this module",
        ("fields", slug),
        keys=[slug],
    )


def _checked(field: FieldDef, raw: Any) -> Result:
    """One supplied value normalised for ``field``, or its issues (paths from the record's
    ``fields``): read-only, required but empty (before or after normalising), or the type's."""
    kind = type_of(field)
    if not _writable(kind):
        return None, [_read_only(field).prefixed("fields", field.slug)]
    if field.is_required and is_empty(raw):
        return None, [_required(field)]
    normalised, found = normalise_value(field, raw)
    if found:
        return None, [i.prefixed("fields", field.slug) for i in found]
    if field.is_required and kind is not None and kind.is_blank(normalised):
        return None, [_required(field)]
    return normalised, []


def _links(field: FieldDef, value: Any) -> list[LinkCheck]:
    """The records and users a normalised value names, for the caller to verify."""
    kind = type_of(field)
    if kind is None or value is None:
        return []
    return kind.link_checks(field, value)
