"""The driver: validate and normalise a record's supplied field values against its fields.

Pure: nothing here reads storage. Links to other records and to users are returned as checks
(:class:`ReferenceCheck`, :class:`ParentCheck`, :class:`UserCheck`) for the caller to verify.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from fieldhouse.model.errors import Issue
from fieldhouse.model.schema import READ_ONLY_TYPES, FieldDef
from fieldhouse.model.values._base import Normaliser, Result, issue
from fieldhouse.model.values.choice import (
    normalise_boolean,
    normalise_multi_select,
    normalise_select,
)
from fieldhouse.model.values.contact import (
    normalise_address,
    normalise_email,
    normalise_phone,
    normalise_url,
)
from fieldhouse.model.values.image import normalise_image
from fieldhouse.model.values.links import (
    normalise_parent_record,
    normalise_person,
    normalise_reference,
    parent_max_depth,
    reference_settings,
)
from fieldhouse.model.values.numeric import (
    normalise_currency,
    normalise_duration,
    normalise_number,
    normalise_progress,
    normalise_rating,
)
from fieldhouse.model.values.social import normalise_social_profile
from fieldhouse.model.values.temporal import normalise_date, normalise_date_range, normalise_time
from fieldhouse.model.values.text import (
    normalise_rich_text,
    normalise_text,
    normalise_textarea,
    rich_text_is_blank,
)


@dataclass(frozen=True)
class ReferenceCheck:
    """Records the caller must find (not deleted) in the same workspace."""

    field_slug: str
    record_ids: tuple[str, ...]
    allowed_module_slugs: tuple[str, ...]  # empty = any module


@dataclass(frozen=True)
class ParentCheck:
    """A parent the caller must find in the same module, within max_depth and without a cycle."""

    field_slug: str
    record_id: str
    max_depth: int


@dataclass(frozen=True)
class UserCheck:
    """Users the caller must find in the workspace."""

    field_slug: str
    user_ids: tuple[str, ...]


@dataclass(frozen=True)
class ValueCheck:
    values: dict[str, Any]
    issues: tuple[Issue, ...]
    references: tuple[ReferenceCheck, ...]
    parents: tuple[ParentCheck, ...]
    users: tuple[UserCheck, ...]


NORMALISERS: Mapping[str, Normaliser] = MappingProxyType(
    {
        "text": normalise_text,
        "textarea": normalise_textarea,
        "rich_text": normalise_rich_text,
        "email": normalise_email,
        "url": normalise_url,
        "phone": normalise_phone,
        "address": normalise_address,
        "number": normalise_number,
        "currency": normalise_currency,
        "date": normalise_date,
        "time": normalise_time,
        "date_range": normalise_date_range,
        "duration": normalise_duration,
        "select": normalise_select,
        "multi_select": normalise_multi_select,
        "boolean": normalise_boolean,
        "reference": normalise_reference,
        "person": normalise_person,
        "parent_record": normalise_parent_record,
        "image": normalise_image,
        "rating": normalise_rating,
        "progress": normalise_progress,
        "social_profile": normalise_social_profile,
    }
)


def is_empty(value: Any) -> bool:
    """True for null, a blank string, an empty list, or an object whose members are all empty.

    ``False`` and ``0`` are values, not emptiness.
    """
    stack = [value]
    while stack:
        item = stack.pop()
        if item is None:
            continue
        if isinstance(item, str):
            if item.strip():
                return False
        elif isinstance(item, list | tuple | set | frozenset):
            if item:
                return False
        elif isinstance(item, Mapping):
            stack.extend(item.values())
        else:
            return False
    return True


def _read_only(field: FieldDef) -> Issue:
    return issue("read_only", f"Field {field.slug!r} is computed and cannot be set")


def normalise_value(field: FieldDef, value: Any) -> Result:
    """Validate and normalise one value for ``field``; issue paths are relative to the value.

    ``None`` normalises to ``None`` without issue (whether the field may be empty is the
    caller's concern; :func:`check_values` applies ``is_required``). Read-only kinds always
    give a ``read_only`` issue.
    """
    if field.data_type in READ_ONLY_TYPES:
        return None, [_read_only(field)]
    normaliser = NORMALISERS.get(field.data_type)
    if normaliser is None:
        return None, [issue("custom", f"Field type {field.data_type!r} is not supported")]
    if value is None:
        return None, []
    try:
        return normaliser(field, value)
    except RecursionError:
        return None, [issue("custom", "Value is nested too deeply")]


def _blank(field: FieldDef, value: Any) -> bool:
    if field.data_type == "rich_text" and isinstance(value, str):
        return rich_text_is_blank(value)
    return is_empty(value)


def _required(field: FieldDef) -> Issue:
    return issue("required", f"Field {field.slug!r} is required", ("fields", field.slug))


def check_values(
    fields: Sequence[FieldDef], supplied: Mapping[str, Any], *, existing: Mapping[str, Any] | None
) -> ValueCheck:
    """Validate ``supplied`` (values keyed by field slug) for a create or an update.

    ``existing is None`` means a create: every required, writable field must be supplied and
    non-empty. On an update only the supplied keys are checked, and a required field may not be
    cleared. All issues are collected; paths start with ``("fields", slug)``.
    """
    by_slug = {f.slug: f for f in fields}
    values: dict[str, Any] = {}
    issues: list[Issue] = []
    references: list[ReferenceCheck] = []
    parents: list[ParentCheck] = []
    users: list[UserCheck] = []
    for key, raw in supplied.items():
        slug = key if isinstance(key, str) else str(key)
        field = by_slug.get(slug)
        if field is None:
            issues.append(
                issue(
                    "unrecognized_keys",
                    f"Unrecognized key {slug!r}: not a field of this module",
                    ("fields", slug),
                    keys=[slug],
                )
            )
            continue
        if field.data_type in READ_ONLY_TYPES:
            issues.append(_read_only(field).prefixed("fields", slug))
            continue
        if field.is_required and is_empty(raw):
            issues.append(_required(field))
            continue
        normalised, found = normalise_value(field, raw)
        if found:
            issues.extend(i.prefixed("fields", slug) for i in found)
            continue
        if field.is_required and _blank(field, normalised):
            issues.append(_required(field))
            continue
        values[slug] = normalised
        _collect_links(field, normalised, references, parents, users)
    if existing is None:
        for field in fields:
            if (
                field.is_required
                and field.data_type not in READ_ONLY_TYPES
                and field.slug not in supplied
            ):
                issues.append(_required(field))
    return ValueCheck(values, tuple(issues), tuple(references), tuple(parents), tuple(users))


def _collect_links(
    field: FieldDef,
    value: Any,
    references: list[ReferenceCheck],
    parents: list[ParentCheck],
    users: list[UserCheck],
) -> None:
    if value is None or value == []:
        return
    slug = field.slug
    if field.data_type == "reference":
        target_type, _, allowed = reference_settings(field)
        items = value if isinstance(value, list) else [value]
        ids = tuple(str(item["recordId"]) for item in items)
        if target_type == "module":
            references.append(ReferenceCheck(slug, ids, allowed))
        elif target_type == "user":
            users.append(UserCheck(slug, ids))
    elif field.data_type == "person":
        items = value if isinstance(value, list) else [value]
        users.append(UserCheck(slug, tuple(str(item["userId"]) for item in items)))
    elif field.data_type == "parent_record":
        parents.append(ParentCheck(slug, str(value), parent_max_depth(field)))
