"""image values: JPG, PNG, GIF or WebP by http(s) URL or ``data:image/...`` URL."""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Mapping
from typing import Any

from fieldhouse.model.errors import Issue
from fieldhouse.model.fields._base import (
    Path,
    Result,
    cfg_bool,
    cfg_int,
    finite_number,
    integral,
    invalid_enum,
    invalid_string,
    invalid_type,
    issue,
    normalise_list,
    optional_string,
    required,
    show,
    sub,
    too_big_string,
    too_small_number,
    unknown_keys,
)
from fieldhouse.model.fields.base import FieldType, ListSwitch
from fieldhouse.model.fields.contact import url_host
from fieldhouse.model.schema import FieldDef

FORMATS: tuple[str, ...] = ("jpg", "png", "gif", "webp")
DEFAULT_MAX_IMAGES = 10
DEFAULT_MAX_SIZE_KB = 5120
NAME_MAX_LENGTH = 255
URL_MAX_LENGTH = 2048

_IMAGE_KEYS = frozenset({"url", "name", "sizeKB", "format"})
_DATA_URL = re.compile(
    r"data:image/(?P<type>[A-Za-z0-9.+-]+)(?P<params>;[^,]*)?,(?P<data>.*)", re.S
)
_ALIASES = {"jpeg": "jpg", "jpe": "jpg", "jfif": "jpg"}


def _canonical_format(name: str) -> str:
    lowered = name.lower()
    return _ALIASES.get(lowered, lowered)


def _extension(text: str) -> str | None:
    tail = text.rsplit("/", 1)[-1]
    if "." not in tail:
        return None
    return _canonical_format(tail.rsplit(".", 1)[-1]) or None


def _data_url_size_kb(params: str, data: str) -> float:
    """Decoded size of a data URL payload in KB (base64 decodes to 3/4 of its length)."""
    if params.endswith(";base64"):
        return len(data.rstrip("=")) * 3 / 4 / 1024
    return len(urllib.parse.unquote_to_bytes(data)) / 1024


def check_image(value: Any, max_size_kb: int) -> Result:
    """``{url, name?, sizeKB?, format?}`` or a bare URL string.

    Normalised to ``{url, name, sizeKB, format}`` with the format in jpg/png/gif/webp.
    """
    if isinstance(value, str):
        value = {"url": value}
    if not isinstance(value, Mapping):
        return None, [invalid_type("object or URL string", value)]
    issues: list[Issue] = unknown_keys(value, _IMAGE_KEYS)
    name, name_issues = optional_string(value, "name", NAME_MAX_LENGTH)
    issues.extend(name_issues)
    size: int | float | None = None
    if value.get("sizeKB") is not None:
        size, size_issues = finite_number(value["sizeKB"], ("sizeKB",))
        issues.extend(size_issues)
        if size is not None and size < 0:
            issues.append(too_small_number(0, size, ("sizeKB",)))
        elif size is not None and size > max_size_kb:
            issues.append(_too_large(max_size_kb, size, ("sizeKB",)))
    url = value.get("url")
    detected: str | None = None
    if url is None:
        issues.append(required(("url",), "An image url"))
    elif not isinstance(url, str):
        issues.append(invalid_type("string", url, ("url",)))
    else:
        data = _DATA_URL.fullmatch(url)
        if data is not None:
            detected = _canonical_format(data.group("type"))
            payload_kb = _data_url_size_kb(data.group("params") or "", data.group("data"))
            if payload_kb > max_size_kb:
                issues.append(_too_large(max_size_kb, round(payload_kb, 1), ("url",)))
        elif len(url) > URL_MAX_LENGTH:
            issues.append(too_big_string(URL_MAX_LENGTH, len(url), ("url",)))
        elif url_host(url) is None:
            issues.append(
                invalid_string(
                    "url",
                    f"Invalid image URL {show(url)}: expected an http:// or https:// URL with a "
                    "host, or a data:image/... URL",
                    ("url",),
                )
            )
        else:
            detected = _extension(urllib.parse.urlsplit(url).path)
    fmt, fmt_path = _pick_format(value.get("format"), detected, name, issues)
    if fmt is None and not issues:
        issues.append(
            issue(
                "custom",
                "Cannot tell the image format: give format, or a url or name ending in "
                ".jpg, .png, .gif or .webp",
                ("format",),
            )
        )
    elif fmt is not None and fmt not in FORMATS:
        issues.append(invalid_enum(FORMATS, fmt, fmt_path))
    if issues:
        return None, issues
    return {
        "url": url,
        "name": name,
        "sizeKB": None if size is None else integral(size),
        "format": fmt,
    }, []


def _pick_format(
    given: Any, detected: str | None, name: str | None, issues: list[Issue]
) -> tuple[str | None, Path]:
    if given is not None:
        if not isinstance(given, str):
            issues.append(invalid_type("string", given, ("format",)))
            return None, ("format",)
        return _canonical_format(given), ("format",)
    if detected is not None:
        return detected, ("url",)
    if name is not None:
        return _extension(name), ("name",)
    return None, ("format",)


def _too_large(max_size_kb: int, size: int | float, path: Path) -> Issue:
    return issue(
        "too_big",
        f"Image must be at most {max_size_kb} KB, received {size} KB",
        path,
        maximum=max_size_kb,
        inclusive=True,
        type="number",
    )


def normalise_image(field: FieldDef, value: Any) -> Result:
    settings = sub(field.config, "image")
    max_size_kb = cfg_int(settings, "maxSizeKB", DEFAULT_MAX_SIZE_KB, 1, 1_048_576)
    if cfg_bool(settings, "multiple", False):
        max_images = cfg_int(settings, "maxImages", DEFAULT_MAX_IMAGES, 1, 100)
        return normalise_list(
            value,
            lambda v: check_image(v, max_size_kb),
            max_items=max_images,
            key=lambda i: i["url"],
        )
    if isinstance(value, list | tuple):
        return None, [invalid_type("object or URL string", value)]
    return check_image(value, max_size_kb)


class ImageType(FieldType):
    """Image references: only emptiness and substring filters; nothing to search."""

    data_type = "image"
    example = "https://example.com/logo.png"
    list_switch = ListSwitch("image", "multiple", True)
    shown_as = "image_names"
    edited_as = None  # uploaded, not typed in a form

    def normalise(self, field: FieldDef, value: Any) -> Result:
        return normalise_image(field, value)

    def value_schema(self) -> dict[str, Any]:
        item = {
            "type": "object",
            "required": ["url", "name", "sizeKB", "format"],
            "properties": {
                "url": {"type": "string"},
                "name": {"type": ["string", "null"]},
                "sizeKB": {"type": ["number", "null"]},
                "format": {"type": "string", "enum": list(FORMATS)},
            },
        }
        return {"oneOf": [item, {"type": "array", "items": item}]}
