"""Domain values to the SPEC's JSON shapes."""

from __future__ import annotations

from typing import Any

from pyrsistent import thaw

from fieldhouse.actors.schemas import WorkspaceSchemas
from fieldhouse.model.principal import Principal
from fieldhouse.model.schema import FieldDef, ModuleDef, ModuleSchema, ReferenceDef, ViewDef


def identity(p: Principal) -> dict[str, Any]:
    return {
        "userId": p.user_id,
        "accountId": p.account_id,
        "roleSlugs": p.role_slugs,
        "authMethod": p.auth_method,
        "apiKeyId": p.api_key_id,
        "scopes": None if p.scopes is None else sorted(p.scopes),
    }


def module_item(m: ModuleDef) -> dict[str, Any]:
    return {"id": m.module_id, "name": m.name, "slug": m.slug}


def module_object(m: ModuleDef) -> dict[str, Any]:
    return {
        "id": m.module_id,
        "name": m.name,
        "slug": m.slug,
        "isActive": m.is_active,
        "vendorManaged": m.template_slug is not None,
        "templateSlug": m.template_slug,
        "templateVersion": m.template_version,
        "createdDateTime": m.created_at,
        "updatedDateTime": m.updated_at,
    }


def field_item(f: FieldDef) -> dict[str, Any]:
    return {
        "key": f.slug,
        "label": f.label,
        "type": f.data_type,
        "required": f.is_required,
        "fieldId": f.field_id,
        "moduleId": f.module_id,
        "name": f.name,
        "slug": f.slug,
        "dataType": f.data_type,
        "config": thaw(f.config),
        "isRequired": f.is_required,
        "isSystem": f.is_system,
        "privacyLevel": f.privacy_level,
        "sortOrder": f.sort_order,
        "vendorManaged": f.vendor_managed,
        "archived": f.archived_at is not None,
        "createdDateTime": f.created_at,
        "updatedDateTime": f.updated_at,
    }


def view_item(v: ViewDef) -> dict[str, Any]:
    return {
        "id": v.view_id,
        "moduleId": v.module_id,
        "name": v.name,
        "slug": v.slug,
        "config": thaw(v.config),
        "sortOrder": v.sort_order,
        "vendorManaged": v.vendor_managed,
    }


def reference_item(r: ReferenceDef, schemas: WorkspaceSchemas) -> dict[str, Any]:
    target: dict[str, Any] = {"moduleId": None, "moduleSlug": None, "moduleName": None}
    if r.target_type == "module" and r.target_module_slug:
        found = schemas.get(r.target_module_slug)
        target = {
            "moduleId": found.module.module_id if found else None,
            "moduleSlug": r.target_module_slug,
            "moduleName": found.module.name if found else None,
        }
    return {
        "moduleReferenceId": r.reference_id,
        "sourceModuleId": r.source_module_id,
        "sourceFieldId": r.source_field_id,
        "sourceFieldSlug": r.source_field_slug,
        "slug": r.slug,
        "relationshipType": r.relationship_type,
        "targetType": r.target_type,
        "targetFilters": None if r.target_filters is None else thaw(r.target_filters),
        "isRequired": r.is_required,
        "cascadeDelete": r.cascade_delete,
        "cascadeUpdate": r.cascade_update,
        "vendorManaged": r.vendor_managed,
        "target": target,
    }


def module_schema(schema: ModuleSchema, schemas: WorkspaceSchemas) -> dict[str, Any]:
    return {
        "module": module_object(schema.module),
        "fields": [field_item(f) for f in schema.fields],
        "views": [view_item(v) for v in schema.views],
        "references": [reference_item(r, schemas) for r in schema.references],
    }
