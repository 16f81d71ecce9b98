from __future__ import annotations

import pytest

from fieldhouse.model.schema import FieldDef
from fieldhouse.model.values import normalise_value
from tests.model.fields.support import bad, fd, issue_json, ok


def test_text_valid_is_unchanged() -> None:
    assert ok("text", "  Hello  ") == "  Hello  "
    assert ok("text", "") == ""
    assert ok("text", "x" * 255) == "x" * 255


@pytest.mark.parametrize("value", [1, 1.5, True, ["a"], {"a": 1}])
def test_text_rejects_non_strings(value: object) -> None:
    assert bad("text", value) == [("invalid_type", ())]


def test_text_max_length_default_and_configured() -> None:
    [found] = issue_json("text", "x" * 256)
    assert found["code"] == "too_big"
    assert found["maximum"] == 255
    assert found["type"] == "string"
    assert found["inclusive"] is True
    assert "at most 255" in found["message"]
    assert bad("text", "abcd", maxLength=3) == [("too_big", ())]
    assert ok("text", "abc", maxLength=3) == "abc"


def test_text_pattern_must_fully_match() -> None:
    assert ok("text", "AB-12", pattern=r"[A-Z]{2}-\d+") == "AB-12"
    [found] = issue_json("text", "AB-12x", pattern=r"[A-Z]{2}-\d+")
    assert found["code"] == "invalid_string"
    assert found["validation"] == "regex"
    assert found["path"] == ["fields", "text"]


def test_text_invalid_pattern_is_reported() -> None:
    [found] = issue_json("text", "abc", pattern="(")
    assert found["code"] == "custom"
    assert "pattern is invalid" in found["message"]


def test_text_collects_length_and_pattern_issues() -> None:
    codes = bad("text", "abcdef", maxLength=3, pattern=r"\d+")
    assert codes == [("too_big", ()), ("invalid_string", ())]


def test_textarea_default_limit_is_5000() -> None:
    assert ok("textarea", "line\n" * 1000) == "line\n" * 1000
    assert bad("textarea", "x" * 5001) == [("too_big", ())]
    assert bad("textarea", 5) == [("invalid_type", ())]
    assert bad("textarea", "abc", maxLength=2) == [("too_big", ())]


def test_rich_text_is_sanitised() -> None:
    html = '<p onclick="evil()">Hi <b>there</b></p><script>alert(1)</script>'
    assert ok("rich_text", html) == "<p>Hi <b>there</b></p>"


def test_rich_text_images_can_be_disallowed() -> None:
    html = '<p>x<img src="https://example.com/a.png"></p>'
    assert "<img" in ok("rich_text", html)
    cleaned = ok("rich_text", html, richText={"attachments": {"allowImages": False}})
    assert cleaned == "<p>x</p>"


def test_rich_text_limits() -> None:
    assert bad("rich_text", "x" * 100_001) == [("too_big", ())]
    assert bad("rich_text", {"html": "x"}) == [("invalid_type", ())]


def test_rich_text_blank_html_does_not_satisfy_required() -> None:
    from fieldhouse.model.values import check_values

    field = fd("rich_text", required=True)
    result = check_values([field], {"rich-text": "<p> </p>"}, existing={})
    assert [i.code for i in result.issues] == ["required"]


def test_normalise_value_paths_are_relative() -> None:
    field: FieldDef = fd("text", maxLength=1)
    value, issues = normalise_value(field, "ab")
    assert value is None
    assert [(i.code, i.path) for i in issues] == [("too_big", ())]
    assert normalise_value(field, None) == (None, [])
