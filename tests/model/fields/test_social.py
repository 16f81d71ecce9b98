"""Social profile values: a URL or {url, platform}, the platform detected from the host."""

from __future__ import annotations

import pytest

from tests.model.fields.support import bad, issue_json, ok

# --- social_profile ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "platform"),
    [
        ("https://www.linkedin.com/in/jane", "linkedin"),
        ("https://twitter.com/jane", "twitter"),
        ("https://x.com/jane", "twitter"),
        ("https://facebook.com/jane", "facebook"),
        ("https://www.instagram.com/jane", "instagram"),
        ("https://github.com/jane", "github"),
        ("https://youtube.com/@jane", "youtube"),
        ("https://www.tiktok.com/@jane", "tiktok"),
        ("https://mastodon.social/@jane", "mastodon"),
        ("https://example.com/jane", "other"),
    ],
)
def test_social_platform_detection(url: str, platform: str) -> None:
    assert ok("social_profile", url) == {"url": url, "platform": platform}


def test_social_object_and_claimed_platform() -> None:
    assert ok("social_profile", {"url": "https://github.com/j", "platform": "twitter"}) == {
        "url": "https://github.com/j",
        "platform": "github",
    }
    assert ok("social_profile", {"url": "https://fosstodon.org/u/j", "platform": "mastodon"}) == {
        "url": "https://fosstodon.org/u/j",
        "platform": "mastodon",
    }


def test_social_invalid() -> None:
    assert bad("social_profile", "github.com/jane") == [("invalid_string", ())]
    assert bad("social_profile", {"url": "nope", "platform": "myspace", "x": 1}) == [
        ("unrecognized_keys", ("x",)),
        ("invalid_enum_value", ("platform",)),
        ("invalid_string", ("url",)),
    ]
    assert bad("social_profile", {"platform": "github"}) == [("required", ("url",))]
    assert bad("social_profile", 7) == [("invalid_type", ())]


def test_social_platform_restriction() -> None:
    [found] = issue_json("social_profile", "https://github.com/j", platforms=["linkedin"])
    assert found["code"] == "invalid_enum_value"
    assert found["options"] == ["linkedin"]
    assert (
        ok("social_profile", "https://github.com/j", platforms=["github"])["platform"] == "github"
    )


def test_social_multi() -> None:
    value = ok(
        "social_profile",
        ["https://github.com/j", {"url": "https://x.com/j"}, "https://github.com/j"],
        allowMultiple=True,
    )
    assert value == [
        {"url": "https://github.com/j", "platform": "github"},
        {"url": "https://x.com/j", "platform": "twitter"},
    ]
    assert bad("social_profile", ["https://x.com/j", "bad"], allowMultiple=True) == [
        ("invalid_string", (1,))
    ]
    assert bad("social_profile", "https://x.com/j", allowMultiple=True) == [("invalid_type", ())]
