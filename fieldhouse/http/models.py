"""Request and response models of the workspace metadata endpoints.

Request models forbid unknown properties (SPEC: "These are the only accepted body
properties"); response models allow extra ones (SPEC: clients ignore unknown properties).
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field
from pydantic import Strict as StrictMode
from pydantic_core import PydanticCustomError


def _json_type(kind: str) -> BeforeValidator:
    """A JSON number property takes a JSON number: ``true`` is not 1 and ``"5"`` is not 5, as
    pydantic's lax mode would have them (with ``"1_000"``, ``"inf"`` and ``"nan"``); what
    /openapi.json says of the property is then all it takes. ``kind``: int or float."""

    def check(value: Any) -> Any:
        if isinstance(value, bool | str):
            received = "boolean" if isinstance(value, bool) else "string"
            raise PydanticCustomError(f"{kind}_type", f"Input should be a number, not a {received}")
        return value

    return BeforeValidator(check)


_QUERY_INT = re.compile(r"\s*([+-]?)0*([0-9]+)\s*")
#: a query integer with more significant digits than this is past every bound: it is taken as
#: +-10**19 (above 2**63) for the bound to report, instead of reading thousands of digits
_QUERY_INT_DIGITS = 19
#: the largest value a 64-bit signed integer holds (what SQLite and PostgreSQL store)
MAX_INT64 = 2**63 - 1


def _query_int(value: Any) -> Any:
    """A query parameter's text as an integer: decimal digits with an optional sign, as the
    list endpoint's ``page`` and ``pageSize`` take them (``5.0``, ``1e3`` and ``0x10`` are
    refused rather than converted)."""
    if not isinstance(value, str):
        return value
    match = _QUERY_INT.fullmatch(value)
    if match is None:
        raise PydanticCustomError(
            "int_parsing", "Input should be an integer: decimal digits with an optional sign"
        )
    sign, digits = match.groups()
    magnitude = int(digits) if len(digits) <= _QUERY_INT_DIGITS else 10**_QUERY_INT_DIGITS
    return -magnitude if sign == "-" else magnitude


def _not_blank(value: str) -> str:
    """A string of only whitespace does not meet a length's lower bound: it has no character."""
    if not value.strip():
        raise PydanticCustomError(
            "string_too_short",
            "String should have at least {min_length} character other than whitespace",
            {"min_length": 1},
        )
    return value


#: An integer body property: a JSON number without a fractional part (``5`` or ``5.0``, as
#: JSON Schema counts integers); ``true`` and ``"5"`` are refused.
JSON_INT = _json_type("int")
JsonInt = Annotated[int, JSON_INT]
#: Put after a query integer's ``Field`` bounds (``Annotated[int, Field(ge=.., le=..),
#: QUERY_INT]``; after the validator pydantic would leave ``ge``/``le`` out of the schema):
#: every integer query parameter has both bounds, a 400 naming it otherwise.
QUERY_INT = BeforeValidator(_query_int)
#: A number body property (``true`` and ``"0.5"`` are refused).
JsonNumber = Annotated[float, _json_type("float")]
#: A boolean body property: ``true`` or ``false`` (not ``"true"``, ``"yes"`` or 1).
JsonBool = Annotated[bool, StrictMode()]
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
