"""The error family: each error's code and status, and the SPEC's envelope."""

from __future__ import annotations

from fieldhouse.model.errors import (
    ApiError,
    Conflict,
    Issue,
    NotFound,
    RateLimited,
    ValidationFailed,
)


def test_the_envelope_carries_code_message_status_and_data() -> None:
    err = Conflict("Version 3 is stale", data={"currentVersion": 4}, headers={"X-A": "1"})
    assert err.to_json() == {
        "error": {
            "code": "conflict",
            "message": "Version 3 is stale",
            "statusCode": 409,
            "data": {"currentVersion": 4},
        }
    }
    assert err.headers == {"X-A": "1"}
    assert str(err) == "Version 3 is stale"


def test_a_code_can_be_narrowed_per_instance() -> None:
    err = NotFound("No such module", code="module_not_found")
    assert (err.code, err.status) == ("module_not_found", 404)
    assert NotFound("x").code == "not_found"
    assert RateLimited("slow down").status == 429
    assert ApiError("boom").to_json()["error"]["statusCode"] == 500


def test_issues_render_zod_style_with_their_extras() -> None:
    issue = Issue("too_big", ("n",), "Too big", {"maximum": 3, "inclusive": True})
    assert issue.prefixed("fields").to_json() == {
        "code": "too_big",
        "path": ["fields", "n"],
        "message": "Too big",
        "maximum": 3,
        "inclusive": True,
    }


def test_validation_failed_summarises_its_issues() -> None:
    one = Issue("custom", ("fields", "email"), "Invalid email")
    two = Issue("custom", (), "Bad")
    assert ValidationFailed([]).message == "Validation failed"
    assert ValidationFailed([one]).message == "Validation failed: fields.email: Invalid email"
    assert ValidationFailed([two, one]).message == "Validation failed: Bad (and 1 more)"
    assert ValidationFailed([one], "Given").message == "Given"
    body = ValidationFailed([one]).to_json()["error"]
    assert body["issues"] == [one.to_json()]
    assert (body["code"], body["statusCode"]) == ("validation_error", 400)
