"""``fieldhouse import`` and ``fieldhouse export``: records from and to CSV or JSON Lines.

Imports go through the workspace actor in chunks (:class:`BatchWrite` without all-or-nothing),
so every row meets the same validation as the API; invalid rows are skipped and reported with
their line number and issues (a JSON Lines line that is not a JSON object is one of them).

CSV cells a spreadsheet would run as a formula are escaped the way OWASP recommends: a text
value that starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return (after any
apostrophes) is written after one more apostrophe, and an import takes one apostrophe off such
a cell, so ``=1+1`` exports as ``'=1+1`` and imports as ``=1+1`` again. Numbers (``-5``),
booleans and JSON values are written as they are.

A CSV cell is read by its column's field type, never guessed from its text: a text, select,
date or time column takes the text as it is (``42``, ``true``, ``null`` and ``{"a": 1}`` stay
text), number, rating and progress columns take a number, boolean columns ``true``/``false``
(any case), and the other types take the JSON an export writes (or a bare value the API takes:
a record id, a URL, comma-separated options), so export then import gives every value back.
Columns are matched to fields by slug, name or label, ignoring case, spaces and punctuation
(``First name``, ``FirstName`` and ``first-name`` are one column); a file may start with the
UTF-8 byte order mark spreadsheet programs write. The progress bar goes to stderr.
"""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import Progress

from fieldhouse.actors.batch_ops import BatchItem, BatchWrite
from fieldhouse.actors.system import ActorSystem
from fieldhouse.model.errors import BadRequest, Issue, NotFound
from fieldhouse.model.fields import type_of
from fieldhouse.model.listquery import parse_list_query
from fieldhouse.model.principal import SystemActor
from fieldhouse.model.schema import FieldDef, ModuleSchema

CHUNK = 1000
#: column headings that name the record's display name and id rather than a field
DISPLAY_NAMES = ("displayName", "display name", "name")
RECORD_IDS = ("recordId", "record id", "id")
_NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_INTEGER = re.compile(r"[+-]?[0-9]+")
#: a text cell a spreadsheet would take for a formula (OWASP's list), after the apostrophes of
#: an earlier escape: export puts one more apostrophe before it, import takes one off
_FORMULA = re.compile(r"'*[=+\-@\t\r]")
Row = tuple[int, dict[str, Any] | list[Issue]]
#: the UTF-8 byte order mark, which spreadsheet programs put at the start of a file
BOM = b"\xef\xbb\xbf"


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
                if number == 1:
                    line = line.removeprefix(BOM)
                if line.strip():
                    yield number, _json_line(line)
        return
    if path.suffix != ".csv":
        raise BadRequest(f"{path.name}: the file must end in .csv or .jsonl")
    # utf-8-sig: a byte order mark (what spreadsheet programs write) is not part of a heading
    with path.open(encoding="utf-8-sig", newline="") as handle:
        reader = csv.reader(handle)
        try:
            headings = next(reader)
        except StopIteration:
            return
        columns = _columns(path, schema, headings)
        for cells in reader:
            if not any(cell.strip() for cell in cells):
                continue  # a blank line (spreadsheets end files with some)
            name: str | None = None
            fields: dict[str, Any] = {}
            for (target, field), cell in zip(columns, cells, strict=False):
                if target is None or cell == "":
                    continue
                if field is None:
                    name = _unescape(cell)
                else:
                    fields[field.slug] = read_cell(field, cell)
            yield reader.line_num, {"displayName": name, "fields": fields}


Column = tuple[str | None, FieldDef | None]


def _heading_key(text: str) -> str:
    """A heading as people write it, compared without case, spaces or punctuation."""
    return "".join(c for c in text.casefold() if c.isalnum())


