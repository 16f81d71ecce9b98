"""Custom modules through the workspace actor (no HTTP), on both backends: how another process
over the same database learns of a schema change (its schema version, read with every
credential check, then the snapshot reloaded), archived fields kept out of the snapshot with
their values stored, and an archived module out of it with its records."""

from __future__ import annotations

from fieldhouse.actors.module_ops import CreateModule, FieldSpec, UpdateModule
from fieldhouse.actors.record_ops import CreateRecord
from fieldhouse.actors.schemas import SchemaRegistry
from fieldhouse.actors.template_ops import UpdateField
from fieldhouse.model.schema import ModuleSchema
from fieldhouse.runtime import Runtime
from fieldhouse.storage import open_database
from tests.conftest import Workspace

FIELDS = (
    FieldSpec("Title", "text", slug="title"),
    FieldSpec("Phase", "select", config={"options": ["planned", "done"]}),
)


async def test_another_process_reads_each_schema_change_at_once(
    runtime: Runtime, ws: Workspace
) -> None:
    """A second store and registry (another worker or server) that already holds a snapshot
    of the workspace: each change moves the version it reads, and the snapshot at least that
    new has the change."""
    url = runtime.settings.resolved_database_url
    async with open_database(url) as other:
        registry = SchemaRegistry(other)
        before = await registry.get(ws.account_id)
        assert before.get("projects") is None

        made: ModuleSchema = await runtime.actors.ask(
            CreateModule("projects", "Projects", FIELDS, by=ws.system)
        )
        version = await other.schema_version(ws.account_id)
        assert version > before.version
        assert await registry.get(ws.account_id) is before  # cached until told otherwise
        seen = (await registry.get(ws.account_id, version)).get("projects")
        assert seen is not None
        assert [f.slug for f in seen.fields] == ["title", "phase"]

        phase = made.fields[1]
        row = await runtime.actors.ask(
            CreateRecord(
                made.module.module_id, "Rocket", {"title": "Rocket", "phase": "done"}, by=ws.system
            ),
        )
        await runtime.actors.ask(
            UpdateField(made.module.module_id, phase.field_id, archived=True, by=ws.system)
        )
        version = await other.schema_version(ws.account_id)
        seen = (await registry.get(ws.account_id, version)).get("projects")
        assert seen is not None
        assert [f.slug for f in seen.fields] == ["title"]
        assert [f.slug for f in seen.archived_fields] == ["phase"]
        assert seen.live_keys == frozenset({"title"})
        # the value is kept in storage
        stored = await other.get_record(ws.account_id, made.module.module_id, row.record_id)
        assert stored is not None and stored.fields["phase"] == "done"

        await runtime.actors.ask(UpdateModule(made.module.module_id, archived=True, by=ws.system))
        version = await other.schema_version(ws.account_id)
        assert (await registry.get(ws.account_id, version)).get("projects") is None
        stored = await other.get_record(ws.account_id, made.module.module_id, row.record_id)
        assert stored is not None  # an archived module's records are kept
