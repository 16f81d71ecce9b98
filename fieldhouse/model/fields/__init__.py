"""Field types as objects: one :class:`FieldType` per ``dataType``, and the registry of them.

The registry is the one list of types: the API's ``dataType`` enum, OpenAPI, CSV import, search,
aggregates and links all ask the type object. Adding a type is one new module with a
``FieldType`` subclass and a line in ``_ALL`` below (README "Adding a field type").
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from fieldhouse.model.fields.base import (
    ConfigContext,
    FieldType,
    LinkCheck,
    ParentCheck,
    ReferenceCheck,
    UserCheck,
    is_empty,
)
from fieldhouse.model.fields.choice import BooleanType, MultiSelectType, SelectType
from fieldhouse.model.fields.computed import AutonumberType, FormulaType, RollupType
from fieldhouse.model.fields.contact import AddressType, EmailType, PhoneType, UrlType
from fieldhouse.model.fields.image import ImageType
from fieldhouse.model.fields.kind import FilterKind
from fieldhouse.model.fields.links import ParentRecordType, PersonType, ReferenceType
from fieldhouse.model.fields.numeric import (
    CurrencyType,
    DurationType,
    NumberType,
    ProgressType,
    RatingType,
)
from fieldhouse.model.fields.social import SocialProfileType
from fieldhouse.model.fields.temporal import DateRangeType, DateType, TimeType
from fieldhouse.model.fields.text import RichTextType, TextareaType, TextType
from fieldhouse.model.schema import FieldDef

__all__ = [
    "COUNTING_TYPES",
    "DATA_TYPES",
    "FIELD_TYPES",
    "AddressType",
    "AutonumberType",
    "BooleanType",
    "ConfigContext",
    "CurrencyType",
    "DateRangeType",
    "DateType",
    "DurationType",
    "EmailType",
    "FieldType",
    "FilterKind",
    "FormulaType",
    "ImageType",
    "LinkCheck",
    "MultiSelectType",
    "NumberType",
    "ParentCheck",
    "ParentRecordType",
    "PersonType",
    "PhoneType",
    "ProgressType",
    "RatingType",
    "ReferenceCheck",
    "ReferenceType",
    "RichTextType",
    "RollupType",
    "SelectType",
    "SocialProfileType",
    "TextType",
    "TextareaType",
    "TimeType",
    "UrlType",
    "UserCheck",
    "client_facts",
    "field_type",
    "is_empty",
    "is_unique",
    "type_of",
]

_ALL: tuple[FieldType, ...] = (
    TextType(),
    TextareaType(),
    RichTextType(),
    EmailType(),
    UrlType(),
    PhoneType(),
    AddressType(),
    NumberType(),
    CurrencyType(),
    DateType(),
    TimeType(),
    DateRangeType(),
    DurationType(),
    SelectType(),
    MultiSelectType(),
    BooleanType(),
    ReferenceType(),
    PersonType(),
    ParentRecordType(),
    FormulaType(),
    RollupType(),
    AutonumberType(),
    ImageType(),
    RatingType(),
    ProgressType(),
    SocialProfileType(),
)

#: The registry: every data type's one FieldType.
FIELD_TYPES: Mapping[str, FieldType] = MappingProxyType({t.data_type: t for t in _ALL})
#: Every ``dataType`` identifier, in the registry's order (the API's and OpenAPI's enum).
DATA_TYPES: tuple[str, ...] = tuple(FIELD_TYPES)
#: The types whose field configs keep a counter storage advances (:attr:`FieldType.counts`).
COUNTING_TYPES: tuple[str, ...] = tuple(t.data_type for t in _ALL if t.counts)


def client_facts() -> dict[str, dict[str, Any]]:
    """What a client needs to show, edit and filter each type's values, by ``dataType``: the
    web console reads it (``/console/assets/field-types.js``), so no script names a type."""
    return {t.data_type: t.client_facts() for t in _ALL}


def field_type(data_type: str) -> FieldType | None:
    """The FieldType of a ``dataType`` identifier, or None for one this server does not know."""
    return FIELD_TYPES.get(data_type)


def type_of(field: FieldDef) -> FieldType | None:
    """The FieldType of a field definition (None when its stored type is unknown)."""
    return FIELD_TYPES.get(field.data_type)


def is_unique(field: FieldDef) -> bool:
    """Whether a field is declared unique, on a type whose value can be looked up by it."""
    kind = FIELD_TYPES.get(field.data_type)
    return kind is not None and kind.is_unique(field)
