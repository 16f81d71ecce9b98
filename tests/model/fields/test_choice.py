from __future__ import annotations

from tests.model.fields.support import bad, fd, issue_json, ok

OPTIONS = ["new", {"value": "won", "label": "Won", "color": "green"}, {"value": "lost"}]


def test_select_valid() -> None:
    assert ok("select", "new", options=OPTIONS) == "new"
    assert ok("select", "won", options=OPTIONS) == "won"


def test_select_invalid() -> None:
    [found] = issue_json("select", "Won", options=OPTIONS)
    assert found["code"] == "invalid_enum_value"
    assert found["options"] == ["new", "won", "lost"]
    assert "'new' | 'won' | 'lost'" in found["message"]
    assert bad("select", 1, options=OPTIONS) == [("invalid_type", ())]
    assert bad("select", ["new"], options=OPTIONS) == [("invalid_type", ())]
    assert bad("select", "x") == [("invalid_enum_value", ())]


def test_multi_select_valid_and_deduplicated() -> None:
    assert ok("multi_select", ["lost", "new", "lost"], options=OPTIONS) == ["lost", "new"]
    assert ok("multi_select", [], options=OPTIONS) == []


def test_multi_select_invalid_items() -> None:
    assert bad("multi_select", ["new", "nope", 3], options=OPTIONS) == [
        ("invalid_enum_value", (1,)),
        ("invalid_type", (2,)),
    ]
    assert bad("multi_select", "new", options=OPTIONS) == [("invalid_type", ())]


def test_multi_select_max_items() -> None:
    config = {"options": OPTIONS, "multiSelect": {"maxItems": 2}}
    assert ok("multi_select", ["new", "won", "new"], **config) == ["new", "won"]
    [found] = issue_json("multi_select", ["new", "won", "lost"], **config)
    assert found["code"] == "too_big"
    assert found["maximum"] == 2
    assert found["type"] == "array"


def test_multi_select_free_form() -> None:
    config = {"options": OPTIONS, "multiSelect": {"allowFreeForm": True}}
    assert ok("multi_select", ["new", "vip", "vip"], **config) == ["new", "vip"]
    assert bad("multi_select", ["x" * 256], **config) == [("too_big", (0,))]
    assert bad("multi_select", [""], **config) == [("invalid_enum_value", (0,))]


def test_boolean() -> None:
    assert ok("boolean", True) is True
    assert ok("boolean", False) is False
    invalid: tuple[object, ...] = (0, 1, "true", "false", [], {})
    for value in invalid:
        [found] = issue_json("boolean", value)
        assert found["code"] == "invalid_type"
        assert found["expected"] == "boolean"


def test_helpers_build_fields() -> None:
    field = fd("multi_select", options=["a"])
    assert field.slug == "multi-select"
    assert field.config == {"options": ["a"]}
    assert ok("multi_select", ["a"], options=["a"]) == ["a"]
