"""Request and response models of the template maintenance endpoints (custom fields, reset)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import Field, field_validator

from fieldhouse.http.models import JSON_INT, FieldItem, JsonBool, Open, Strict, Uuid
from fieldhouse.model.field_config import SLUG_PATTERN
from fieldhouse.model.fields import DATA_TYPES

if TYPE_CHECKING:
    DataType = str
else:
    #: the ``dataType`` identifiers, from the field-type registry (the API's and OpenAPI's enum)
    DataType = Literal[DATA_TYPES]

_SLUG = re.compile(SLUG_PATTERN)


class FieldCreateBody(Strict):
    """The SPEC's field definition structure, less what the server assigns (fieldId,
    moduleId, isSystem, the timestamps)."""

    name: str | None = Field(
        default=None,
        min_length=1,
        max_length=64,
        pattern=r"^[A-Z][A-Za-z0-9]*$",
        description="API name, PascalCase (default: from the slug)",
    )
    label: str = Field(min_length=1, max_length=100)
    slug: str | None = Field(default=None, min_length=1, max_length=64)
    dataType: DataType
    config: dict[str, Any] = Field(default_factory=dict)
    isRequired: JsonBool = False
    privacyLevel: Literal["account", "role", "private"] = "account"
    #: bounds before the validator, or pydantic leaves them out of the schema
    sortOrder: Annotated[int, Field(ge=0, le=1_000_000), JSON_INT] | None = Field(
        default=None, description="default: after the last field"
    )

    @field_validator("label")
    @classmethod
    def _label_not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("label must not be blank")
        return value.strip()

    @field_validator("slug")
    @classmethod
    def _kebab_case(cls, value: str | None) -> str | None:
        if value is not None and not _SLUG.match(value):
            raise ValueError(
                "slug must be kebab-case: lower-case letters and digits in words joined by "
                "single hyphens, starting with a letter"
            )
        return value


class FieldUpdateBody(Strict):
    label: str | None = Field(default=None, min_length=1, max_length=100)
    name: str | None = Field(
        default=None,
        min_length=1,
        max_length=64,
        pattern=r"^[A-Z][A-Za-z0-9]*$",
        description="API name, PascalCase (a rename changes label and name; the slug stays)",
    )
    config: dict[str, Any] | None = None
    isRequired: JsonBool | None = None
    backfillExisting: JsonBool = False
    archived: JsonBool | None = Field(
        default=None,
        description="true archives the field: it leaves the module's fields and records' "
        "`fields` on read, writes naming it are refused (400), its values stay stored; false "
        "brings it back with them",
    )

    @field_validator("label")
    @classmethod
    def _label_not_blank(cls, value: str | None) -> str | None:
        if value is not None and not value.strip():
            raise ValueError("label must not be blank")
        return None if value is None else value.strip()


class FieldDefinition(FieldItem):
    """A field item exactly as GET /v1/modules/{moduleSlug}/fields lists it."""

    fieldId: Uuid
    moduleId: Uuid
    slug: str
    dataType: str
    config: dict[str, Any]
    vendorManaged: bool
    archived: bool = Field(
        description="true while archived (then listed by no /v1 route; PATCH archived false)"
    )


class FieldUpdated(Open):
    field: FieldDefinition
    backfilled: int


class ResetResult(Open):
    success: bool
    fieldsRemoved: int = Field(
        description="user modifications to template fields undone: vendor-managed fields "
        "deleted because the template lacks them plus vendor-managed fields updated back"
    )
    fieldsAdded: int = Field(description="template fields that had been deleted, re-inserted")
    viewsAdded: int
    referencesAdded: int
    skippedSlugs: list[str] = Field(
        default_factory=list,
        description="template items not re-inserted because a user-created item holds the "
        "slug, as kind:slug",
    )
