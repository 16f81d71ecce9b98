"""The custom module models: kebab-case slugs, names trimmed and never blank, at most 200
fields each in the field create shape, and the field specs the actor takes."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from fieldhouse.actors.module_ops import FieldSpec
from fieldhouse.http.module_models import ModuleCreateBody, ModuleUpdateBody


def test_a_body_becomes_the_actors_field_specs() -> None:
    body = ModuleCreateBody.model_validate(
        {
            "slug": "projects",
            "name": "  Projects ",
            "fields": [
                {"label": " Phase ", "dataType": "select", "config": {"options": ["a"]}},
                {"label": "Owner", "slug": "lead", "dataType": "person", "isRequired": True},
            ],
        }
    )
    assert body.name == "Projects"
    assert body.specs() == (
        FieldSpec("Phase", "select", config={"options": ["a"]}),
        FieldSpec("Owner", "person", slug="lead", config={}, is_required=True),
    )


@pytest.mark.parametrize(
    ("data", "where"),
    [
        ({"slug": "Projects", "name": "P"}, ("slug",)),
        ({"slug": "projects", "name": "   "}, ("name",)),
        ({"slug": "p", "name": "P", "fields": [{"label": "A", "dataType": "money"}]}, None),
        (
            {"slug": "p", "name": "P", "fields": [{"label": "A", "dataType": "text"}] * 201},
            ("fields",),
        ),
        ({"slug": "p", "name": "P", "vendorManaged": True}, ("vendorManaged",)),
    ],
)
def test_bad_bodies_are_refused_where_they_are_wrong(
    data: dict[str, object], where: tuple[str, ...] | None
) -> None:
    with pytest.raises(ValidationError) as caught:
        ModuleCreateBody.model_validate(data)
    (error,) = caught.value.errors()
    if where is not None:
        assert error["loc"] == where
    else:
        assert error["loc"][:3] == ("fields", 0, "dataType")


def test_an_update_takes_a_name_and_the_archived_flag_only() -> None:
    assert ModuleUpdateBody.model_validate({"archived": False}).archived is False
    with pytest.raises(ValidationError):
        ModuleUpdateBody.model_validate({"archived": "no"})
    with pytest.raises(ValidationError):
        ModuleUpdateBody.model_validate({"slug": "other"})
