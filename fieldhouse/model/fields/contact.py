"""email, url, phone and address values, single or as multi-entry lists.

A multi-entry value is a list of ``{id, value, label?, isPrimary?}``; it normalises to entries
with all four keys, a generated uuid4 ``id`` where none was given and ``isPrimary`` false by
default. At most one entry may be primary.
"""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Mapping
from typing import Any

from fieldhouse.model.errors import Issue
from fieldhouse.model.fields._base import (
    ItemNormaliser,
    Result,
    cfg_bool,
    finite_number,
    invalid_string,
    invalid_type,
    issue,
    new_id,
    optional_string,
    prefix,
    required,
    show,
    sub,
    too_big_array,
    too_big_number,
    too_big_string,
    too_small_number,
    unknown_keys,
)
from fieldhouse.model.fields.base import FieldType, ListSwitch
from fieldhouse.model.fields.kind import FilterKind
from fieldhouse.model.schema import FieldDef

EMAIL_MAX_LENGTH = 254
URL_MAX_LENGTH = 2048
ENTRY_ID_MAX_LENGTH = 100
ENTRY_LABEL_MAX_LENGTH = 100
MAX_ENTRIES = 100
ADDRESS_PART_MAX_LENGTH = 200

_E164 = re.compile(r"\+[1-9][0-9]{1,14}")
_PHONE = re.compile(r"[0-9 +\-().]{3,32}")

_ENTRY_KEYS = frozenset({"id", "value", "label", "isPrimary"})
_ADDRESS_TEXT_KEYS = ("street", "street2", "city", "state", "zip", "country")
_ADDRESS_KEYS = frozenset({*_ADDRESS_TEXT_KEYS, "lat", "lng"})


# --- single values ----------------------------------------------------------------------------


def check_email(value: Any, *, validate: bool) -> Result:
    """An email address; with validation, one the email-validator package takes without a DNS
    look-up: RFC 5322's form with RFC 6531's internationalised addresses (``josé@exämple.com``,
    ``用户@例子.广告``), written in its normal form (the domain lower-cased, Unicode in NFC)."""
    if not isinstance(value, str):
        return None, [invalid_type("string", value)]
    if len(value) > EMAIL_MAX_LENGTH:
        return None, [too_big_string(EMAIL_MAX_LENGTH, len(value))]
    if not validate:
        return value, []
    # email-validator and phonenumbers load with the first value they check, not with every
    # worker (0.08 s of its start, before its first answer)
    from email_validator import EmailNotValidError, validate_email

    try:
        checked = validate_email(value, check_deliverability=False, strict=True)
    except EmailNotValidError as exc:
        why = str(exc).rstrip(".")
        return None, [invalid_string("email", f"Invalid email address {show(value)}: {why}")]
    return checked.normalized, []


def check_url(value: Any) -> Result:
    """An absolute http:// or https:// URL with a host."""
    if not isinstance(value, str):
        return None, [invalid_type("string", value)]
    if len(value) > URL_MAX_LENGTH:
        return None, [too_big_string(URL_MAX_LENGTH, len(value))]
    if url_host(value) is None:
        return None, [
            invalid_string(
                "url", f"Invalid URL {show(value)}: expected an http:// or https:// URL with a host"
            )
        ]
    return value, []


def url_host(value: str) -> str | None:
    """The lower-cased host of an http(s) URL, or None when ``value`` is not one."""
    if any(c.isspace() for c in value):
        return None
    try:
        parts = urllib.parse.urlsplit(value)
        _ = parts.port
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https"):
        return None
    host = parts.hostname
    return host.lower() if host else None


def check_phone(value: Any, *, e164: bool) -> Result:
    """A phone number: strict E.164 when enabled, else 3-32 of digits, spaces and ``+-().``.

    A number in international form (``+`` and a country code) must be one the phonenumbers
    library finds possible for that country; with E.164 it must be a valid, assigned number.
    """
    if not isinstance(value, str):
        return None, [invalid_type("string", value)]
    if e164:
        if _E164.fullmatch(value) is None or not _known_number(value, strict=True):
            return None, [
                invalid_string(
                    "e164",
                    f"Invalid phone number {show(value)}: expected a valid number in E.164 "
                    "format such as +14155550123 (a '+', the country code, then the number)",
                )
            ]
        return value, []
    if _PHONE.fullmatch(value) is None or not any(c.isdigit() for c in value):
        return None, [
            invalid_string(
                "regex",
                f"Invalid phone number {show(value)}: expected 3 to 32 characters of digits, "
                "spaces and + - ( ) . including at least one digit",
            )
        ]
    if value.lstrip().startswith("+") and not _known_number(value, strict=False):
        return None, [
            invalid_string(
                "regex",
                f"Invalid phone number {show(value)}: no country uses this international "
                "number (check the country code and the number of digits)",
            )
        ]
    return value, []


