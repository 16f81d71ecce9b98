"""social_profile values: profile URLs with the platform detected from the host."""

from __future__ import annotations

import urllib.parse
from collections.abc import Mapping
from typing import Any

from fieldhouse.model.errors import Issue
from fieldhouse.model.fields._base import (
    Result,
    cfg_bool,
    cfg_str_list,
    invalid_enum,
    invalid_type,
    normalise_list,
    required,
    sub,
    unknown_keys,
)
from fieldhouse.model.fields.base import FieldType
from fieldhouse.model.fields.contact import check_url, url_host
from fieldhouse.model.schema import FieldDef

PLATFORMS: tuple[str, ...] = (
    "linkedin",
    "twitter",
    "facebook",
    "instagram",
    "github",
    "youtube",
    "tiktok",
    "mastodon",
    "other",
)

_HOSTS: tuple[tuple[str, str], ...] = (
    ("linkedin.com", "linkedin"),
    ("lnkd.in", "linkedin"),
    ("twitter.com", "twitter"),
    ("x.com", "twitter"),
    ("facebook.com", "facebook"),
    ("fb.com", "facebook"),
    ("instagram.com", "instagram"),
    ("github.com", "github"),
    ("youtube.com", "youtube"),
    ("youtu.be", "youtube"),
    ("tiktok.com", "tiktok"),
)

_PROFILE_KEYS = frozenset({"url", "platform"})
MAX_PROFILES = 50


def detect_platform(url: str) -> str:
    """The platform of a profile URL: a known host, mastodon for ``/@user`` paths, else other."""
    host = url_host(url)
    if host is None:
        return "other"
    for domain, platform in _HOSTS:
        if host == domain or host.endswith("." + domain):
            return platform
    path = urllib.parse.urlsplit(url).path
    if path.startswith("/@") and len(path) > 2:
        return "mastodon"
    return "other"


def _settings(field: FieldDef) -> tuple[bool, tuple[str, ...] | None]:
    nested = sub(field.config, "socialProfile")
    multiple = cfg_bool(field.config, "allowMultiple", cfg_bool(nested, "allowMultiple", False))
    allowed = cfg_str_list(field.config, "platforms") or cfg_str_list(nested, "platforms")
    return multiple, allowed


def check_profile(value: Any, allowed: tuple[str, ...] | None) -> Result:
    """A URL string or ``{url, platform?}``; normalised to ``{url, platform}``.

    The detected platform wins; a supplied platform is only used when detection says "other".
    """
    claimed: Any = None
    url_path: tuple[str | int, ...] = ()
    if isinstance(value, Mapping):
        issues: list[Issue] = unknown_keys(value, _PROFILE_KEYS)
        claimed = value.get("platform")
        if claimed is not None and claimed not in PLATFORMS:
            issues.append(invalid_enum(PLATFORMS, claimed, ("platform",)))
        if value.get("url") is None:
            issues.append(required(("url",), "A profile url"))
            return None, issues
        raw_url = value["url"]
        url_path = ("url",)
    elif isinstance(value, str):
        issues = []
        raw_url = value
    else:
        return None, [invalid_type("string or object", value)]
    url, url_issues = check_url(raw_url)
    issues.extend(i.prefixed(*url_path) for i in url_issues)
    if issues:
        return None, issues
    platform = detect_platform(url)
    if platform == "other" and isinstance(claimed, str):
        platform = claimed
    if allowed is not None and platform not in allowed:
        return None, [invalid_enum(allowed, platform, url_path)]
    return {"url": url, "platform": platform}, []


def normalise_social_profile(field: FieldDef, value: Any) -> Result:
    multiple, allowed = _settings(field)
    if multiple:
        return normalise_list(
            value,
            lambda v: check_profile(v, allowed),
            max_items=MAX_PROFILES,
            key=lambda p: p["url"],
        )
    return check_profile(value, allowed)


class SocialProfileType(FieldType):
    """Profile URLs: searchable, but only emptiness and substring filters."""

    data_type = "social_profile"
    example = "https://github.com/ada"
    searchable = True
    shown_as = "web_links"

    def normalise(self, field: FieldDef, value: Any) -> Result:
        return normalise_social_profile(field, value)

    def holds_list(self, field: FieldDef) -> bool:
        return _settings(field)[0]

    def value_schema(self) -> dict[str, Any]:
        item = {
            "type": "object",
            "required": ["url", "platform"],
            "properties": {
                "url": {"type": "string", "format": "uri"},
                "platform": {"type": "string", "enum": list(PLATFORMS)},
            },
        }
        return {"oneOf": [item, {"type": "array", "items": item}]}
