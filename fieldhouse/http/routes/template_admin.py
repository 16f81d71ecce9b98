"""Template maintenance (outside /v1): reset a module to its template, manage custom fields.

Owners and admins only. Each call is one message to the workspace actor, so one transaction.
"""

from __future__ import annotations

from typing import Any

from fieldhouse.actors.template_ops import (
    CreateField,
    DeleteField,
    ResetOutcome,
    ResetToTemplate,
    UpdateField,
)
from fieldhouse.http.endpoint import Routes
from fieldhouse.http.json import json_response
from fieldhouse.http.routes.common import check_uuid
from fieldhouse.http.serialize import field_item
from fieldhouse.http.template_models import (
    FieldCreateBody,
    FieldDefinition,
    FieldUpdateBody,
    FieldUpdated,
    ResetResult,
)
from fieldhouse.model.principal import Principal
from fieldhouse.model.schema import FieldDef
from fieldhouse.services import Services

routes = Routes()
BASE = "/api/modules/{moduleId}"


@routes.endpoint(
    "POST",
    BASE + "/reset-to-template",
    summary="Reset a template module's vendor-managed items to the template",
    description="Deletes vendor-managed items the template lacks, updates vendor-managed items "
    "back to the template (configs merged so runtime state such as the auto-number nextValue "
    "is kept) and re-inserts template items that were removed. User-created items are "
    "untouched. 409 when the module was not installed from a template.",
    scope="workspace:read",
    tag="templates",
    admin_only=True,
    responses={200: ResetResult},
    conflicts={
        "conflict": "the module was not installed from a template, or its template no longer "
        "exists (data: moduleId, templateSlug)"
    },
)
async def reset_to_template(svc: Services, principal: Principal, moduleId: str) -> Any:
    check_uuid(moduleId, "moduleId")
    outcome: ResetOutcome = await svc.actors.ask(ResetToTemplate(moduleId.lower(), by=principal))
    return {
        "success": True,
        "fieldsRemoved": outcome.fields_removed,
        "fieldsAdded": outcome.fields_added,
        "viewsAdded": outcome.views_added,
        "referencesAdded": outcome.references_added,
        "skippedSlugs": list(outcome.skipped_slugs),
    }


@routes.endpoint(
    "POST",
    BASE + "/fields",
    summary="Create a custom field",
    description="The slug is derived from the label when absent and must be unique in the "
    "module (409). Formula expressions and rollup, select and autonumber configs are checked "
    "here (400 with issues).",
    scope="workspace:read",
    tag="templates",
    admin_only=True,
    body=FieldCreateBody,
    responses={201: FieldDefinition},
    conflicts={"conflict": "the module already has a field with this slug (data: slug)"},
)
async def create_field(
    svc: Services, principal: Principal, moduleId: str, body: FieldCreateBody
) -> Any:
    check_uuid(moduleId, "moduleId")
    made: FieldDef = await svc.actors.ask(
        CreateField(
            moduleId.lower(),
            body.label,
            body.slug,
            body.dataType,
            body.config,
            body.isRequired,
            name=body.name,
            privacy_level=body.privacyLevel,
            sort_order=body.sortOrder,
            by=principal,
        ),
    )
    return field_item(made), 201


@routes.endpoint(
    "PATCH",
    BASE + "/fields/{fieldId}",
    summary="Change, rename or archive a field; backfill an auto-number field",
    description="Only supplied properties change (slug and dataType never do: a rename is "
    "label and name). backfillExisting on an autonumber field numbers every live record "
    "lacking a value, oldest first, starting at the field's nextValue. archived true hides "
    "the field: gone from GET /v1/modules/{moduleSlug}/fields and from records' `fields` on "
    "read, refused on writes (400 naming it), its values kept in storage, the references it "
    "is the source of hidden with it; archived false brings it back with its values (a "
    "formula or rollup is recomputed). An archived field's config cannot change (409) until "
    "it is back.",
    scope="workspace:read",
    tag="templates",
    admin_only=True,
    body=FieldUpdateBody,
    responses={200: FieldUpdated},
    conflicts={
        "conflict": "archiving a field other fields compute from (data: dependentFields), or "
        "changing the config of an archived field"
    },
)
async def update_field(
    svc: Services, principal: Principal, moduleId: str, fieldId: str, body: FieldUpdateBody
) -> Any:
    check_uuid(moduleId, "moduleId")
    check_uuid(fieldId, "fieldId")
    field, backfilled = await svc.actors.ask(
        UpdateField(
            moduleId.lower(),
            fieldId.lower(),
            label=body.label,
            config=body.config,
            is_required=body.isRequired,
            backfill_existing=body.backfillExisting,
            name=body.name,
            archived=body.archived,
            by=principal,
        ),
    )
    return {"field": field_item(field), "backfilled": backfilled}


@routes.endpoint(
    "DELETE",
    BASE + "/fields/{fieldId}",
    summary="Delete a field",
    description="Removes the definition, its values in live records and the module references "
    "it is the source of. 409 while other fields compute from it.",
    scope="workspace:read",
    tag="templates",
    admin_only=True,
    responses={204: None},
    conflicts={"conflict": "other fields compute from this one (data: dependentFields)"},
)
async def delete_field(svc: Services, principal: Principal, moduleId: str, fieldId: str) -> Any:
    check_uuid(moduleId, "moduleId")
    check_uuid(fieldId, "fieldId")
    await svc.actors.ask(
        DeleteField(moduleId.lower(), fieldId.lower(), by=principal),
    )
    return json_response(None, 204)
