"""Examples in /openapi.json: one for every request body and every parameter, and the list
filters' syntax where clients read it (the parameters' descriptions).

Swagger UI's "Try it out" (at /docs) fills its fields with these, so each example is a
request that works against the demo workspace of ``fieldhouse serve --demo`` (module slugs,
field slugs and option values from the built-in templates); ids that only a workspace knows
(a record's, a label's) are shown as example UUIDs. Generators read them too.

Request bodies also lose their properties' ``default`` (a value is said in the description
instead: "Omitted: 25."): openapi-typescript's default settings make a property with a
``default`` required, so ordinary calls without it (a search without ``limit``, a record
update without ``displayName``) did not type-check; ``default: null`` announced nothing.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from fieldhouse.model.listquery_advanced import MAX_CONDITIONS, MAX_DEPTH
from fieldhouse.model.operators import OPERATORS

#: request bodies whose defaults stay in their schemas: the agent policy (PUT, a replacement)
#: documents its caps' defaults there (tests/http/routes/test_approvals.py)
KEEP_DEFAULTS = frozenset({"PolicyBody"})
#: an id in examples (a record's, a label's, a run's): real ones come from earlier answers
EXAMPLE_ID = "3f0c8a52-7d4e-4b7a-9a0e-5c2b9d1e6f10"

ADVANCED_FILTER = {
    "root": {
        "id": "g1",
        "conjunction": "AND",
        "conditions": [
            {
                "id": "c1",
                "fieldSlug": "lifecycle",
                "operator": "in",
                "values": ["customer", "qualified"],
            },
            {"id": "c2", "fieldSlug": "job-title", "operator": "contains", "value": "engineer"},
        ],
    }
}

FILTER_SYNTAX = (
    "Simple filters: `filter[<fieldSlug>]=a,b` keeps records whose field equals a OR b "
    "(exact match on the stored value: an option's value, `true`/`false`, a number, a record "
    "id for a reference); several `filter[...]` parameters combine with AND, for example "
    "`filter[stage]=won&filter[owner]=<userId>`."
)

ADVANCED_SYNTAX = (
    'A JSON object, URL-encoded: `{root: Group}`. A Group is `{id, conjunction: "AND" | '
    '"OR", conditions: [Condition or Group, ...]}`; a Condition is `{id, fieldSlug, '
    "operator, value}` or, for `in`, `notIn` and `between`, `{..., values: [...]}` (between: "
    "two items); `isNull` and `isNotNull` take no operand. Operators: "
    + ", ".join(f"`{op}`" for op in OPERATORS)
    + " (eq/neq equal; gt/gte/lt/lte compare numbers, dates and times; contains/notContains, "
    "startsWith/endsWith match text without case; before/after compare dates). Groups nest "
    f"at most {MAX_DEPTH} deep, with at most {MAX_CONDITIONS} conditions in all; an operator "
    "a field's type does not take, or an unknown field slug, is a 400 naming it, and text "
    "that is not JSON is 400 `advancedFilter must be valid JSON`. Example (contacts): "
    + json.dumps(ADVANCED_FILTER)
)

#: each request body's example, by its schema's name
BODY_EXAMPLES: Mapping[str, Any] = {
    "RecordCreateBody": {
        "displayName": "Mae Jemison",
        "fields": {
            "first-name": "Mae",
            "last-name": "Jemison",
            "job-title": "Astronaut",
            "emails": [{"value": "mae@example.com", "label": "work", "isPrimary": True}],
            "lifecycle": "lead",
            "tags": ["vip"],
        },
    },
    "RecordUpdateBody": {"fields": {"lifecycle": "customer", "job-title": "Mission Specialist"}},
    "BatchBody": {
        "records": [
            {"displayName": "Sally Ride", "fields": {"first-name": "Sally", "last-name": "Ride"}},
            {"displayName": "Chris Hadfield", "fields": {"first-name": "Chris"}},
        ]
    },
    "BulkUpdateBody": {"recordIds": [EXAMPLE_ID], "addLabelIds": [EXAMPLE_ID]},
    "BulkDeleteBody": {"recordIds": [EXAMPLE_ID]},
    "SearchBody": {"query": "migration", "limit": 10},
    "ChatBody": {"message": "find deals over 10000 in stage won"},
    "NamedItemBody": {"name": "Key account", "color": "#f59e0b"},
    "TypeBody": {"name": "Partner", "moduleSlug": "companies"},
    "FieldCreateBody": {
        "label": "Referral source",
        "dataType": "select",
        "config": {"options": ["event", "website", "partner"]},
    },
    "FieldUpdateBody": {"label": "Lead source"},
    "ModuleCreateBody": {
        "slug": "projects",
        "name": "Projects",
        "fields": [
            {
                "label": "Budget",
                "dataType": "currency",
                "config": {"currency": {"defaultCurrency": "EUR"}},
            },
            {
                "label": "Phase",
                "slug": "phase",
                "dataType": "select",
                "config": {"options": ["planned", "running", "done"]},
            },
            {
                "label": "Client",
                "dataType": "reference",
                "config": {"reference": {"allowedModuleSlugs": ["companies"]}},
            },
        ],
    },
    "ModuleUpdateBody": {"name": "Client projects"},
    "ApproveBody": {},
    "RejectBody": {"reason": "Not this week"},
    "PolicyBody": {"autoApprove": [], "requireApproval": ["records.update:deals"]},
    "KeyCreateBody": {"name": "Nightly export", "role": "viewer", "scopes": ["records:read"]},
    "WebhookBody": {
        "url": "https://hooks.example.com/fieldhouse",
        "eventTypes": ["record_created", "record_updated"],
    },
}

#: parameters by name (path, query and header): what "Try it out" sends. Sent together to the
#: list of contacts they find Ada Lovelace of the demo workspace.
PARAM_EXAMPLES: Mapping[str, Any] = {
    "moduleSlug": "contacts",
    "templateSlug": "contacts",
    "referenceSlug": "company",
    "page": 1,
    "pageSize": 25,
    "search": "ada",
    "sortField": "created_at",
    "sortDirection": "desc",
    "filter": {"lifecycle": "customer"},
    "advancedFilter": json.dumps(ADVANCED_FILTER),
    "fields": "first-name,last-name,emails,lifecycle",
    "limit": 20,
    "activityTypes": "record_created,record_updated",
    "groupWithinMinutes": 5,
    "afterSeq": 0,
    "stream": "true",
    "upsertBy": "",  # a text field whose config has "unique": true (the templates have none)
    "Idempotency-Key": "7b0e9d2c-1f4a-4c55-8a61-2d3e4f5a6b7c",
    "workspaceSlug": "demo-workspace",
    "pageSlug": "spring-launch",
    "groupBy": "lifecycle",
    "metrics": "count",
    "expand": "company",
    "expandFields": "company.name,company.website",
    "modules": "contacts,deals",
    # optional narrowing by a workspace's own ids: empty, so "Try it out" leaves them out
    # (an example id would match nothing); the description says what they take
    "labelIds": "",
    "typeIds": "",
    "cursor": "",  # the first page; a nextCursor an answer gave for the next
}

#: parameter names whose example is an id (only a workspace's own answers have real ones)
_ID_NAMES = ("Id", "Ids")


def param_example(param: Mapping[str, Any], schemas: Mapping[str, Any]) -> Any:
    """The example of one parameter: by its name, else an id or what its schema allows."""
    name = str(param["name"])
    if name in PARAM_EXAMPLES:
        return PARAM_EXAMPLES[name]
    schema = _resolved(param.get("schema", {}), schemas)
    if name.endswith(_ID_NAMES) or schema.get("format") == "uuid":
        return EXAMPLE_ID
    if "enum" in schema:
        return schema["enum"][0]
    if "default" in schema and schema["default"] is not None:
        return schema["default"]
    if schema.get("type") == "integer":
        return schema.get("minimum", 1)
    if schema.get("type") == "boolean":
        return True
    return None


def _resolved(schema: Mapping[str, Any], schemas: Mapping[str, Any]) -> Mapping[str, Any]:
    """A parameter's schema with a ``$ref`` followed and a nullable ``anyOf`` unwrapped."""
    options = [o for o in schema.get("anyOf", ()) if o.get("type") != "null"]
    if len(options) == 1:
        schema = {**schema, **options[0]}
    if "$ref" in schema:
        schema = {**schema, **schemas.get(str(schema["$ref"]).rsplit("/", 1)[1], {})}
    return schema