def _columns(path: Path, schema: ModuleSchema, headings: list[str]) -> list[Column]:
    """What each column holds: ("displayName", None), (slug, its field), or (None, None) for
    one that is skipped (the record id, an empty heading). A heading that names no field is
    refused before anything is imported."""
    known: dict[str, Column] = {}
    for f in schema.fields:  # slugs first, then names, then labels: the first claim holds
        known.setdefault(_heading_key(f.slug), (f.slug, f))
    for f in schema.fields:
        known.setdefault(_heading_key(f.name), (f.slug, f))
    for f in schema.fields:
        known.setdefault(_heading_key(f.label), (f.slug, f))
    for alias in DISPLAY_NAMES:
        known.setdefault(_heading_key(alias), ("displayName", None))
    for alias in RECORD_IDS:
        known.setdefault(_heading_key(alias), (None, None))
    columns: list[Column] = []
    unknown: list[str] = []
    seen: dict[str, str] = {}
    for heading in headings:
        key = _heading_key(heading)
        if not key:
            columns.append((None, None))
            continue
        if key not in known:
            unknown.append(heading)
            continue
        target, field = known[key]
        if target is not None and target in seen:
            raise BadRequest(
                f"{path.name}: columns {seen[target]!r} and {heading!r} are both {target}"
            )
        if target is not None:
            seen[target] = heading
        # computed fields are the server's: an export carries them, an import skips them
        computed = field is not None and _computed(field)
        columns.append((None, None) if computed else (target, field))
    if unknown:
        fields = ", ".join(f"{f.slug} ({f.label})" for f in schema.fields)
        raise BadRequest(
            f"{path.name}: no field of module {schema.module.slug} is called "
            f"{', '.join(map(repr, unknown))}; its fields are {fields}, and displayName"
        )
    return columns


def read_cell(field: FieldDef, cell: str) -> Any:
    """A CSV cell as the value of ``field``, read by the field's type: text stays text, a
    number column takes numbers, a boolean column true or false, and the others the JSON an
    export writes or a bare value (text the API validates, and refuses if it must)."""
    kind = type_of(field)
    cell_kind = kind.csv_cell if kind is not None else "json"
    if cell_kind == "string":
        return _unescape(cell)
    text = cell.strip()
    if cell_kind == "number":  # a duration also as its text, such as ``1h 30m``
        if _INTEGER.fullmatch(text):
            return int(text)
        if _NUMBER.fullmatch(text):
            return float(text)
        return _unescape(cell)  # "1h 30m" for a duration; the API refuses it elsewhere
    if cell_kind == "boolean":
        lowered = text.casefold()
        return {"true": True, "false": False}.get(lowered, _unescape(cell))
    if text[:1] in ("[", "{"):
        try:
            return json.loads(text)
        except ValueError:
            pass  # the API says what is wrong with it
    value = _unescape(cell)
    if cell_kind == "comma_list":
        return [part.strip() for part in value.split(",") if part.strip()]
    if kind is not None and kind.holds_list(field):  # one bare value in a list column
        return [kind.bare_item(value)]
    return value


def _computed(field: FieldDef) -> bool:
    """Computed by the server: an export carries the value, an import leaves it out."""
    kind = type_of(field)
    return kind is not None and kind.read_only


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
    with _progress(progress) as bar:
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


def _progress(shown: bool) -> Progress:
    """A progress bar on stderr (stdout carries the command's JSON result)."""
    return Progress(console=Console(stderr=True), disable=not shown, transient=True)


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
    computed = {f.slug for f in schema.fields if _computed(f)}
    items = tuple(
        BatchItem(
            _display(schema, item),
            {k: v for k, v in item["fields"].items() if k not in computed},
        )
        for _, item in chunk
    )
    outcome = await system.ask(
        BatchWrite(
            schema.module.module_id,
            items,
            all_or_nothing=False,
            by=SystemActor(account_id, "import", owner),
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
    keep = schema.live_keys  # archived fields' values stay in the store
    written = 0
    with (
        path.open("w", encoding="utf-8", newline="") as handle,
        _progress(progress) as bar,
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
                    values = (
                        r.fields
                        if keep is None
                        else {k: r.fields[k] for k in r.fields if k in keep}
                    )
                    handle.write(json.dumps({**line, "fields": values}) + "\n")
                else:
                    cells = [_out(r.fields.get(s)) for s in slugs]
                    writer.writerow([r.record_id, _escape(r.display_name), *cells])
            written += len(rows)
            bar.advance(task, len(rows))
            if len(rows) < CHUNK:
                break
    return {"module": slug, "exported": written, "file": str(path)}


def _out(value: Any) -> str:
    """A value's CSV cell: text as it is (escaped when formula-like), anything else as JSON.
    The import reads a cell by its column's field type, so text needs no quoting of its own
    (a text ``42`` is written ``42`` and read as text again)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return _escape(value)
    return json.dumps(value, ensure_ascii=False)
