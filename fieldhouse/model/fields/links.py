"""reference, person and parent_record values: links the caller must still verify."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from fieldhouse.model.errors import Issue
from fieldhouse.model.fields._base import (
    MAX_LIST_ITEMS,
    Path,
    Result,
    cfg_bool,
    cfg_int,
    invalid_string,
    invalid_type,
    normalise_list,
    optional_string,
    parse_uuid,
    required,
    show,
    sub,
    too_big_string,
    unknown_keys,
)
from fieldhouse.model.fields.base import (
    FieldType,
    LinkCheck,
    ListSwitch,
    ModuleLink,
    ParentCheck,
    ReferenceCheck,
    UserCheck,
)
from fieldhouse.model.fields.kind import FilterKind
from fieldhouse.model.schema import FieldDef

DISPLAY_NAME_MAX_LENGTH = 500
USER_ID_MAX_LENGTH = 128
EMAIL_MAX_LENGTH = 254
AVATAR_MAX_LENGTH = 2048
DEFAULT_MAX_DEPTH = 5

_REFERENCE_KEYS = frozenset({"recordId", "displayName"})
_PERSON_KEYS = frozenset({"userId", "displayName", "email", "avatar"})
_PARENT_KEYS = frozenset({"recordId", "displayName"})


def check_uuid(value: Any, path: Path = ()) -> tuple[str | None, list[Issue]]:
    """A hyphenated UUID string, normalised to lower case."""
    if not isinstance(value, str):
        return None, [invalid_type("string", value, path)]
    canonical = parse_uuid(value)
    if canonical is None:
        return None, [
            invalid_string(
                "uuid",
                f"Invalid id {show(value)}: expected a UUID such as "
                "123e4567-e89b-12d3-a456-426614174000",
                path,
            )
        ]
    return canonical, []


# --- reference --------------------------------------------------------------------------------


@dataclass(frozen=True)
class ReferenceSettings:
    """A reference field's ``config.reference``, read: what it links and how many."""

    target_type: Literal["module", "user", "team"]
    multi: bool
    #: modules whose records it may link (empty: any module)
    allowed_module_slugs: tuple[str, ...]


def reference_settings(field: FieldDef) -> ReferenceSettings:
    """The settings of a reference field (defaults where its config says nothing valid)."""
    settings = sub(field.config, "reference")
    target = settings.get("targetType")
    target_type: Literal["module", "user", "team"] = (
        target if target in ("module", "user", "team") else "module"
    )
    multi = settings.get("selectionMode") == "multi"
    allowed = settings.get("allowedModuleSlugs")
    slugs = tuple(s for s in allowed if isinstance(s, str)) if isinstance(allowed, list) else ()
    return ReferenceSettings(target_type, multi, slugs)


def check_reference_item(value: Any) -> Result:
    """``{recordId, displayName?}`` or a bare uuid; normalised to ``{recordId, displayName}``."""
    if isinstance(value, str):
        record_id, issues = check_uuid(value)
        return (None, issues) if issues else ({"recordId": record_id, "displayName": ""}, [])
    if not isinstance(value, Mapping):
        return None, [invalid_type("object or uuid string", value)]
    issues = unknown_keys(value, _REFERENCE_KEYS)
    record_id = None
    if value.get("recordId") is None:
        issues.append(required(("recordId",), "A recordId"))
    else:
        record_id, id_issues = check_uuid(value["recordId"], ("recordId",))
        issues.extend(id_issues)
    name, name_issues = optional_string(value, "displayName", DISPLAY_NAME_MAX_LENGTH)
    issues.extend(name_issues)
    if issues:
        return None, issues
    return {"recordId": record_id, "displayName": name or ""}, []


def normalise_reference(field: FieldDef, value: Any) -> Result:
    if reference_settings(field).multi:
        return normalise_list(
            value, check_reference_item, max_items=MAX_LIST_ITEMS, key=lambda r: r["recordId"]
        )
    if isinstance(value, list | tuple):
        return None, [invalid_type("object or uuid string", value)]
    return check_reference_item(value)


# --- person -----------------------------------------------------------------------------------


