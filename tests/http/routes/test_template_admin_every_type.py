"""Every registered field type, end to end: a custom field of it is created through
POST /api/modules/{id}/fields, a record holds its example value, reads it back as the type
normalises it, and lists filter by it; a CSV export of the records imports back to the same
values. A new type in the registry is walked here unchanged."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx

from fieldhouse.model.fields import FIELD_TYPES
from fieldhouse.model.schema import FieldDef
from fieldhouse.runtime import Runtime
from fieldhouse.transfer import export_records, import_records
from tests.conftest import Workspace
from tests.http.routes.test_template_admin import add_field, module_id

URL = "/v1/modules/deals/records"


def _unlinked() -> dict[str, Any]:
    """The writable types whose example names no record or user (those need real targets:
    tests/http/routes/test_records_values.py writes them)."""
    out: dict[str, Any] = {}
    for name, kind in FIELD_TYPES.items():
        f = FieldDef("f", "m", "F", f"every-{name}", "F", name, dict(kind.example_config))
        value, issues = kind.normalise(f, kind.example) if not kind.read_only else (None, [])
        if value is not None and not issues and not kind.link_checks(f, value):
            out[name] = value
    return out


async def _names(client: httpx.AsyncClient, ws: Workspace, slug: str, operator: str) -> list[str]:
    condition = {"id": "c", "fieldSlug": slug, "operator": operator}
    tree = {"root": {"id": "g", "conjunction": "AND", "conditions": [condition]}}
    resp = await client.get(URL, headers=ws.headers, params={"advancedFilter": json.dumps(tree)})
    assert resp.status_code == 200, (slug, resp.text)
    return [r["displayName"] for r in resp.json()["records"]]


async def test_every_type_is_defined_written_read_filtered_and_carried_by_csv(
    client: httpx.AsyncClient, runtime: Runtime, ws: Workspace, tmp_path: Path
) -> None:
    expected = _unlinked()
    assert set(expected) >= {"text", "currency", "select", "image", "social_profile"}
    mid = await module_id(client, ws, "deals")
    for name in expected:
        body = {
            "label": f"Every {name}",
            "slug": f"every-{name.replace('_', '-')}",
            "dataType": name,
            "config": dict(FIELD_TYPES[name].example_config),
        }
        made = await add_field(client, ws, mid, body)
        assert made.status_code == 201, (name, made.text)
    slugs = {name: f"every-{name.replace('_', '-')}" for name in expected}
    values = {slugs[name]: FIELD_TYPES[name].example for name in expected}
    body = {"displayName": "Full", "fields": {"name": "Full", "stage": "lead", **values}}
    created = await client.post(URL, headers=ws.headers, json=body)
    assert created.status_code == 201, created.text
    empty = {"displayName": "Empty", "fields": {"name": "Empty", "stage": "lead"}}
    assert (await client.post(URL, headers=ws.headers, json=empty)).status_code == 201
    record_id = created.json()["record"]["recordId"]
    read = (await client.get(f"{URL}/{record_id}", headers=ws.headers)).json()["record"]
    for name, value in expected.items():
        assert read["fields"][slugs[name]] == value, name
        assert await _names(client, ws, slugs[name], "isNotNull") == ["Full"], name
        assert "Empty" in await _names(client, ws, slugs[name], "isNull"), name
    out = tmp_path / "deals.csv"
    await export_records(runtime.actors, ws.account_id, "deals", out, progress=False)
    report = await import_records(runtime.actors, ws.account_id, "deals", out, progress=False)
    assert report["rejected"] == []
    listed = (await client.get(URL + "?pageSize=100", headers=ws.headers)).json()["records"]
    copies = [r for r in listed if r["displayName"] == "Full" and r["recordId"] != record_id]
    assert len(copies) == 1
    for name, value in expected.items():
        assert copies[0]["fields"].get(slugs[name]) == value, name
