"""Domain values in the SPEC's JSON shapes: plain JSON (no frozen maps), references with the
module they point at."""

from __future__ import annotations

import orjson
from pyrsistent import freeze, pmap

from fieldhouse.actors.schemas import WorkspaceSchemas
from fieldhouse.http.serialize import field_item, identity, module_schema, reference_item
from fieldhouse.model.principal import Principal, Role
from fieldhouse.model.schema import FieldDef, ModuleDef, ModuleSchema, ReferenceDef

COMPANIES = ModuleSchema(ModuleDef("m-co", "acct", "Companies", "companies"), (), (), ())


def reference(target: str | None, filters: object = None) -> ReferenceDef:
    return ReferenceDef(
        "ref-1",
        "m-deals",
        "company",
        "f-co",
        "company",
        "many_to_one",
        "module" if target else "user",
        target,
        target_filters=freeze(filters) if filters is not None else None,
    )


def test_identity_lists_scopes_sorted_or_null() -> None:
    role = Role("member", None, None)
    narrowed = Principal(
        "a", "u", "Ada", role, frozenset({"records:write", "records:read"}), "api_key", "k", "k"
    )
    body = identity(narrowed)
    assert body["scopes"] == ["records:read", "records:write"]
    assert body["roleSlugs"] == ["member"]
    whole = Principal("a", "u", "Ada", role, None, "jwt", None, "u")
    assert identity(whole)["scopes"] is None


def test_frozen_configs_come_out_as_plain_json() -> None:
    f = FieldDef(
        "f1",
        "m1",
        "Stage",
        "stage",
        "Stage",
        "single_select",
        freeze({"options": [{"value": "lead"}]}),
    )
    item = field_item(f)
    assert orjson.loads(orjson.dumps(item["config"])) == {"options": [{"value": "lead"}]}
    assert (item["key"], item["type"], item["dataType"]) == (
        "stage",
        "single_select",
        "single_select",
    )


def test_references_name_the_module_they_point_at() -> None:
    schemas = WorkspaceSchemas(1, pmap({"companies": COMPANIES}))
    found = reference_item(reference("companies", {"kind": ["client"]}), schemas)
    assert found["target"] == {
        "moduleId": "m-co",
        "moduleSlug": "companies",
        "moduleName": "Companies",
    }
    assert found["targetFilters"] == {"kind": ["client"]}
    missing = reference_item(reference("boats"), schemas)["target"]
    assert missing == {"moduleId": None, "moduleSlug": "boats", "moduleName": None}
    to_users = reference_item(reference(None), schemas)
    assert to_users["target"]["moduleSlug"] is None and to_users["targetFilters"] is None


def test_a_module_schema_holds_its_parts() -> None:
    schemas = WorkspaceSchemas(1, pmap({"companies": COMPANIES}))
    body = module_schema(COMPANIES, schemas)
    assert body["module"]["slug"] == "companies"
    assert (body["fields"], body["views"], body["references"]) == ([], [], [])
