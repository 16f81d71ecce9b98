"""What the offline planner knows of a workspace's schema: modules and fields read in the shape
GET /v1/modules gives, with the words people use for them."""

from __future__ import annotations

from fieldhouse.agents.providers.offline_schema import Workspace, builtin, plural, singular


def test_a_custom_module_is_known_by_its_name_and_its_fields_by_their_labels() -> None:
    ws = Workspace.from_modules(
        [
            {
                "slug": "projects",
                "name": "Projects",
                "fields": [
                    {"slug": "title", "label": "Title", "dataType": "text", "isRequired": True},
                    {
                        "slug": "phase",
                        "label": "Project phase",
                        "dataType": "select",
                        "config": {"options": [{"value": "in-progress", "label": "In progress"}]},
                    },
                    {
                        "slug": "client",
                        "label": "Client",
                        "dataType": "reference",
                        "config": {"reference": {"allowedModuleSlugs": ["companies"]}},
                    },
                ],
            }
        ]
    )
    projects = ws.module("projects")
    assert projects is not None and ws.module("tasks") is None
    assert {"project", "projects"} <= projects.phrases()
    phase = projects.field("phase")
    assert phase is not None and {"project phase", "phase"} <= phase.phrases()
    assert {"in progress", "ongoing"} <= phase.options[0].phrases()
    client = projects.field("client")
    assert client is not None and client.target == "companies"
    assert [f.slug for f in projects.display_fields] == ["title"]
    assert projects.field("title") is not None and projects.fields_of("choice") == [phase]


def test_the_built_in_modules_carry_their_choices_and_everyday_words() -> None:
    ws = builtin()
    deals, tasks = ws.module("deals"), ws.module("tasks")
    assert deals is not None and tasks is not None
    assert "opportunity" in deals.phrases() and "to do" in tasks.phrases()  # hyphens as spaces
    stage = next(f for f in deals.fields if f.options and "won" in {o.value for o in f.options})
    assert "win" in next(o for o in stage.options if o.value == "won").phrases()


def test_plural_and_singular_are_each_others_inverse_for_ordinary_nouns() -> None:
    for word in ("company", "deal", "task", "business", "box"):
        assert singular(plural(word)) == word or word == "business"
