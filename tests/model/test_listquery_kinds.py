"""Which filter kind a list key has: system keys read their column, a field its type's kind,
and a slug that could not be a safe SQL JSON path is never a field."""

from __future__ import annotations

import pytest

from fieldhouse.model.listquery_kinds import ALLOWED_OPS, is_safe_slug, kind_of_field, resolve_key
from fieldhouse.model.schema import FieldDef
from tests.model.listquery_support import SCHEMA


@pytest.mark.parametrize(
    ("key", "base", "column"),
    [
        ("displayName", "text", "display_name"),
        ("created_at", "datetime", "created_at"),
        ("createdDateTime", "datetime", "created_at"),
        ("updated_at", "datetime", "updated_at"),
        ("updatedDateTime", "datetime", "updated_at"),
    ],
)
def test_system_keys_read_their_column(key: str, base: str, column: str) -> None:
    kind = resolve_key(key, SCHEMA)
    assert kind is not None and (kind.base, kind.slug, kind.column) == (base, key, column)
    assert resolve_key(key, SCHEMA, system=False) is None  # not a field of the module


@pytest.mark.parametrize(
    ("slug", "base", "value_key", "multi"),
    [
        ("title", "text", (), False),
        ("amount", "number", (), False),
        ("price", "number", ("amount",), False),  # a currency compares its amount
        ("company", "ref", ("recordId",), False),
        ("tags", "exact", (), True),
        ("score", "number", (), False),  # a formula by its result type
        ("flag", "boolean", (), False),
        ("total", "number", (), False),
        ("due", "date", (), False),
        ("at", "time", (), False),
        ("addr", "opaque", (), False),
    ],
)
def test_fields_take_their_types_kind(
    slug: str, base: str, value_key: tuple[str, ...], multi: bool
) -> None:
    kind = resolve_key(slug, SCHEMA)
    assert kind is not None
    assert (kind.base, kind.slug, kind.column, kind.value_key, kind.multi) == (
        base,
        slug,
        None,
        value_key,
        multi,
    )


@pytest.mark.parametrize("slug", ['bad"slug', "nope", "-lead", "x" * 129, "a b", "a.b"])
def test_unknown_or_unsafe_keys_resolve_to_nothing(slug: str) -> None:
    assert resolve_key(slug, SCHEMA) is None


def test_safe_slugs() -> None:
    assert is_safe_slug("deal-number") and is_safe_slug("_x") and is_safe_slug("a" * 128)
    assert not is_safe_slug("") and not is_safe_slug("a" * 129) and not is_safe_slug("a'b")


def test_an_unknown_data_type_is_opaque() -> None:
    """A stored field of a type this server does not know can be neither compared nor
    sorted by a kind it does not have."""
    kind = kind_of_field(FieldDef("f", "m1", "Old", "old", "Old", "hologram", {}))
    assert kind.base == "opaque"
    assert ALLOWED_OPS["opaque"] < ALLOWED_OPS["text"]
