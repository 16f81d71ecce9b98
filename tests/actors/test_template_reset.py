"""The steps of reset-to-template that need no workspace: which template a module resets to.
The reset itself is tested through the actor in tests/actors/test_template_ops.py."""

from __future__ import annotations

import pytest

from fieldhouse.actors.template_reset import template_of
from fieldhouse.model.errors import Conflict
from fieldhouse.model.schema import ModuleDef, Template
from fieldhouse.model.templates import BUILTIN_TEMPLATES


def module(template_slug: str | None) -> ModuleDef:
    return ModuleDef("m-1", "a-1", "Plain", "plain", template_slug=template_slug)


@pytest.mark.parametrize("template", BUILTIN_TEMPLATES, ids=lambda t: t.slug)
def test_a_module_resets_to_the_template_it_was_installed_from(template: Template) -> None:
    assert template_of(module(template.slug)) is template


@pytest.mark.parametrize(
    ("template_slug", "reason"),
    [
        (None, "was not installed from a template"),
        ("gone", "was installed from template 'gone', which no longer exists"),
    ],
)
def test_a_module_without_a_known_template_has_nothing_to_reset_to(
    template_slug: str | None, reason: str
) -> None:
    with pytest.raises(Conflict) as refused:
        template_of(module(template_slug))
    assert refused.value.message == f"Module 'plain' {reason}; there is nothing to reset it to"
    assert refused.value.data == {"moduleId": "m-1", "templateSlug": template_slug}
