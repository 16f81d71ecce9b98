"""``fieldhouse import`` and ``fieldhouse export``: records from and to CSV or JSON Lines.

Imports go through the workspace actor in chunks (:class:`BatchWrite` without all-or-nothing),
so every row meets the same validation as the API; invalid rows are skipped and reported with
their line number and issues.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from rich.progress import Progress

from fieldhouse.actors.batch_ops import BatchItem, BatchWrite
from fieldhouse.actors.system import ActorSystem
from fieldhouse.model.errors import BadRequest, NotFound
from fieldhouse.model.listquery import parse_list_query
from fieldhouse.model.schema import ModuleSchema

CHUNK = 1000
#: computed by the server: an export carries them, an import leaves them out
COMPUTED = frozenset({"formula", "rollup", "autonumber"})
#: data types whose CSV cells are taken as they are (others are read as JSON when they parse)
STRING_TYPES = frozenset({"text", "long_text", "rich_text", "select", "date", "time", "url"})


async def module_schema(system: ActorSystem, account_id: str, slug: str) -> ModuleSchema:
    _, schemas = await system.store.load_schemas(account_id)
    if slug not in schemas:
        raise NotFound(f"Module {slug} not found in workspace {account_id}")
    return schemas[slug]


def _rows(path: Path, schema: ModuleSchema) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, {displayName?, fields}) for each record of a .csv or .jsonl file."""
    types = {f.slug: f.data_type for f in schema.fields}
    if path.suffix == ".jsonl":
        with path.open(encoding="utf-8") as handle:
            for number, line in enumerate(handle, start=1):
                if line.strip():
                    item = json.loads(line)
                    if "fields" not in item:
                        name = item.pop("displayName", None)
                        item = {"displayName": name, "fields": item}
                    yield number, item
        return
    if path.suffix != ".csv":
        raise BadRequest(f"{path.name}: the file must end in .csv or .jsonl")
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        for item in reader:
            fields: dict[str, Any] = {}
            for column, cell in item.items():
                if column in (None, "displayName", "recordId") or cell in (None, ""):
                    continue
                fields[column] = cell if types.get(column, "text") in STRING_TYPES else _cell(cell)
            yield reader.line_num, {"displayName": item.get("displayName"), "fields": fields}


def _cell(cell: str) -> Any:
    try:
        return json.loads(cell)
    except ValueError:
        return cell


def _display(schema: ModuleSchema, item: dict[str, Any]) -> str:
    name = item.get("displayName")
    if isinstance(name, str) and name:
        return name
    for f in schema.fields:
        value = item["fields"].get(f.slug)
        if f.config.get("isDisplayField") and isinstance(value, str) and value:
            return value
    return "Record"


async def import_records(
    system: ActorSystem, account_id: str, slug: str, path: Path, *, progress: bool = True
) -> dict[str, Any]:
    """Import every row of ``path``; return counts and the rejected rows (line, issues)."""
    schema = await module_schema(system, account_id, slug)
    owner = await system.store.owner_user_id(account_id)
    report: dict[str, Any] = {"module": slug, "imported": 0, "rejected": []}
    total = _count_rows(path)
    with Progress(disable=not progress, transient=True) as bar:
        task = bar.add_task(f"importing {path.name}", total=total)
        chunk: list[tuple[int, dict[str, Any]]] = []
        for row in _rows(path, schema):
            chunk.append(row)
            if len(chunk) == CHUNK:
                await _import_chunk(system, account_id, schema, owner, chunk, report)
                bar.advance(task, len(chunk))
                chunk = []
        if chunk:
            await _import_chunk(system, account_id, schema, owner, chunk, report)
            bar.advance(task, len(chunk))
    return report


def _count_rows(path: Path) -> int:
    with path.open("rb") as handle:
        lines = sum(1 for line in handle if line.strip())
    return lines - 1 if path.suffix == ".csv" else lines


async def _import_chunk(
    system: ActorSystem,
    account_id: str,
    schema: ModuleSchema,
    owner: str | None,
    chunk: list[tuple[int, dict[str, Any]]],
    report: dict[str, Any],
) -> None:
    computed = {f.slug for f in schema.fields if f.data_type in COMPUTED}
    items = tuple(
        BatchItem(
            _display(schema, item),
            {k: v for k, v in item["fields"].items() if k not in computed},
        )
        for _, item in chunk
    )
    outcome = await system.ask(
        account_id,
        BatchWrite(
            schema.module.module_id,
            items,
            all_or_nothing=False,
            actor_name="import",
            actor_user_id=owner,
        ),
    )
    report["imported"] += len(outcome.written)
    for index, issues in outcome.rejected:
        report["rejected"].append(
            {
                "line": chunk[index][0],
                # paths relative to the row (the batch prefixes "records", index)
                "issues": [{**i.to_json(), "path": list(i.path[2:])} for i in issues],
            }
        )


async def export_records(
    system: ActorSystem, account_id: str, slug: str, path: Path, *, progress: bool = True
) -> dict[str, Any]:
    """Write every live record of the module to ``path`` (.csv or .jsonl), oldest first."""
    if path.suffix not in (".csv", ".jsonl"):
        raise BadRequest(f"{path.name}: the file must end in .csv or .jsonl")
    schema = await module_schema(system, account_id, slug)
    store = system.store
    query = parse_list_query([("sortField", "created_at"), ("sortDirection", "asc")], schema)
    slugs = [f.slug for f in schema.fields]
    written = 0
    with (
        path.open("w", encoding="utf-8", newline="") as handle,
        Progress(disable=not progress, transient=True) as bar,
    ):
        writer = csv.writer(handle) if path.suffix == ".csv" else None
        if writer is not None:
            writer.writerow(["recordId", "displayName", *slugs])
        task = bar.add_task(f"exporting {slug}", total=None)
        while True:
            assert written % CHUNK == 0  # every page before this one was full
            page = replace(query, page=written // CHUNK + 1, page_size=CHUNK)
            rows, total = await store.list_records(account_id, schema, page)
            bar.update(task, total=total)
            for r in rows:
                if writer is None:
                    line = {"recordId": r.record_id, "displayName": r.display_name}
                    handle.write(json.dumps({**line, "fields": r.fields}) + "\n")
                else:
                    cells = [_out(r.fields.get(s)) for s in slugs]
                    writer.writerow([r.record_id, r.display_name, *cells])
            written += len(rows)
            bar.advance(task, len(rows))
            if len(rows) < CHUNK:
                break
    return {"module": slug, "exported": written, "file": str(path)}


def _out(value: Any) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value)
