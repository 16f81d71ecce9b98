"""fieldhouse import | export: rows through the API's validation, rejected rows reported."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from fieldhouse.cli import main
from fieldhouse.model.errors import BadRequest
from fieldhouse.model.templates import BUILTIN_TEMPLATES
from fieldhouse.runtime import Runtime
from fieldhouse.transfer import export_records, import_records
from tests.conftest import Workspace
from tests.http.routes.test_records_values import CASES, MODULES, READ_ONLY, _names, _resolve
from tests.http.test_records_crud import create, records_url
from tests.test_cli import run


def test_import_reports_rejected_rows_and_export_round_trips(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    d = ["--data-dir", str(tmp_path / "data")]
    workspace = str(run(capsys, "init", *d)["accountId"])
    source = tmp_path / "contacts.csv"
    source.write_text(
        "first-name,last-name,do-not-contact\n"
        "Ada,Lovelace,true\n"
        ",Nameless,false\n"
        "Bob,Smith,maybe\n"
        "Cy,Young,false\n"
    )
    target = ["--workspace", workspace, "--module", "contacts", "--no-progress"]
    report = run(capsys, "import", *d, *target, str(source))
    assert report["imported"] == 2
    rejected = report["rejected"]
    assert [r["line"] for r in rejected] == [3, 4]  # type: ignore[index, union-attr]
    assert rejected[0]["issues"][0]["path"] == ["fields", "first-name"]  # type: ignore[index]
    assert rejected[1]["issues"][0]["path"] == ["fields", "do-not-contact"]  # type: ignore[index]
    out = tmp_path / "out.jsonl"
    assert run(capsys, "export", *d, *target, str(out))["exported"] == 2
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted(r["fields"]["first-name"] for r in lines) == ["Ada", "Cy"]
    assert {r["fields"]["do-not-contact"] for r in lines} == {True, False}
    # the export imports again (JSON Lines), each record once more
    again = run(capsys, "import", *d, *target, str(out))
    assert again["imported"] == 2 and again["rejected"] == []
    csv_out = tmp_path / "all.csv"
    assert run(capsys, "export", *d, *target, str(csv_out))["exported"] == 4
    assert csv_out.read_text().splitlines()[0].startswith("recordId,displayName,first-name")


# --- CSV formula escaping and malformed JSON Lines (issue 36 item 8) --------------------------

FORMULA_LIKE = [
    # displayName, first-name, last-name, job-title, balance
    ('=HYPERLINK("http://x.example","go")', "=1+1", "-minus", "'=already quoted", -5),
    ("@SUM(A1)", "+plus", "\tTab", "\rCR", -0.5),
    ("Plain", "O'Brien", "'tis", "''-two", 12),
]


async def test_csv_export_escapes_formulas_and_import_undoes_it(
    client: httpx.AsyncClient, runtime: Runtime, ws: Workspace, tmp_path: Path
) -> None:
    modules = (await client.get("/v1/modules", headers=ws.headers)).json()["modules"]
    contacts = next(m["id"] for m in modules if m["slug"] == "contacts")
    field = {"label": "Balance", "dataType": "number", "config": {"decimals": 2}}
    made = await client.post(f"/api/modules/{contacts}/fields", headers=ws.headers, json=field)
    assert made.status_code == 201, made.text
    columns = ("first-name", "last-name", "job-title", "balance")
    for name, *values in FORMULA_LIKE:
        await create(client, ws, "contacts", dict(zip(columns, values, strict=True)), name=name)
    out = tmp_path / "contacts.csv"
    await export_records(runtime.actors, ws.account_id, "contacts", out, progress=False)
    with out.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [[r[c] for c in ("displayName", *columns)] for r in rows] == [
        ['\'=HYPERLINK("http://x.example","go")', "'=1+1", "'-minus", "''=already quoted", "-5"],
        ["'@SUM(A1)", "'+plus", "'\tTab", "'\rCR", "-0.5"],
        ["Plain", "O'Brien", "'tis", "'''-two", "12"],
    ]
    report = await import_records(runtime.actors, ws.account_id, "contacts", out, progress=False)
    assert report["imported"] == 3 and report["rejected"] == []
    records = (await client.get(records_url("contacts"), headers=ws.headers)).json()["records"]
    kept = [(r["displayName"], *(r["fields"].get(c) for c in columns)) for r in records]
    # each value twice, as written and as imported: the apostrophes are the escape's alone
    assert sorted(kept) == sorted(FORMULA_LIKE * 2)


async def test_a_malformed_json_line_is_a_rejected_row(
    runtime: Runtime, ws: Workspace, tmp_path: Path
) -> None:
    source = tmp_path / "contacts.jsonl"
    source.write_bytes(
        b'{"displayName": "Ada", "first-name": "Ada"}\n'
        b"{not json\n"
        b"[1, 2]\n"
        b"\n"
        b'{"displayName": "Bob", "fields": "Bob"}\n'
        b'{"displayName": 5, "first-name": "Five"}\n'
        b'{"first-name": "Cy", "last-name": "Young"}\n'
        b'{"first-name": "\xff"}\n'
    )
    report = await import_records(runtime.actors, ws.account_id, "contacts", source, progress=False)
    assert report["imported"] == 2
    rejected = [
        (r["line"], [(i["code"], i["path"]) for i in r["issues"]]) for r in report["rejected"]
    ]
    assert rejected == [
        (2, [("invalid_json", [])]),
        (3, [("invalid_type", [])]),
        (5, [("invalid_type", ["fields"])]),
        (6, [("invalid_type", ["displayName"])]),
        (8, [("invalid_json", [])]),
    ]
    assert report["rejected"][0]["issues"][0]["message"].startswith("The line is not valid JSON")
    assert report["rejected"][4]["issues"][0]["message"].startswith("The line is not UTF-8 text")


# --- every field type through CSV; spreadsheet files (issue 33 item 4) -------------------------

#: text that looks like a number, a boolean, null or JSON: a text field gives it back as text
LOOKALIKES = ("42", "true", "null", '{"a": 1}', "[1, 2]", "-7", "1e3", "TRUE")
#: a text field of each module, where the lookalikes go
TEXT_FIELD = {"contacts": "first-name", "companies": "name", "deals": "name", "tasks": "title"}


def _kept(record: dict[str, Any], autonumbers: set[str]) -> str:
    """A record as compared across the round trip: its name and every field value but the
    auto-numbers (an import numbers its records anew)."""
    fields = {k: v for k, v in record["fields"].items() if k not in autonumbers}
    return json.dumps([record["displayName"], fields], sort_keys=True)


async def _all(client: httpx.AsyncClient, ws: Workspace, module: str) -> list[dict[str, Any]]:
    url = records_url(module) + "?pageSize=100"
    return list((await client.get(url, headers=ws.headers)).json()["records"])


def _as_a_spreadsheet_saves_it(source: Path, target: Path, labels: dict[str, str]) -> None:
    """The export opened in a spreadsheet program and saved as CSV again: a byte order mark,
    the fields' labels as headings, the cells as they were."""
    with source.open(encoding="utf-8", newline="") as handle:
        headings, *rows = list(csv.reader(handle))
    with target.open("w", encoding="utf-8-sig", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow([labels.get(h, h) for h in headings])
        writer.writerows(rows)


async def test_csv_export_then_import_gives_every_field_type_back(
    client: httpx.AsyncClient, runtime: Runtime, ws: Workspace, tmp_path: Path
) -> None:
    names = await _names(client, ws, runtime)
    covered: set[str] = set()
    for module in MODULES:
        cases = [c for c in CASES if c.module == module]
        await create(client, ws, module, {c.slug: _resolve(c.valid, names) for c in cases})
        covered |= {c.data_type for c in cases}
        for text in LOOKALIKES:
            await create(client, ws, module, {TEXT_FIELD[module]: text}, name=text)
    assert covered | {t for t, _, _ in READ_ONLY} == {
        f.data_type for t in BUILTIN_TEMPLATES for f in t.fields
    }
    for module in MODULES:
        schema = (await client.get(f"/v1/modules/{module}", headers=ws.headers)).json()
        autonumbers = {f["slug"] for f in schema["fields"] if f["dataType"] == "autonumber"}
        labels = {f["slug"]: f["label"] for f in schema["fields"]}
        labels |= {"displayName": "Display name", "recordId": "Record ID"}
        before = await _all(client, ws, module)
        out, saved = tmp_path / f"{module}.csv", tmp_path / f"{module}-saved.csv"
        await export_records(runtime.actors, ws.account_id, module, out, progress=False)
        _as_a_spreadsheet_saves_it(out, saved, labels)
        for source in (out, saved):
            report = await import_records(
                runtime.actors, ws.account_id, module, source, progress=False
            )
            assert report["rejected"] == [], (module, source.name, report["rejected"])
            assert report["imported"] == len(before)
        after = await _all(client, ws, module)
        old = {r["recordId"] for r in before}
        imported = [r for r in after if r["recordId"] not in old]
        assert sorted(_kept(r, autonumbers) for r in imported) == sorted(
            _kept(r, autonumbers) for r in before * 2
        ), module
        lookalikes = [
            (r["displayName"], r["fields"][TEXT_FIELD[module]])
            for r in imported
            if r["displayName"] in LOOKALIKES
        ]
        assert sorted(lookalikes) == sorted((text, text) for text in LOOKALIKES * 2)


async def test_a_spreadsheet_file_imports_by_its_headings(
    client: httpx.AsyncClient, runtime: Runtime, ws: Workspace, tmp_path: Path
) -> None:
    source = tmp_path / "people.csv"
    # what a spreadsheet program saves: a byte order mark, the headings people read, TRUE
    source.write_bytes(
        "\ufeffFirst name,LAST NAME,Email addresses,Do not contact,Tags,Lifecycle stage,"
        "Birthday\r\n"
        'José,Núñez,josé@exämple.com,TRUE,"vip, champion",customer,1990-02-28\r\n'
        "Zhāng,Wěi,用户@例子.广告,false,,lead,\r\n"
        ",,,,,,\r\n".encode()
    )
    report = await import_records(runtime.actors, ws.account_id, "contacts", source, progress=False)
    assert report["rejected"] == [] and report["imported"] == 2
    records = {r["displayName"]: r["fields"] for r in await _all(client, ws, "contacts")}
    jose = records["José"]
    assert (jose["last-name"], jose["do-not-contact"], jose["tags"]) == (
        "Núñez",
        True,
        ["vip", "champion"],
    )
    assert [e["value"] for e in jose["emails"]] == ["josé@exämple.com"]
    assert (jose["lifecycle"], jose["birthday"]) == ("customer", "1990-02-28")
    assert [e["value"] for e in records["Zhāng"]["emails"]] == ["用户@例子.广告"]
    assert records["Zhāng"]["do-not-contact"] is False


async def test_a_heading_that_names_no_field_imports_nothing(
    client: httpx.AsyncClient, runtime: Runtime, ws: Workspace, tmp_path: Path
) -> None:
    source = tmp_path / "people.csv"
    source.write_text("First name,Shoe size\nAda,38\n", encoding="utf-8")
    with pytest.raises(BadRequest, match="no field of module contacts is called 'Shoe size'"):
        await import_records(runtime.actors, ws.account_id, "contacts", source, progress=False)
    assert await _all(client, ws, "contacts") == []


def test_the_progress_bar_is_on_stderr_and_stdout_is_the_result(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    d = ["--data-dir", str(tmp_path / "data")]
    workspace = str(run(capsys, "init", *d)["accountId"])
    source = tmp_path / "contacts.csv"
    source.write_text("first-name\n" + "".join(f"P{i}\n" for i in range(50)))
    target = ["--workspace", workspace, "--module", "contacts"]
    for verb, file in (("import", source), ("export", tmp_path / "out.csv")):
        assert main([*d, verb, *target, str(file)]) == 0
        out = capsys.readouterr().out
        assert len(out.splitlines()) == 1, out  # the JSON result alone
        assert json.loads(out)["module"] == "contacts"


async def test_a_json_lines_file_may_start_with_a_byte_order_mark(
    runtime: Runtime, ws: Workspace, tmp_path: Path
) -> None:
    source = tmp_path / "contacts.jsonl"
    source.write_bytes(
        b'\xef\xbb\xbf{"displayName": "Ada", "first-name": "Ada"}\n{"first-name": "Bob"}\n'
    )
    report = await import_records(runtime.actors, ws.account_id, "contacts", source, progress=False)
    assert report == {"module": "contacts", "imported": 2, "rejected": []}
