"""text, textarea and rich_text: strings, the last one sanitised HTML."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from typing import Any

from fieldhouse.model.errors import Issue
from fieldhouse.model.fields._base import (
    Result,
    cfg_bool,
    cfg_int,
    invalid_string,
    invalid_type,
    issue,
    sub,
    too_big_string,
)
from fieldhouse.model.fields.base import FieldType, strings_of
from fieldhouse.model.fields.kind import FilterKind
from fieldhouse.model.schema import FieldDef

TEXT_MAX_LENGTH = 255
TEXTAREA_MAX_LENGTH = 5000
RICH_TEXT_MAX_LENGTH = 100_000


def _plain(field: FieldDef, value: Any, default_max: int) -> Result:
    if not isinstance(value, str):
        return None, [invalid_type("string", value)]
    issues: list[Issue] = []
    maximum = cfg_int(field.config, "maxLength", default_max, 0, 1_000_000)
    if len(value) > maximum:
        issues.append(too_big_string(maximum, len(value)))
    return value, issues


def normalise_text(field: FieldDef, value: Any) -> Result:
    """A string no longer than ``maxLength`` (255) that fully matches ``pattern`` when set."""
    text, issues = _plain(field, value, TEXT_MAX_LENGTH)
    if text is None:
        return None, issues
    pattern = field.config.get("pattern")
    if pattern is not None and pattern != "":
        if not isinstance(pattern, str):
            issues.append(issue("custom", "The field pattern is invalid: it is not a string"))
        else:
            try:
                compiled = re.compile(pattern)
            except (re.error, RecursionError, OverflowError) as exc:
                issues.append(issue("custom", f"The field pattern is invalid: {exc}"))
            else:
                if compiled.fullmatch(text) is None:
                    issues.append(
                        invalid_string("regex", f"String must match the pattern {pattern!r}")
                    )
    return (None, issues) if issues else (text, [])


def normalise_textarea(field: FieldDef, value: Any) -> Result:
    """A string no longer than ``maxLength`` (5000)."""
    text, issues = _plain(field, value, TEXTAREA_MAX_LENGTH)
    return (None, issues) if issues else (text, [])


def normalise_rich_text(field: FieldDef, value: Any) -> Result:
    """An HTML string of at most 100,000 characters, sanitised with nh3.

    When ``richText.attachments.allowImages`` is explicitly false, ``<img>`` tags are removed.
    """
    if not isinstance(value, str):
        return None, [invalid_type("string", value)]
    if len(value) > RICH_TEXT_MAX_LENGTH:
        return None, [too_big_string(RICH_TEXT_MAX_LENGTH, len(value))]
    import nh3  # (at the first rich text: a worker whose records have none saves ~1.4 MB)

    attachments = sub(sub(field.config, "richText"), "attachments")
    if cfg_bool(attachments, "allowImages", True):
        cleaned = nh3.clean(value)
    else:
        cleaned = nh3.clean(value, tags=set(nh3.ALLOWED_TAGS) - {"img"})
    return cleaned, []


def rich_text_is_blank(html: str) -> bool:
    """True when sanitised HTML carries neither text nor an image."""
    if "<img" in html:
        return False
    import nh3  # (at the first rich text)

    text = nh3.clean(html, tags=set())
    return text.replace("&nbsp;", " ").strip() == ""


def strip_html(text: str) -> str:
    """Rich text as plain words (tags dropped, entities decoded)."""
    import nh3  # (at the first rich text)

    return html.unescape(nh3.clean(text, tags=set(), clean_content_tags={"script", "style"}))


class TextType(FieldType):
    data_type = "text"
    spoken = "text"
    searchable = True
    keeps_unique = True
    csv_cell = "string"
    example = "Acme Ltd"

    def normalise(self, field: FieldDef, value: Any) -> Result:
        return normalise_text(field, value)

    def filter_kind(self, field: FieldDef) -> FilterKind:
        return FilterKind("text", field.slug)

    def value_schema(self) -> dict[str, Any]:
        return {"type": "string", "maxLength": 1_000_000}


class TextareaType(TextType):
    data_type = "textarea"
    keeps_unique = False
    shown_as = "prose"
    edited_as = "paragraph"
    example = "Met at the fair.\nCall back in May."

    def normalise(self, field: FieldDef, value: Any) -> Result:
        return normalise_textarea(field, value)


class RichTextType(TextType):
    data_type = "rich_text"
    keeps_unique = False
    shown_as = "html_as_text"
    edited_as = "paragraph"
    example = "<p>Renewal <strong>due</strong></p>"

    def normalise(self, field: FieldDef, value: Any) -> Result:
        return normalise_rich_text(field, value)

    def is_blank(self, value: Any) -> bool:
        return rich_text_is_blank(value) if isinstance(value, str) else super().is_blank(value)

    def search_text(self, value: Any) -> Iterator[str]:
        for text in strings_of(value):
            yield strip_html(text)

    def value_schema(self) -> dict[str, Any]:
        return {
            "type": "string",
            "maxLength": RICH_TEXT_MAX_LENGTH,
            "description": "HTML, sanitised",
        }
