"""Request and response models of the workspace metadata endpoints.

Request models forbid unknown properties (SPEC: "These are the only accepted body
properties"); response models allow extra ones (SPEC: clients ignore unknown properties).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field
from pydantic_core import PydanticCustomError


def _not_bool(value: Any) -> Any:
    """JSON ``true`` is not the number 1: refuse what pydantic's lax mode would coerce."""
    if isinstance(value, bool):
        raise PydanticCustomError("int_type", "Input should be a number, not a boolean")
    return value


def _not_blank(value: str) -> str:
    """A string of only whitespace does not meet a length's lower bound: it has no character."""
    if not value.strip():
        raise PydanticCustomError(
            "string_too_short",
            "String should have at least {min_length} character other than whitespace",
            {"min_length": 1},
        )
    return value


#: An integer body property (``true`` is refused, not taken as 1).
JsonInt = Annotated[int, BeforeValidator(_not_bool)]
#: A number body property (``true`` is refused).
JsonNumber = Annotated[float, BeforeValidator(_not_bool)]
#: A string with at least one character that is not whitespace.
NonBlank = Annotated[str, AfterValidator(_not_blank)]
#: An id the server sends as a string, always a UUID (``format: uuid`` in /openapi.json).
Uuid = Annotated[str, Field(json_schema_extra={"format": "uuid"})]
#: A timestamp the server sends as ISO 8601 UTC text (``format: date-time``).
Timestamp = Annotated[str, Field(json_schema_extra={"format": "date-time"})]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Open(BaseModel):
    model_config = ConfigDict(extra="allow")


class ErrorBody(Open):
    code: str
    message: str
    statusCode: int
    data: dict[str, Any] | None = None
    issues: list[dict[str, Any]] | None = None


class ErrorEnvelope(Open):
    error: ErrorBody


class Identity(Open):
    userId: Uuid
    accountId: Uuid
    roleSlugs: list[str]
    authMethod: Literal["api_key", "jwt"]
    apiKeyId: Uuid | None
    scopes: list[str] | None


class Module(Open):
    id: Uuid
    name: str
    slug: str


class ModuleList(Open):
    modules: list[Module]


class FieldItem(Open):
    key: str
    label: str
    type: str
    required: bool


class FieldList(Open):
    fields: list[FieldItem]


class ViewList(Open):
    views: list[dict[str, Any]]


class ReferenceTarget(Open):
    moduleId: Uuid | None
    moduleSlug: str | None
    moduleName: str | None


class ReferenceItem(Open):
    moduleReferenceId: Uuid
    sourceModuleId: Uuid
    sourceFieldId: Uuid | None
    sourceFieldSlug: str | None
    slug: str
    relationshipType: str
    targetType: str
    targetFilters: dict[str, Any] | None
    isRequired: bool
    cascadeDelete: bool
    cascadeUpdate: bool
    target: ReferenceTarget


class ReferenceList(Open):
    references: list[ReferenceItem]


class ModuleSchemaResponse(Open):
    module: dict[str, Any]
    fields: list[FieldItem]
    views: list[dict[str, Any]]
    references: list[ReferenceItem]


class CatalogEntry(Open):
    templateSlug: str
    name: str
    description: str
    templateVersion: str
    installed: bool
    installedModuleId: Uuid | None
    hasCustomizations: bool


class Catalog(Open):
    templates: list[CatalogEntry]


class InstalledModule(Open):
    moduleId: Uuid
    moduleSlug: str


class NamedItem(Open):
    id: Uuid
    name: str
    color: str | None


class NamedItemBody(Strict):
    name: str = Field(min_length=1, max_length=100)
    color: str | None = Field(default=None, max_length=32)


class TypeBody(NamedItemBody):
    moduleSlug: str | None = Field(default=None, min_length=1, max_length=64)


class LabelList(Open):
    labels: list[NamedItem]


class TypeList(Open):
    types: list[NamedItem]
