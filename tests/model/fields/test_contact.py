from __future__ import annotations

import uuid

import pytest

from tests.model.fields.support import bad, issue_json, ok

MULTI = {"allowMultiple": True}


# --- email ------------------------------------------------------------------------------------


def test_email_single_normalises_domain_case() -> None:
    assert ok("email", "Jane.Doe+x@Example.COM") == "Jane.Doe+x@example.com"


@pytest.mark.parametrize(
    "value",
    [
        "plain",
        "a@b",
        "a @b.com",
        "a@b .com",
        "@b.com",
        "a@.com",
        "a..b@c.com",
        ".a@c.com",
        "a@-b.com",
        "a@b.invalid",
        "a@b.com ",
        ("x" * 65) + "@b.com",
    ],
)
def test_email_single_invalid_format(value: str) -> None:
    [found] = issue_json("email", value)
    assert found["code"] == "invalid_string"
    assert found["validation"] == "email"
    assert found["path"] == ["fields", "email"]


@pytest.mark.parametrize(
    ("value", "stored"),
    [
        # RFC 6531: non-ASCII local parts and domains (35% of a real 10k-row file)
        ("josé@exämple.com", "josé@exämple.com"),
        ("Zoë.Ångström@Exämple.COM", "Zoë.Ångström@exämple.com"),
        ("用户@例子.广告", "用户@例子.广告"),
        ("дмитрий@пример.рф", "дмитрий@пример.рф"),
        ("δοκιμή@παράδειγμα.δοκιμή", "δοκιμή@παράδειγμα.δοκιμή"),
        ("o'brien+news@sub.example.org", "o'brien+news@sub.example.org"),
    ],
)
def test_email_single_takes_internationalised_addresses(value: str, stored: str) -> None:
    assert ok("email", value) == stored


def test_email_too_long_and_wrong_type() -> None:
    long = "a" * 250 + "@b.com"
    assert bad("email", long) == [("too_big", ())]
    assert bad("email", 5) == [("invalid_type", ())]
    assert bad("email", ["a@b.com"]) == [("invalid_type", ())]


def test_email_validation_can_be_disabled() -> None:
    assert ok("email", "not an email", emailConfig={"validateEmail": False}) == "not an email"
    assert bad("email", 3, emailConfig={"validateEmail": False}) == [("invalid_type", ())]


def test_email_multi_entries_normalised() -> None:
    value = ok(
        "email",
        [
            {"id": "e1", "value": "a@X.com", "label": "work", "isPrimary": True},
            {"value": "b@y.org"},
            "c@z.net",
        ],
        email=MULTI,
    )
    assert value[0] == {"id": "e1", "value": "a@x.com", "label": "work", "isPrimary": True}
    assert value[1]["value"] == "b@y.org"
    assert value[1]["isPrimary"] is False
    assert value[1]["label"] is None
    uuid.UUID(value[1]["id"])
    assert value[2]["value"] == "c@z.net"
    assert value[1]["id"] != value[2]["id"]


def test_email_multi_collects_entry_issues() -> None:
    value = [
        {"id": "e1", "value": "ok@x.com", "isPrimary": True},
        {"id": "e2", "value": "nope", "isPrimary": True, "kind": "home"},
        {"id": "e1", "value": "c@x.com", "label": 4},
        {"id": "e4"},
    ]
    assert bad("email", value, email=MULTI) == [
        ("unrecognized_keys", (1, "kind")),
        ("invalid_string", (1, "value")),
        ("custom", (1, "isPrimary")),
        ("custom", (2, "id")),
        ("invalid_type", (2, "label")),
        ("required", (3, "value")),
    ]


def test_email_multi_requires_a_list() -> None:
    assert bad("email", "a@b.com", email=MULTI) == [("invalid_type", ())]
    assert ok("email", [], email=MULTI) == []


# --- url --------------------------------------------------------------------------------------


def test_url_valid() -> None:
    assert ok("url", "https://example.com/a?b=1#c") == "https://example.com/a?b=1#c"
    assert ok("url", "http://localhost:8080") == "http://localhost:8080"


@pytest.mark.parametrize(
    "value",
    [
        "example.com",
        "ftp://example.com",
        "https://",
        "http:///path",
        "https://a b.com",
        "javascript:alert(1)",
        "http://example.com:99999",
    ],
)
def test_url_invalid(value: str) -> None:
    [found] = issue_json("url", value)
    assert found["code"] == "invalid_string"
    assert found["validation"] == "url"


def test_url_multi() -> None:
    value = ok("url", [{"id": "u", "value": "https://a.io", "label": "site"}], url=MULTI)
    assert value == [{"id": "u", "value": "https://a.io", "label": "site", "isPrimary": False}]
    assert bad("url", [{"value": "nope"}, {"value": 1}], url=MULTI) == [
        ("invalid_string", (0, "value")),
        ("invalid_type", (1, "value")),
    ]


# --- phone ------------------------------------------------------------------------------------


def test_phone_loose_format() -> None:
    assert ok("phone", "+1 (415) 555-0123") == "+1 (415) 555-0123"
    assert ok("phone", "555.0123") == "555.0123"
    assert bad("phone", "call me") == [("invalid_string", ())]
    assert bad("phone", "12") == [("invalid_string", ())]
    assert bad("phone", "1" * 33) == [("invalid_string", ())]
    assert bad("phone", "---") == [("invalid_string", ())]
    assert bad("phone", 4155550123) == [("invalid_type", ())]


def test_phone_e164() -> None:
    config = {"phoneConfig": {"validateE164": True}}
    assert ok("phone", "+14155550123", **config) == "+14155550123"
    for value in ["14155550123", "+04155550123", "+1 415 555 0123", "+1234567890123456"]:
        [found] = issue_json("phone", value, **config)
        assert found["code"] == "invalid_string"
        assert found["validation"] == "e164"


def test_phone_multi() -> None:
    config = {"phone": MULTI, "phoneConfig": {"validateE164": True}}
    assert bad("phone", [{"value": "+14155550123"}, {"value": "555"}], **config) == [
        ("invalid_string", (1, "value"))
    ]


# --- address ----------------------------------------------------------------------------------


def test_address_filled_in() -> None:
    assert ok("address", {"street": "1 Main St", "city": "Springfield", "lat": 40.5}) == {
        "street": "1 Main St",
        "street2": "",
        "city": "Springfield",
        "state": "",
        "zip": "",
        "country": "",
        "lat": 40.5,
        "lng": None,
    }


def test_address_issues() -> None:
    value = {"street": 5, "zip": "x" * 201, "lat": 91, "lng": -181, "planet": "Earth"}
    assert bad("address", value) == [
        ("unrecognized_keys", ("planet",)),
        ("invalid_type", ("street",)),
        ("too_big", ("zip",)),
        ("too_big", ("lat",)),
        ("too_small", ("lng",)),
    ]
    assert bad("address", {"state": "CA"}) == [("custom", ())]
    assert bad("address", {"city": "X", "lat": "1"}) == [("invalid_type", ("lat",))]
    assert bad("address", "1 Main St") == [("invalid_type", ())]


def test_address_multi() -> None:
    value = ok("address", [{"value": {"country": "FR"}, "isPrimary": True}], address=MULTI)
    assert value[0]["value"]["country"] == "FR"
    assert value[0]["value"]["lat"] is None
    assert bad("address", [{"value": {"country": "FR", "lat": 100}}], address=MULTI) == [
        ("too_big", (0, "value", "lat"))
    ]
