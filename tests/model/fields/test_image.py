"""Image values: a URL or {url, format, sizeKB}, formats and sizes bounded by the field."""

from __future__ import annotations

from tests.model.fields.support import bad, issue_json, ok

# --- image ------------------------------------------------------------------------------------


def test_image_single() -> None:
    assert ok("image", {"url": "https://cdn.x.io/a/photo.JPEG", "sizeKB": 120}) == {
        "url": "https://cdn.x.io/a/photo.JPEG",
        "name": None,
        "sizeKB": 120,
        "format": "jpg",
    }
    assert (
        ok("image", {"url": "https://cdn.x.io/i/123", "format": "WebP", "name": "a"})["format"]
        == "webp"
    )
    assert ok("image", {"url": "https://cdn.x.io/i/123", "name": "cat.gif"})["format"] == "gif"
    assert ok("image", "data:image/png;base64,iVBORw0KGgo=")["format"] == "png"


def test_image_invalid() -> None:
    [fmt] = issue_json("image", "https://x.io/a.bmp")
    assert fmt["code"] == "invalid_enum_value"
    assert fmt["options"] == ["jpg", "png", "gif", "webp"]
    assert bad("image", "https://x.io/a") == [("custom", ("format",))]
    assert bad("image", {"url": "ftp://x.io/a.png"}) == [("invalid_string", ("url",))]
    assert bad("image", {"url": "https://x.io/a.png", "sizeKB": 6000, "alt": ""}) == [
        ("unrecognized_keys", ("alt",)),
        ("too_big", ("sizeKB",)),
    ]
    assert bad("image", {"url": "https://x.io/a.png", "format": "tiff"}) == [
        ("invalid_enum_value", ("format",))
    ]
    assert bad("image", {"name": "a.png"}) == [("required", ("url",))]
    assert bad("image", "data:image/svg+xml,<svg/>") == [("invalid_enum_value", ("url",))]
    assert bad("image", ["https://x.io/a.png"]) == [("invalid_type", ())]


def test_image_size_limits() -> None:
    config = {"image": {"maxSizeKB": 1}}
    assert bad("image", {"url": "https://x.io/a.png", "sizeKB": 2}, **config) == [
        ("too_big", ("sizeKB",))
    ]
    big = "data:image/png;base64," + "A" * 2000
    [found] = issue_json("image", big, **config)
    assert found["code"] == "too_big"
    assert found["maximum"] == 1


def test_image_multiple() -> None:
    config = {"image": {"multiple": True, "maxImages": 2}}
    value = ok("image", ["https://x.io/a.png", {"url": "https://x.io/b.gif"}], **config)
    assert [i["format"] for i in value] == ["png", "gif"]
    [found] = issue_json("image", ["https://x.io/a.png"] * 3, **config)
    assert found["code"] == "too_big"
    assert found["maximum"] == 2
    assert found["type"] == "array"
    assert bad("image", ["https://x.io/a.png", "https://x.io/b.bmp"], **config) == [
        ("invalid_enum_value", (1, "url"))
    ]
