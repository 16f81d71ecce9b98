"""``fieldhouse import`` and ``fieldhouse export``: records from and to CSV or JSON Lines.

Imports go through the workspace actor in chunks (:class:`BatchWrite` without all-or-nothing),
so every row meets the same validation as the API; invalid rows are skipped and reported with
their line number and issues (a JSON Lines line that is not a JSON object is one of them).

CSV cells a spreadsheet would run as a formula are escaped the way OWASP recommends: a text
value that starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return (after any
apostrophes) is written after one more apostrophe, and an import takes one apostrophe off such
a cell, so ``=1+1`` exports as ``'=1+1`` and imports as ``=1+1`` again. Numbers (``-5``),
booleans and JSON values are written as they are.
"""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from rich.progress import Progress

from fieldhouse.actors.batch_ops import BatchItem, BatchWrite
from fieldhouse.actors.system import ActorSystem
from fieldhouse.model.errors import BadRequest, Issue, NotFound
from fieldhouse.model.listquery import parse_list_query
from fieldhouse.model.schema import ModuleSchema

CHUNK = 1000
#: computed by the server: an export carries them, an import leaves them out
COMPUTED = frozenset({"formula", "rollup", "autonumber"})
#: data types whose CSV cells are taken as they are (others are read as JSON when they parse)
STRING_TYPES = frozenset({"text", "textarea", "rich_text", "select", "date", "time", "url"})
#: a text cell a spreadsheet would take for a formula (OWASP's list), after the apostrophes of
#: an earlier escape: export puts one more apostrophe before it, import takes one off
_FORMULA = re.compile(r"'*[=+\-@\t\r]")
Row = tuple[int, dict[str, Any] | list[Issue]]


async def module_schema(system: ActorSystem, account_id: str, slug: str) -> ModuleSchema:
    _, schemas = await system.store.load_schemas(account_id)
    if slug not in schemas:
        raise NotFound(f"Module {slug} not found in workspace {account_id}")
    return schemas[slug]


def _rows(path: Path, schema: ModuleSchema) -> Iterator[Row]:
    """(line number, {displayName?, fields}) for each record of a .csv or .jsonl file, or
    (line number, issues) for a line that holds no record."""
    if path.suffix == ".jsonl":
        with path.open("rb") as handle:
            for number, line in enumerate(handle, start=1):
                if line.strip():
                    yield number, _json_line(line)
        return
    if path.suffix != ".csv":
        raise BadRequest(f"{path.name}: the file must end in .csv or .jsonl")
    types = {f.slug: f.data_type for f in schema.fields}
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        for item in reader:
            fields: dict[str, Any] = {}
            for column, cell in item.items():
                if column in (None, "displayName", "recordId") or cell in (None, ""):
                    continue
                fields[column] = _cell(cell, types.get(column, "text") in STRING_TYPES)
            name = item.get("displayName")
            name = _unescape(name) if name is not None else None
            yield reader.line_num, {"displayName": name, "fields": fields}


def _json_line(line: bytes) -> dict[str, Any] | list[Issue]:
    """One JSON Lines record: ``{displayName?, fields}`` or a flat object of field values."""
    try:
        item = json.loads(line.decode("utf-8"))
    except UnicodeDecodeError as exc:
        return [Issue("invalid_json", (), f"The line is not UTF-8 text: {exc.reason}")]
    except ValueError as exc:  # JSONDecodeError, or a number of thousands of digits
        return [Issue("invalid_json", (), f"The line is not valid JSON: {exc}")]
    if not isinstance(item, dict):
        return [Issue("invalid_type", (), "The line must be a JSON object (one record)")]
    if "fields" not in item:
        name = item.pop("displayName", None)
        item = {"displayName": name, "fields": item}
    issues: list[Issue] = []
    if not isinstance(item["fields"], dict):
        issues.append(Issue("invalid_type", ("fields",), "fields must be an object"))
    if not isinstance(item.get("displayName"), str | None):
        issues.append(Issue("invalid_type", ("displayName",), "displayName must be a string"))
    return issues or item


def _cell(cell: str, text: bool) -> Any:
    """A CSV cell's value: a text column's cell is text, and so is an escaped formula-like
    cell; any other cell is JSON when it parses (``-5``, ``true``, ``["a"]``)."""
    if text or cell.startswith("'"):
        return _unescape(cell)
    try:
        return json.loads(cell)
    except ValueError:
        return cell


def _unescape(cell: str) -> str:
    return cell[1:] if cell.startswith("'") and _FORMULA.match(cell) else cell


def _escape(text: str) -> str:
    return "'" + text if _FORMULA.match(text) else text


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
        for number, row in _rows(path, schema):
            if isinstance(row, list):
                report["rejected"].append({"line": number, "issues": [i.to_json() for i in row]})
                bar.advance(task, 1)
                continue
            chunk.append((number, row))
            if len(chunk) == CHUNK:
                await _import_chunk(system, account_id, schema, owner, chunk, report)
                bar.advance(task, len(chunk))
                chunk = []
        if chunk:
            await _import_chunk(system, account_id, schema, owner, chunk, report)
            bar.advance(task, len(chunk))
    report["rejected"].sort(key=lambda r: r["line"])
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
    text = [f.data_type in STRING_TYPES for f in schema.fields]
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
                    cells = [_out(r.fields.get(s), t) for s, t in zip(slugs, text, strict=True)]
                    writer.writerow([r.record_id, _escape(r.display_name), *cells])
            written += len(rows)
            bar.advance(task, len(rows))
            if len(rows) < CHUNK:
                break
    return {"module": slug, "exported": written, "file": str(path)}


def _out(value: Any, text: bool) -> str:
    """A value's CSV cell: text as it is (escaped when formula-like), anything else as JSON,
    and text of a column read as JSON written as a JSON string when it would parse as
    something else (a phone ``"123"`` stays text)."""
    if value is None:
        return ""
    if not isinstance(value, str):
        return json.dumps(value)
    if text or _FORMULA.match(value):
        return _escape(value)
    try:
        json.loads(value)
    except ValueError:
        return value
    return json.dumps(value)