def _known_number(value: str, *, strict: bool) -> bool:
    """Whether an international number exists (strict) or could exist for its country code."""
    import phonenumbers  # (see check_email)

    try:
        parsed = phonenumbers.parse(value, None)
    except phonenumbers.NumberParseException:
        return False
    if strict:
        return bool(phonenumbers.is_valid_number(parsed))
    return bool(phonenumbers.is_possible_number(parsed))


def check_address(value: Any) -> Result:
    """A structured address; all eight keys present, missing strings as "" and lat/lng as null."""
    if not isinstance(value, Mapping):
        return None, [invalid_type("object", value)]
    issues = unknown_keys(value, _ADDRESS_KEYS)
    out: dict[str, Any] = {}
    for key in _ADDRESS_TEXT_KEYS:
        text, text_issues = optional_string(value, key, ADDRESS_PART_MAX_LENGTH)
        issues.extend(text_issues)
        out[key] = text or ""
    for key, bound in (("lat", 90), ("lng", 180)):
        raw = value.get(key)
        if raw is None:
            out[key] = None
            continue
        number, num_issues = finite_number(raw, (key,))
        issues.extend(num_issues)
        if number is not None:
            if number < -bound:
                issues.append(too_small_number(-bound, number, (key,)))
            elif number > bound:
                issues.append(too_big_number(bound, number, (key,)))
        out[key] = number
    if not issues and not any(out[k].strip() for k in ("street", "city", "country")):
        issues.append(issue("custom", "An address needs at least one of street, city or country"))
    return (None, issues) if issues else (out, [])


# --- multi-entry lists ------------------------------------------------------------------------


def check_entries(value: Any, item: ItemNormaliser) -> Result:
    """A list of ``{id, value, label?, isPrimary?}`` entries whose values pass ``item``.

    A bare value in place of an entry is accepted as ``{value: <it>}``.
    """
    if not isinstance(value, list | tuple):
        return None, [invalid_type("array", value)]
    if len(value) > MAX_ENTRIES:
        return None, [too_big_array(MAX_ENTRIES, len(value))]
    issues: list[Issue] = []
    out: list[dict[str, Any]] = []
    seen_ids: set[str] = set()
    primary_seen = False
    for index, raw in enumerate(value):
        entry: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {"value": raw}
        here: list[Issue] = unknown_keys(entry, _ENTRY_KEYS)
        entry_id = entry.get("id")
        if entry_id is None:
            entry_id = new_id()
        elif not isinstance(entry_id, str) or not entry_id:
            here.append(invalid_type("non-empty string", entry_id, ("id",)))
        elif len(entry_id) > ENTRY_ID_MAX_LENGTH:
            here.append(too_big_string(ENTRY_ID_MAX_LENGTH, len(entry_id), ("id",)))
        elif entry_id in seen_ids:
            here.append(issue("custom", f"Duplicate entry id {entry_id!r}", ("id",)))
        if isinstance(entry_id, str):
            seen_ids.add(entry_id)
        if "value" not in entry or entry["value"] is None:
            here.append(required(("value",), "An entry value"))
            normalised = None
        else:
            normalised, value_issues = item(entry["value"])
            here.extend(prefix(value_issues, "value"))
        label, label_issues = optional_string(entry, "label", ENTRY_LABEL_MAX_LENGTH)
        here.extend(label_issues)
        is_primary = entry.get("isPrimary", False)
        if is_primary is None:
            is_primary = False
        if not isinstance(is_primary, bool):
            here.append(invalid_type("boolean", is_primary, ("isPrimary",)))
        elif is_primary:
            if primary_seen:
                here.append(
                    issue("custom", "At most one entry may be marked primary", ("isPrimary",))
                )
            primary_seen = True
        if here:
            issues.extend(prefix(here, index))
            continue
        out.append({"id": entry_id, "value": normalised, "label": label, "isPrimary": is_primary})
    return (None, issues) if issues else (out, [])