def check_person_item(value: Any) -> Result:
    """``{userId, displayName?, email?, avatar?}`` or a bare user id string."""
    if isinstance(value, str):
        value = {"userId": value}
    if not isinstance(value, Mapping):
        return None, [invalid_type("object or user id string", value)]
    issues = unknown_keys(value, _PERSON_KEYS)
    user_id = value.get("userId")
    if user_id is None:
        issues.append(required(("userId",), "A userId"))
    elif not isinstance(user_id, str) or not user_id.strip():
        issues.append(invalid_type("non-empty string", user_id, ("userId",)))
    elif len(user_id) > USER_ID_MAX_LENGTH:
        issues.append(too_big_string(USER_ID_MAX_LENGTH, len(user_id), ("userId",)))
    name, name_issues = optional_string(value, "displayName", DISPLAY_NAME_MAX_LENGTH)
    email, email_issues = optional_string(value, "email", EMAIL_MAX_LENGTH)
    avatar, avatar_issues = optional_string(value, "avatar", AVATAR_MAX_LENGTH)
    issues.extend([*name_issues, *email_issues, *avatar_issues])
    if issues:
        return None, issues
    return {"userId": user_id, "displayName": name or "", "email": email, "avatar": avatar}, []


def normalise_person(field: FieldDef, value: Any) -> Result:
    if cfg_bool(sub(field.config, "person"), "allowMultiple", False):
        return normalise_list(
            value, check_person_item, max_items=MAX_LIST_ITEMS, key=lambda p: p["userId"]
        )
    if isinstance(value, list | tuple):
        return None, [invalid_type("object or user id string", value)]
    return check_person_item(value)


# --- parent_record ----------------------------------------------------------------------------


def parent_max_depth(field: FieldDef) -> int:
    return cfg_int(sub(field.config, "parentRecord"), "maxDepth", DEFAULT_MAX_DEPTH, 1, 10)


def normalise_parent_record(field: FieldDef, value: Any) -> Result:
    """A uuid string or ``{recordId, displayName?}``; normalised to the uuid string."""
    if isinstance(value, Mapping):
        issues = unknown_keys(value, _PARENT_KEYS)
        if value.get("recordId") is None:
            issues.append(required(("recordId",), "A recordId"))
            return None, issues
        record_id, id_issues = check_uuid(value["recordId"], ("recordId",))
        issues.extend(id_issues)
        return (None, issues) if issues else (record_id, [])
    if not isinstance(value, str):
        return None, [invalid_type("uuid string or object", value)]
    return check_uuid(value)


# --- field types ------------------------------------------------------------------------------

_NAME = ("displayName",)