def add_examples(doc: dict[str, Any]) -> None:
    """Examples on every parameter and request body of ``doc``; the filter syntax on the
    filter parameters; no ``default`` in request bodies."""
    schemas: dict[str, Any] = doc["components"]["schemas"]
    bodies: set[str] = set()
    for operations in doc["paths"].values():
        for op in operations.values():
            for param in op.get("parameters", ()):
                _describe(param)
                if "example" not in param:
                    example = param_example(param, schemas)
                    if example is not None:
                        param["example"] = example
            media = op.get("requestBody", {}).get("content", {}).get("application/json")
            if media is not None and "$ref" in media["schema"]:
                name = media["schema"]["$ref"].rsplit("/", 1)[1]
                bodies.add(name)
                if name in BODY_EXAMPLES:
                    media["example"] = BODY_EXAMPLES[name]
    for name in bodies:
        _request_schema(schemas, name)


def _describe(param: dict[str, Any]) -> None:
    if param["name"] == "filter" and param.get("style") == "deepObject":
        param["description"] = f"{FILTER_SYNTAX} {param.get('description', '')}".strip()
    elif param["name"] == "advancedFilter":
        param["description"] = ADVANCED_SYNTAX


def _request_schema(schemas: dict[str, Any], name: str) -> None:
    """A request body's schema: its example, and no ``default`` (nor a null the server
    refuses: an update's displayName and fields are omitted, never null)."""
    schema = schemas[name]
    if name in BODY_EXAMPLES:
        schema["examples"] = [BODY_EXAMPLES[name]]
    for prop_name, prop in schema.get("properties", {}).items():
        if "default" in prop and name not in KEEP_DEFAULTS:
            value = prop.pop("default")
            said = json.dumps(value)
            if value is not None and said not in prop.get("description", ""):
                note = f"Omitted: {said}."
                prop["description"] = f"{prop.get('description', '').rstrip('.')}. {note}"
                prop["description"] = prop["description"].lstrip(". ")
        if name == "RecordUpdateBody" and prop_name in ("displayName", "fields"):
            options = [o for o in prop.get("anyOf", ()) if o.get("type") != "null"]
            if len(options) == 1:
                del prop["anyOf"]
                prop.update(options[0])