def _single_or_multi(field: FieldDef, value: Any, item: ItemNormaliser) -> Result:
    if cfg_bool(sub(field.config, field.data_type), "allowMultiple", False):
        return check_entries(value, item)
    return item(value)


# --- field normalisers ------------------------------------------------------------------------


def normalise_email(field: FieldDef, value: Any) -> Result:
    validate = cfg_bool(sub(field.config, "emailConfig"), "validateEmail", True)
    return _single_or_multi(field, value, lambda v: check_email(v, validate=validate))


def normalise_url(field: FieldDef, value: Any) -> Result:
    return _single_or_multi(field, value, check_url)


def normalise_phone(field: FieldDef, value: Any) -> Result:
    e164 = cfg_bool(sub(field.config, "phoneConfig"), "validateE164", False)
    return _single_or_multi(field, value, lambda v: check_phone(v, e164=e164))


def normalise_address(field: FieldDef, value: Any) -> Result:
    return _single_or_multi(field, value, check_address)


# --- field types ------------------------------------------------------------------------------

_ENTRY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["id", "value", "label", "isPrimary"],
    "properties": {
        "id": {"type": "string"},
        "label": {"type": ["string", "null"]},
        "isPrimary": {"type": "boolean"},
    },
}


def _single_or_entries(item: dict[str, Any]) -> dict[str, Any]:
    entry = {**_ENTRY_SCHEMA, "properties": {**_ENTRY_SCHEMA["properties"], "value": item}}
    return {"oneOf": [item, {"type": "array", "items": entry}]}


class _ContactType(FieldType):
    """A single value, or a list of entries when ``<type>.allowMultiple``."""

    searchable = True
    edited_as = "entries"

    def bare_item(self, text: str) -> Any:
        return {"value": text}

    def filter_kind(self, field: FieldDef) -> FilterKind:
        if self.holds_list(field):
            return FilterKind("text", field.slug, multi=True, value_key=("value",))
        return FilterKind("text", field.slug)


class EmailType(_ContactType):
    data_type = "email"
    spoken = "email"
    example = "jo@example.com"
    list_switch = ListSwitch("email", "allowMultiple", True)
    shown_as = "mail_links"
    input_mode = "email"

    def normalise(self, field: FieldDef, value: Any) -> Result:
        return normalise_email(field, value)

    def value_schema(self) -> dict[str, Any]:
        return _single_or_entries({"type": "string", "maxLength": EMAIL_MAX_LENGTH})


class UrlType(_ContactType):
    data_type = "url"
    spoken = "url"
    example = "https://example.com/about"
    list_switch = ListSwitch("url", "allowMultiple", True)
    shown_as = "web_links"
    input_mode = "url"

    def normalise(self, field: FieldDef, value: Any) -> Result:
        return normalise_url(field, value)

    def value_schema(self) -> dict[str, Any]:
        return _single_or_entries({"type": "string", "format": "uri"})


class PhoneType(_ContactType):
    data_type = "phone"
    spoken = "phone"
    example = "+442071838750"
    list_switch = ListSwitch("phone", "allowMultiple", True)
    shown_as = "lines"
    input_mode = "tel"

    def normalise(self, field: FieldDef, value: Any) -> Result:
        return normalise_phone(field, value)

    def value_schema(self) -> dict[str, Any]:
        return _single_or_entries({"type": "string", "maxLength": 32})


_ADDRESS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        **{k: {"type": "string"} for k in _ADDRESS_TEXT_KEYS},
        "lat": {"type": ["number", "null"], "minimum": -90, "maximum": 90},
        "lng": {"type": ["number", "null"], "minimum": -180, "maximum": 180},
    },
}


class AddressType(FieldType):
    """Structured addresses: searchable words, but only emptiness and substring filters."""

    data_type = "address"
    example = {"city": "Oslo", "country": "Norway"}
    searchable = True
    list_switch = ListSwitch("address", "allowMultiple", True)
    shown_as = "lines"
    edited_as = "address_parts"
    bare_item = _ContactType.bare_item

    def normalise(self, field: FieldDef, value: Any) -> Result:
        return normalise_address(field, value)

    def value_schema(self) -> dict[str, Any]:
        return _single_or_entries(_ADDRESS_SCHEMA)