def _items(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def _one_or_many(item: dict[str, Any]) -> dict[str, Any]:
    return {"oneOf": [item, {"type": "array", "items": item}]}


class ReferenceType(FieldType):
    """Links to records (or users): filters compare the id, substrings and sorts the name."""

    data_type = "reference"
    spoken = "record"
    example = {"recordId": "123e4567-e89b-12d3-a456-426614174000", "displayName": ""}
    write_form = (
        "An item may be written as a bare record id (uuid string) and is read as {recordId, "
        "displayName}."
    )
    searchable = True
    links_records = True
    grouping = "reference"
    list_switch = ListSwitch("reference", "selectionMode", "multi")
    shown_as = "record_link"
    edited_as = "record_picker"
    filtered_as = "link"

    def normalise(self, field: FieldDef, value: Any) -> Result:
        return normalise_reference(field, value)

    def filter_kind(self, field: FieldDef) -> FilterKind:
        multi = reference_settings(field).multi
        return FilterKind("ref", field.slug, multi=multi, value_key=("recordId",), label_key=_NAME)

    def allowed_modules(self, field: FieldDef) -> tuple[str, ...]:
        return reference_settings(field).allowed_module_slugs

    def reads_fields(self, field: FieldDef) -> frozenset[str]:
        """The field a dependent picker narrows by (``reference.dependency``)."""
        dependency = sub(sub(field.config, "reference"), "dependency")
        slug = dependency.get("dependsOnFieldSlug")
        return frozenset({slug}) if isinstance(slug, str) else frozenset()

    def module_link(self, field: FieldDef, module_slug: str) -> ModuleLink | None:
        """Module records link to the one allowed module (none named or several: any)."""
        settings = reference_settings(field)
        if settings.target_type != "module":
            return None
        allowed = settings.allowed_module_slugs
        return ModuleLink(allowed[0] if len(allowed) == 1 else None, settings.multi)

    def link_checks(self, field: FieldDef, value: Any) -> list[LinkCheck]:
        if value is None or value == []:
            return []
        settings = reference_settings(field)
        ids = tuple(str(item["recordId"]) for item in _items(value))
        if settings.target_type == "module":
            return [ReferenceCheck(field.slug, ids, settings.allowed_module_slugs)]
        if settings.target_type == "user":
            return [UserCheck(field.slug, ids)]
        return []

    def link_targets(self, field: FieldDef, value: Any) -> list[str]:
        if value is None:
            return []
        return [i["recordId"] for i in _items(value) if isinstance(i, Mapping) and "recordId" in i]

    def without_targets(self, field: FieldDef, value: Any, gone: set[str]) -> tuple[bool, Any]:
        if isinstance(value, list):
            kept = [i for i in value if not (isinstance(i, Mapping) and i.get("recordId") in gone)]
            return len(kept) != len(value), kept
        if isinstance(value, Mapping) and value.get("recordId") in gone:
            return True, None
        return False, value

    def value_schema(self) -> dict[str, Any]:
        return _one_or_many(
            {
                "type": "object",
                "required": ["recordId", "displayName"],
                "properties": {
                    "recordId": {"type": "string", "format": "uuid"},
                    "displayName": {"type": "string"},
                },
            }
        )


class PersonType(FieldType):
    """Users of the workspace: filters compare the user id, substrings and sorts the name."""

    data_type = "person"
    spoken = "user"
    example = {"userId": "user-1", "displayName": "", "email": None, "avatar": None}
    write_form = (
        "An item may be written as a bare user id string and is read as {userId, displayName, "
        "email, avatar}."
    )
    searchable = True
    grouping = "user"
    list_switch = ListSwitch("person", "allowMultiple", True)
    shown_as = "users"
    edited_as = None  # the workspace's users are picked elsewhere, not typed in a form

    def normalise(self, field: FieldDef, value: Any) -> Result:
        return normalise_person(field, value)

    def filter_kind(self, field: FieldDef) -> FilterKind:
        multi = self.holds_list(field)
        return FilterKind("ref", field.slug, multi=multi, value_key=("userId",), label_key=_NAME)

    def link_checks(self, field: FieldDef, value: Any) -> list[LinkCheck]:
        if value is None or value == []:
            return []
        return [UserCheck(field.slug, tuple(str(item["userId"]) for item in _items(value)))]

    def value_schema(self) -> dict[str, Any]:
        return _one_or_many(
            {
                "type": "object",
                "required": ["userId", "displayName", "email", "avatar"],
                "properties": {
                    "userId": {"type": "string", "format": "uuid"},
                    "displayName": {"type": "string"},
                    "email": {"type": ["string", "null"]},
                    "avatar": {"type": ["string", "null"]},
                },
            }
        )


class ParentRecordType(FieldType):
    """The parent's record id, in the same module."""

    data_type = "parent_record"
    example = "123e4567-e89b-12d3-a456-426614174000"
    write_form = (
        "Written as a record id (uuid string) or {recordId, displayName?}; read as the uuid string."
    )
    searchable = True
    links_records = True
    shown_as = "parent_link"

    def normalise(self, field: FieldDef, value: Any) -> Result:
        return normalise_parent_record(field, value)

    def filter_kind(self, field: FieldDef) -> FilterKind:
        return FilterKind("exact", field.slug)

    def module_link(self, field: FieldDef, module_slug: str) -> ModuleLink | None:
        """A parent is a record of the field's own module."""
        return ModuleLink(module_slug, False)

    def link_checks(self, field: FieldDef, value: Any) -> list[LinkCheck]:
        if value is None:
            return []
        return [ParentCheck(field.slug, str(value), parent_max_depth(field))]

    def link_targets(self, field: FieldDef, value: Any) -> list[str]:
        return [value] if isinstance(value, str) else []

    def without_targets(self, field: FieldDef, value: Any, gone: set[str]) -> tuple[bool, Any]:
        return (True, None) if value in gone else (False, value)

    def value_schema(self) -> dict[str, Any]:
        return {"type": "string", "format": "uuid"}
