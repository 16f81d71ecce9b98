"""Request and response models of the custom module endpoints (``/api/modules``)."""

from __future__ import annotations

from typing import Any

from pydantic import Field, field_validator

from fieldhouse.actors.module_ops import MODULE_NAME_MAX, MODULE_SLUG_MAX, FieldSpec
from fieldhouse.actors.template_ops import MAX_FIELDS_PER_MODULE
from fieldhouse.http.models import FieldItem, JsonBool, Open, Strict, Timestamp, Uuid
from fieldhouse.http.template_models import FieldCreateBody
from fieldhouse.model.field_config import SLUG_PATTERN


class ModuleCreateBody(Strict):
    """A custom module and its fields; each field as ``POST /api/modules/{moduleId}/fields``
    takes it."""

    slug: str = Field(
        min_length=1,
        max_length=MODULE_SLUG_MAX,
        pattern=SLUG_PATTERN,
        description="kebab-case, unique in the workspace (archived modules' slugs included), "
        "not a built-in template's module slug (contacts, companies, deals, tasks); never "
        "changes",
    )
    name: str = Field(min_length=1, max_length=MODULE_NAME_MAX, description="display name")
    fields: list[FieldCreateBody] = Field(
        default_factory=list,
        max_length=MAX_FIELDS_PER_MODULE,
        description=f"at most {MAX_FIELDS_PER_MODULE}; slugs unique among them",
    )

    @field_validator("name")
    @classmethod
    def _name_not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("name must not be blank")
        return value.strip()

    def specs(self) -> tuple[FieldSpec, ...]:
        return tuple(
            FieldSpec(
                label=f.label,
                data_type=f.dataType,
                slug=f.slug,
                config=f.config,
                is_required=f.isRequired,
                name=f.name,
                privacy_level=f.privacyLevel,
                sort_order=f.sortOrder,
            )
            for f in self.fields
        )


class ModuleUpdateBody(Strict):
    name: str | None = Field(default=None, min_length=1, max_length=MODULE_NAME_MAX)
    archived: JsonBool | None = Field(
        default=None,
        description="true archives the module (as DELETE does), false brings it back with "
        "its records",
    )

    @field_validator("name")
    @classmethod
    def _name_not_blank(cls, value: str | None) -> str | None:
        if value is not None and not value.strip():
            raise ValueError("name must not be blank")
        return None if value is None else value.strip()


class ModuleObject(Open):
    id: Uuid
    name: str
    slug: str
    isActive: bool = Field(description="false while archived")
    vendorManaged: bool = Field(description="installed from a template (false: user-created)")
    templateSlug: str | None
    templateVersion: str | None
    createdDateTime: Timestamp
    updatedDateTime: Timestamp


class ModuleCreated(Open):
    """As GET /v1/modules/{moduleSlug} answers for the new module."""

    module: ModuleObject
    fields: list[FieldItem]
    views: list[dict[str, Any]]
    references: list[dict[str, Any]]


class ModuleUpdated(Open):
    module: ModuleObject


class AdminModuleList(Open):
    modules: list[ModuleObject]
