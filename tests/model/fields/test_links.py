from __future__ import annotations

from fieldhouse.model.values import ParentCheck, ReferenceCheck, UserCheck, check_values
from tests.model.fields.support import bad, fd, issue_json, ok

A = "123e4567-e89b-12d3-a456-426614174000"
B = "00000000-0000-4000-8000-000000000001"
MULTI_REF = {"reference": {"selectionMode": "multi"}}

# --- reference --------------------------------------------------------------------------------


def test_reference_single() -> None:
    assert ok("reference", {"recordId": A, "displayName": "Acme"}) == {
        "recordId": A,
        "displayName": "Acme",
    }
    assert ok("reference", A.upper()) == {"recordId": A, "displayName": ""}


def test_reference_single_invalid() -> None:
    [found] = issue_json("reference", "not-a-uuid")
    assert found["code"] == "invalid_string"
    assert found["validation"] == "uuid"
    assert bad("reference", {"recordId": "x", "displayName": 1, "moduleSlug": "m"}) == [
        ("unrecognized_keys", ("moduleSlug",)),
        ("invalid_string", ("recordId",)),
        ("invalid_type", ("displayName",)),
    ]
    assert bad("reference", {"displayName": "x"}) == [("required", ("recordId",))]
    assert bad("reference", [A]) == [("invalid_type", ())]
    assert bad("reference", 5) == [("invalid_type", ())]
    assert bad("reference", A.replace("-", "")) == [("invalid_string", ())]


def test_reference_multi_dedupes_and_collects() -> None:
    value = ok(
        "reference", [A, {"recordId": B}, {"recordId": A, "displayName": "dup"}], **MULTI_REF
    )
    assert value == [{"recordId": A, "displayName": ""}, {"recordId": B, "displayName": ""}]
    assert bad("reference", [A, "x", {"y": 1}], **MULTI_REF) == [
        ("invalid_string", (1,)),
        ("unrecognized_keys", (2, "y")),
        ("required", (2, "recordId")),
    ]
    assert bad("reference", A, **MULTI_REF) == [("invalid_type", ())]
    [found] = issue_json("reference", [A] * 501, **MULTI_REF)
    assert found["code"] == "too_big"
    assert found["maximum"] == 500


def test_reference_checks_by_target_type() -> None:
    module_ref = fd(
        "reference", "company", reference={"targetType": "module", "allowedModuleSlugs": ["orgs"]}
    )
    user_ref = fd("reference", "owner", reference={"targetType": "user", "selectionMode": "multi"})
    team_ref = fd("reference", "team", reference={"targetType": "team"})
    result = check_values(
        [module_ref, user_ref, team_ref],
        {"company": A, "owner": [A, B], "team": B},
        existing=None,
    )
    assert result.issues == ()
    assert result.references == (ReferenceCheck("company", (A,), ("orgs",)),)
    assert result.users == (UserCheck("owner", (A, B)),)
    assert result.parents == ()
    assert result.values["team"] == {"recordId": B, "displayName": ""}


def test_reference_any_module_and_cleared_values_need_no_check() -> None:
    field = fd("reference", "company", reference={"selectionMode": "multi"})
    assert check_values([field], {"company": [A]}, existing={}).references == (
        ReferenceCheck("company", (A,), ()),
    )
    assert check_values([field], {"company": []}, existing={}).references == ()
    assert check_values([field], {"company": None}, existing={}).references == ()


# --- person -----------------------------------------------------------------------------------


def test_person() -> None:
    assert ok("person", {"userId": "u1", "displayName": "Jo", "email": "jo@x.io"}) == {
        "userId": "u1",
        "displayName": "Jo",
        "email": "jo@x.io",
        "avatar": None,
    }
    assert ok("person", "u2") == {"userId": "u2", "displayName": "", "email": None, "avatar": None}
    assert bad("person", {"displayName": "Jo"}) == [("required", ("userId",))]
    assert bad("person", {"userId": "", "role": "x"}) == [
        ("unrecognized_keys", ("role",)),
        ("invalid_type", ("userId",)),
    ]
    assert bad("person", {"userId": "u", "avatar": 3}) == [("invalid_type", ("avatar",))]
    assert bad("person", ["u1"]) == [("invalid_type", ())]


def test_person_multi_and_user_check() -> None:
    field = fd("person", "watchers", person={"allowMultiple": True})
    result = check_values([field], {"watchers": ["u1", {"userId": "u2"}, "u1"]}, existing={})
    assert result.issues == ()
    assert [p["userId"] for p in result.values["watchers"]] == ["u1", "u2"]
    assert result.users == (UserCheck("watchers", ("u1", "u2")),)
    assert bad("person", [{"userId": 1}], person={"allowMultiple": True}) == [
        ("invalid_type", (0, "userId"))
    ]


# --- parent_record ----------------------------------------------------------------------------


def test_parent_record() -> None:
    assert ok("parent_record", A.upper()) == A
    assert ok("parent_record", {"recordId": A}) == A
    assert bad("parent_record", "x") == [("invalid_string", ())]
    assert bad("parent_record", {"id": A}) == [
        ("unrecognized_keys", ("id",)),
        ("required", ("recordId",)),
    ]
    assert bad("parent_record", 12) == [("invalid_type", ())]


def test_parent_check_depth() -> None:
    default = fd("parent_record", "parent")
    deep = fd("parent_record", "up", parentRecord={"maxDepth": 8})
    silly = fd("parent_record", "top", parentRecord={"maxDepth": 99})
    result = check_values([default, deep, silly], {"parent": A, "up": B, "top": A}, existing={})
    assert result.parents == (
        ParentCheck("parent", A, 5),
        ParentCheck("up", B, 8),
        ParentCheck("top", A, 10),
    )
